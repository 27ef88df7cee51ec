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

// listPageSize is how many videos one item_list request asks for at most.
const listPageSize = 30

type scraper struct {
	f *scrapers.Fetcher
	// renderer renders profile pages whose videos the item list will not
	// give unsigned; nil when the host has none (RENDERER_URL, CHROMIUM_BIN).
	renderer pageRenderer
}

// listing is one source of the scrape tool and, when it lists, where its
// cursor is kept.
type listing struct {
	url  string
	read func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error)
}

// scrape runs the scrape tool: each URL, profile, hashtag, search and the
// trending feed in turn, or the one listing a cursor continues. With one
// listing, next_cursor continues it.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	var ls []listing
	add := func(u string, read func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error)) {
		ls = append(ls, listing{url: u, read: read})
	}
	listings := 0
	if c := a.cursor; c != nil {
		listings = 1
		add(c.source(), func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.resume(ctx, r, *c, a.maxItems)
		})
	}
	for _, u := range a.urls {
		if p := strings.Trim(u.Path, "/"); strings.HasPrefix(p, "@") && !strings.Contains(p, "/") || strings.HasPrefix(p, "tag/") {
			listings++
		}
		add(u.String(), func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.source(ctx, r, u.String(), a.maxItems)
		})
	}
	for _, p := range a.profiles {
		listings++
		u := "https://www.tiktok.com/@" + url.PathEscape(p)
		add(u, func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.source(ctx, r, u, a.maxItems)
		})
	}
	for _, h := range a.hashtags {
		listings++
		u := "https://www.tiktok.com/tag/" + url.PathEscape(h)
		add(u, func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.source(ctx, r, u, a.maxItems)
		})
	}
	for _, q := range a.searches {
		listings++
		add(q.source(), func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.searchFor(ctx, r, q, position{}, a.maxItems)
		})
	}
	if a.trending {
		listings++
		add(trendingSource, func(ctx context.Context, r *scrapers.SerialJob) (*listCursor, error) {
			return s.trending(ctx, r, position{}, a.maxItems)
		})
	}
	var next *listCursor
	sources := make([]scrapers.Source, len(ls))
	for i, l := range ls {
		sources[i] = scrapers.Source{URL: l.url, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			c, err := l.read(ctx, r)
			if listings == 1 && c != nil {
				next = c
			}
			return err
		}}
	}
	err := scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
	if next != nil {
		call.SetMeta("next_cursor", next.String())
	}
	return err
}

// source names a cursor's listing by its page on TikTok.
func (c listCursor) source() string {
	switch c.Kind {
	case cursorProfile:
		return "https://www.tiktok.com/@" + url.PathEscape(c.Key)
	case cursorHashtag:
		return "https://www.tiktok.com/tag/" + url.PathEscape(c.Key)
	case cursorSearchVideo, cursorSearchUser:
		return search{query: c.Key, users: c.Kind == cursorSearchUser}.source()
	}
	return trendingSource
}

// resume continues the listing a cursor names.
func (s *scraper) resume(ctx context.Context, r *scrapers.SerialJob, c listCursor, maxItems int) (*listCursor, error) {
	at := position{After: c.After, Skip: c.Skip}
	switch c.Kind {
	case cursorProfile:
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "secUid": {c.ID}}
		return s.list(ctx, r, "/api/post/item_list/", q, c, at, nil, maxItems, map[string]bool{})
	case cursorHashtag:
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "challengeID": {c.ID}}
		return s.list(ctx, r, "/api/challenge/item_list/", q, c, at, nil, maxItems, map[string]bool{})
	case cursorSearchVideo, cursorSearchUser:
		return s.searchFor(ctx, r, search{query: c.Key, users: c.Kind == cursorSearchUser}, at, maxItems)
	}
	return s.trending(ctx, r, at, maxItems)
}

