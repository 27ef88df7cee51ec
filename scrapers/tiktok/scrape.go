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
	var urls []string
	for _, u := range a.urls {
		urls = append(urls, u.String())
	}
	for _, p := range a.profiles {
		urls = append(urls, "https://www.tiktok.com/@"+url.PathEscape(p))
	}
	for _, h := range a.hashtags {
		urls = append(urls, "https://www.tiktok.com/tag/"+url.PathEscape(h))
	}
	sources := make([]scrapers.Source, 0, len(urls)+len(a.searches))
	for _, u := range urls {
		sources = append(sources, scrapers.Source{URL: u, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.source(ctx, r, u, a.maxItems)
		}})
	}
	for _, q := range a.searches {
		sources = append(sources, scrapers.Source{URL: q.source(), Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.searchFor(ctx, r, q, a.maxItems)
		}})
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
}

// source reads one page and, for a profile or hashtag, lists its videos.
func (s *scraper) source(ctx context.Context, r *scrapers.SerialJob, src string, maxItems int) error {
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
		r.Add(pg.Video)
		return nil
	case pg.Profile != nil:
		r.Add(pg.Profile)
		seen := map[string]bool{}
		n := 0
		for _, v := range pg.ProfileVideos {
			if n >= maxItems {
				break
			}
			if !seen[v.ID] {
				seen[v.ID] = true
				r.Add(v)
				n++
			}
		}
		if n >= maxItems || pg.Profile.SecUID == "" {
			return nil
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "secUid": {pg.Profile.SecUID}}
		return s.list(ctx, r, "/api/post/item_list/", q, pg.Profile.URL, "@"+pg.Profile.UniqueID, maxItems, n, seen)
	case pg.Hashtag != nil:
		r.Add(pg.Hashtag)
		if pg.Hashtag.ID == "" {
			r.Call().MarkPartial(fmt.Sprintf("TikTok gave no id for #%s, so its videos could not be listed", pg.Hashtag.Name))
			return nil
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "challengeID": {pg.Hashtag.ID}}
		return s.list(ctx, r, "/api/challenge/item_list/", q, pg.Hashtag.URL, "#"+pg.Hashtag.Name, maxItems, 0, map[string]bool{})
	}
	return errNoData
}

// list pages through an item_list API until maxItems videos are added
// (have already are), the list ends, or TikTok stops answering.
func (s *scraper) list(ctx context.Context, r *scrapers.SerialJob, path string, q url.Values, source, name string, maxItems, have int, seen map[string]bool) error {
	cursor := "0"
	for page := 0; page < maxListPages && have < maxItems; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
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
						r.Add(v)
						have++
						added++
					}
				}
				r.Call().Progress(fmt.Sprintf("listed %d videos of %s", have, name), have, maxItems)
				if !l.HasMore || added == 0 || l.Cursor == "" || l.Cursor == cursor {
					return nil
				}
				cursor = l.Cursor
				continue
			}
		}
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		var be *scrapers.BlockedError
		if err = r.RateLimited(err); errors.As(err, &be) {
			return err
		}
		// The page itself was read; a list that cannot be read makes the
		// result partial rather than failing the source.
		r.Call().MarkPartial(fmt.Sprintf("the videos of %s could not all be listed (%d of %d): %v", name, have, maxItems, err))
		return nil
	}
	return nil
}
