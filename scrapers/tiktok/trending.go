package tiktok

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/surfsense/pluginhost/scrapers"
)

// The trending (For You) feed: the recommend item list TikTok's web client
// asks for its home page.
const (
	trendingPath   = "/api/recommend/item_list/"
	trendingSource = "https://www.tiktok.com/foryou"
	// trendingPageSize is how many videos one request asks for; the web
	// client asks 30 at most.
	trendingPageSize = 30
)

// trending lists the trending feed from at up to maxItems videos and
// returns the cursor that continues it. The feed is answered only to
// signed requests, as search is; that refusal is said, naming the
// endpoint.
func (s *scraper) trending(ctx context.Context, r *scrapers.SerialJob, at position, maxItems int) (*listCursor, error) {
	seen := map[string]bool{}
	have, next, err := walk(ctx, maxItems, at, nil, trendingPageSize, func(ctx context.Context, cursor string, n int) (*pageOf[Video], error) {
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "from_page": {"fyp"},
			"count": {strconv.Itoa(n)}, "itemID": {"1"}, "pullType": {"1"}}
		if cursor != "" {
			q.Set("cursor", cursor)
			q.Set("pullType", "2")
		}
		req := &scrapers.Request{URL: "https://www.tiktok.com" + trendingPath + "?" + q.Encode(), Header: http.Header{"Referer": {trendingSource}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		if err != nil {
			return nil, err
		}
		l, err := parseItemList(resp.Body, trendingSource)
		if errors.Is(err, errEmptyList) {
			return nil, &signedError{What: "trending (For You) feed", Endpoint: trendingPath, Answer: "an empty body"}
		}
		if err != nil {
			return nil, err
		}
		// The feed is a stream: an answer that gives no cursor is
		// continued from the count of what it gave.
		c := l.Cursor
		if c == "" && l.HasMore {
			from, _ := strconv.Atoi(cursor)
			c = strconv.Itoa(from + len(l.Videos))
		}
		return &pageOf[Video]{Items: l.Videos, Cursor: c, More: l.HasMore}, nil
	}, func(v Video) bool {
		if seen[v.ID] {
			return false
		}
		seen[v.ID] = true
		v.ListedVia = listedViaAPI
		r.Add(v)
		r.Call().Progress(fmt.Sprintf("listed %d trending videos", len(seen)), len(seen), maxItems)
		return true
	})
	var nc *listCursor
	if next != nil {
		nc = &listCursor{Kind: cursorTrending, After: next.After, Skip: next.Skip}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nc, scrapers.ContextError(ctx)
		}
		if have == 0 || isBlock(r.RateLimited(err)) {
			return nc, r.RateLimited(err)
		}
		r.Call().MarkPartial(fmt.Sprintf("the trending feed gave %d of %d videos: %v", have, maxItems, err))
	}
	return nc, nil
}