// source reads one page and, for a profile or hashtag, lists its videos.
func (s *scraper) source(ctx context.Context, r *scrapers.SerialJob, src string, maxItems int) (*listCursor, error) {
	resp, err := s.f.Get(ctx, src)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	switch {
	case pg.Video != nil:
		r.Add(pg.Video)
		return nil, nil
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
				v.ListedVia = listedViaPage
				r.Add(v)
				n++
			}
		}
		if n >= maxItems || pg.Profile.SecUID == "" {
			return nil, nil
		}
		c := listCursor{Kind: cursorProfile, Key: pg.Profile.UniqueID, ID: pg.Profile.SecUID}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "secUid": {pg.Profile.SecUID}}
		next, err := s.list(ctx, r, "/api/post/item_list/", q, c, position{}, pg.Profile, maxItems-n, seen)
		return next, err
	case pg.Hashtag != nil:
		r.Add(pg.Hashtag)
		if pg.Hashtag.ID == "" {
			r.Call().MarkPartial(fmt.Sprintf("TikTok gave no id for #%s, so its videos could not be listed", pg.Hashtag.Name))
			return nil, nil
		}
		c := listCursor{Kind: cursorHashtag, Key: pg.Hashtag.Name, ID: pg.Hashtag.ID}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "challengeID": {pg.Hashtag.ID}}
		return s.list(ctx, r, "/api/challenge/item_list/", q, c, position{}, nil, maxItems, map[string]bool{})
	}
	return nil, errNoData
}

// list pages through an item_list API from at until want videos are
// added, the list ends, or TikTok stops answering, and returns the cursor
// that continues it. profile, when set, is the profile whose page was
// read: a list TikTok refuses unsigned is then read from the rendered
// profile page, when the host has a renderer.
func (s *scraper) list(ctx context.Context, r *scrapers.SerialJob, path string, q url.Values, c listCursor, at position, profile *Profile, want int, seen map[string]bool) (*listCursor, error) {
	name, source := c.label(), c.source()
	have, next, err := walk(ctx, want, at, nil, listPageSize, func(ctx context.Context, cursor string, n int) (*pageOf[Video], error) {
		if cursor == "" {
			cursor = "0"
		}
		q.Set("count", strconv.Itoa(n))
		q.Set("cursor", cursor)
		req := &scrapers.Request{URL: "https://www.tiktok.com" + path + "?" + q.Encode(), Header: http.Header{"Referer": {source}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		if err != nil {
			return nil, err
		}
		l, err := parseItemList(resp.Body, source)
		if err != nil {
			return nil, err
		}
		return &pageOf[Video]{Items: l.Videos, Cursor: l.Cursor, More: l.HasMore}, nil
	}, func(v Video) bool {
		if seen[v.ID] {
			return false
		}
		seen[v.ID] = true
		v.ListedVia = listedViaAPI
		r.Add(v)
		r.Call().Progress(fmt.Sprintf("listed %d videos of %s", len(seen), name), len(seen), want)
		return true
	})
	var nc *listCursor
	if next != nil {
		nc = &listCursor{Kind: c.Kind, Key: c.Key, ID: c.ID, After: next.After, Skip: next.Skip}
	}
	if err == nil {
		return nc, nil
	}
	if ctx.Err() != nil {
		return nc, scrapers.ContextError(ctx)
	}
	if be := r.RateLimited(err); isBlock(be) {
		return nc, be
	}
	if profile != nil && have == 0 && at == (position{}) && errors.Is(err, errEmptyList) {
		// TikTok lists a profile's videos only to signed requests: read
		// them from the rendered page, as a browser shows them.
		return nil, s.renderedProfile(ctx, r, profile, want, seen)
	}
	if have == 0 && at != (position{}) {
		// Nothing read of what the cursor asked: the call fails, saying why.
		return nc, fmt.Errorf("the videos of %s could not be listed: %w", name, err)
	}
	// The page itself was read; a list that cannot be read makes the
	// result partial rather than failing the source.
	r.Call().MarkPartial(fmt.Sprintf("the videos of %s could not all be listed (%d of %d): %v", name, have, want, err))
	return nc, nil
}
