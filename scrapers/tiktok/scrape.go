package tiktok

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// listPageSize is how many videos one item_list request asks for.
const listPageSize = 30

// maxListPages bounds the item_list requests per profile or hashtag.
const maxListPages = 10

type scraper struct {
	f *scrapers.Fetcher
}

// scrape runs the scrape tool: each URL, profile and hashtag in turn.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	var sources []string
	for _, u := range a.urls {
		sources = append(sources, u.String())
	}
	for _, p := range a.profiles {
		sources = append(sources, "https://www.tiktok.com/@"+url.PathEscape(p))
	}
	for _, h := range a.hashtags {
		sources = append(sources, "https://www.tiktok.com/tag/"+url.PathEscape(h))
	}
	r := &run{call: call}
	for i, src := range sources {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		err := s.source(ctx, r, src, a.maxItems)
		if stop, ret := r.failed(ctx, src, err); stop {
			return ret
		}
		call.Progress(fmt.Sprintf("read %d of %d TikTok sources", i+1, len(sources)), i+1, len(sources))
	}
	return r.finish()
}

// source reads one page and, for a profile or hashtag, lists its videos.
func (s *scraper) source(ctx context.Context, r *run, src string, maxItems int) error {
	resp, err := s.f.Get(ctx, src)
	if err != nil {
		return err
	}
	// Where the page landed (a short link lands on its video), named on the
	// real site even when TIKTOK_BASE_URL sent the request elsewhere.
	final := src
	if u := resp.URL; u != nil && u.Path != "" && u.Path != "/" {
		if h := strings.ToLower(u.Hostname()); h == "tiktok.com" || strings.HasSuffix(h, ".tiktok.com") {
			final = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
		} else {
			final = (&url.URL{Scheme: "https", Host: "www.tiktok.com", Path: u.Path, RawPath: u.RawPath}).String()
		}
	}
	pg, err := parsePage(resp.Body, final)
	if err != nil {
		return err
	}
	switch {
	case pg.Video != nil:
		r.add(pg.Video)
		return nil
	case pg.Profile != nil:
		r.add(pg.Profile)
		seen := map[string]bool{}
		n := 0
		for _, v := range pg.ProfileVideos {
			if n >= maxItems {
				break
			}
			if !seen[v.ID] {
				seen[v.ID] = true
				r.add(v)
				n++
			}
		}
		if n >= maxItems || pg.Profile.SecUID == "" {
			return nil
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "secUid": {pg.Profile.SecUID}}
		return s.list(ctx, r, "/api/post/item_list/", q, pg.Profile.URL, "@"+pg.Profile.UniqueID, maxItems, n, seen)
	case pg.Hashtag != nil:
		r.add(pg.Hashtag)
		if pg.Hashtag.ID == "" {
			r.call.MarkPartial(fmt.Sprintf("TikTok gave no id for #%s, so its videos could not be listed", pg.Hashtag.Name))
			return nil
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "challengeID": {pg.Hashtag.ID}}
		return s.list(ctx, r, "/api/challenge/item_list/", q, pg.Hashtag.URL, "#"+pg.Hashtag.Name, maxItems, 0, map[string]bool{})
	}
	return errNoData
}

// list pages through an item_list API until maxItems videos are added
// (have already are), the list ends, or TikTok stops answering.
func (s *scraper) list(ctx context.Context, r *run, path string, q url.Values, source, name string, maxItems, have int, seen map[string]bool) error {
	cursor := "0"
	for page := 0; page < maxListPages && have < maxItems; page++ {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		q.Set("count", strconv.Itoa(listPageSize))
		q.Set("cursor", cursor)
		req := &scrapers.Request{URL: "https://www.tiktok.com" + path + "?" + q.Encode(), Header: http.Header{"Referer": {source}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		if err == nil {
			var l *itemList
			l, err = parseItemList(resp.Body, source)
			if err == nil {
				added := 0
				for _, v := range l.Videos {
					if have >= maxItems {
						break
					}
					if !seen[v.ID] {
						seen[v.ID] = true
						r.add(v)
						have++
						added++
					}
				}
				r.call.Progress(fmt.Sprintf("listed %d videos of %s", have, name), have, maxItems)
				if !l.HasMore || added == 0 || l.Cursor == "" || l.Cursor == cursor {
					return nil
				}
				cursor = l.Cursor
				continue
			}
		}
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		var be *scrapers.BlockedError
		if err = rateLimited(err); errors.As(err, &be) {
			return err
		}
		// The page itself was read; a list that cannot be read makes the
		// result partial rather than failing the source.
		r.call.MarkPartial(fmt.Sprintf("the videos of %s could not all be listed (%d of %d): %v", name, have, maxItems, err))
		return nil
	}
	return nil
}

// run tracks one call: how many real items were added and the first failure.
type run struct {
	call     *scrapers.Call
	items    int
	firstErr error
	failures int
}

func (r *run) add(item any) {
	r.call.Add(item)
	r.items++
}

// failed records a source's error. It says whether the call must stop and
// what to return then: the context's error when the call ended, the block
// when TikTok blocked before anything was gathered.
func (r *run) failed(ctx context.Context, src string, err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	if ctx.Err() != nil {
		return true, stopped(ctx)
	}
	err = rateLimited(err)
	var be *scrapers.BlockedError
	if errors.As(err, &be) {
		if r.items == 0 {
			return true, err
		}
		r.call.Fail(src, err)
		r.call.MarkPartial("TikTok started blocking requests; the remaining sources were not read")
		return true, nil
	}
	r.call.Fail(src, err)
	r.failures++
	if r.firstErr == nil {
		r.firstErr = err
	}
	return false, nil
}

// finish is the call's outcome once every source was tried: an error when
// nothing at all was gathered and something failed.
func (r *run) finish() error {
	if r.items == 0 && r.firstErr != nil {
		if r.failures > 1 {
			return fmt.Errorf("all %d TikTok sources failed; the first: %w", r.failures, r.firstErr)
		}
		return r.firstErr
	}
	return nil
}

// rateLimited turns a 429 that outlasted the fetcher's retries into the
// rate-limit block it is.
func rateLimited(err error) error {
	var se *scrapers.SiteError
	if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
		return &scrapers.BlockedError{Site: "TikTok", Kind: scrapers.BlockRateLimited, URL: se.URL}
	}
	return err
}

// stopped is the error of a call whose context ended (deadline or cancel),
// carrying the cause when there is one.
func stopped(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
