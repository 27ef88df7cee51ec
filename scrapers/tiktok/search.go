package tiktok

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// The web API endpoints of TikTok's keyword search.
const (
	videoSearchPath = "/api/search/item/full/"
	userSearchPath  = "/api/search/user/full/"
	// searchPageSize is how many results one search request asks for.
	searchPageSize = 20
	// maxSearchPages bounds the requests of one search.
	maxSearchPages = 10
)

// signedError says a TikTok web API endpoint answered as it answers requests
// that lack the signed parameters its web client's scripts compute
// (X-Bogus, msToken, …), which the plugin host cannot make.
type signedError struct {
	What     string // "video search"
	Endpoint string // the path asked
	Answer   string // what came instead: "an empty body"
}

func (e *signedError) Error() string {
	return fmt.Sprintf("TikTok's %s (%s) answered with %s: it answers only requests signed by its web client's scripts (X-Bogus and msToken parameters), which the plugin host cannot make",
		e.What, e.Endpoint, e.Answer)
}

// searchPage is one answer of a search endpoint.
type searchPage struct {
	Videos   []Video
	Profiles []Profile
	Cursor   string
	HasMore  bool
}

// parseSearch reads an answer of the video or user search endpoint.
func parseSearch(body []byte, users bool) (*searchPage, error) {
	what, path := "video search", videoSearchPath
	if users {
		what, path = "user search", userSearchPath
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, &signedError{What: what, Endpoint: path, Answer: "an empty body"}
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	m := jsonval.Object(v)
	if m == nil {
		return nil, errNotJSON
	}
	list := "item_list"
	if users {
		list = "user_list"
	}
	if code, ok := jsonval.FirstInt(m["status_code"], m["statusCode"]); ok && code != 0 && m[list] == nil {
		return nil, &statusError{Code: code, Msg: jsonval.FirstString(m["status_msg"], m["statusMsg"])}
	}
	p := &searchPage{Cursor: jsonval.String(m["cursor"]), HasMore: jsonval.Bool(m["has_more"])}
	if n, ok := jsonval.Int(m["has_more"]); ok {
		p.HasMore = n != 0
	}
	for _, it := range jsonval.List(m[list]) {
		o := jsonval.Object(it)
		if users {
			if pr, ok := profileFromSearch(jsonval.Object(o["user_info"])); ok {
				p.Profiles = append(p.Profiles, pr)
			}
			continue
		}
		if o != nil && jsonval.String(o["id"]) != "" {
			p.Videos = append(p.Videos, videoFrom(o, ""))
		}
	}
	return p, nil
}

// profileFromSearch normalizes a user search result's user_info, which
// names its fields apart from a profile page's.
func profileFromSearch(u map[string]any) (Profile, bool) {
	p := Profile{
		Type:     "profile",
		ID:       jsonval.String(u["uid"]),
		UniqueID: jsonval.String(u["unique_id"]),
		Nickname: jsonval.String(u["nickname"]),
		Bio:      jsonval.String(u["signature"]),
		SecUID:   jsonval.String(u["sec_uid"]),
		Avatar:   jsonval.FirstString(jsonval.Get(u, "avatar_medium", "url_list", 0), jsonval.Get(u, "avatar_thumb", "url_list", 0)),
		Verified: jsonval.String(u["custom_verify"]) != "" || jsonval.String(u["enterprise_verify_reason"]) != "",
	}
	if n, ok := jsonval.Int(u["verification_type"]); ok && n > 0 {
		p.Verified = true
	}
	if n, ok := jsonval.Int(u["secret"]); ok && n != 0 {
		p.Private = true
	}
	if !usernameRE.MatchString(p.UniqueID) {
		return Profile{}, false
	}
	p.URL = "https://www.tiktok.com/@" + url.PathEscape(p.UniqueID)
	count := func(k string) *int64 {
		if n, ok := jsonval.Int(u[k]); ok && n >= 0 {
			return &n
		}
		return nil
	}
	p.Stats = ProfileStats{Followers: count("follower_count"), Following: count("following_count"), Likes: count("total_favorited"), Videos: count("aweme_count")}
	return p, true
}

// searchSource is how a search is named: its page on TikTok.
func (s search) source() string {
	path := "/search/video"
	if s.users {
		path = "/search/user"
	}
	return "https://www.tiktok.com" + path + "?" + url.Values{"q": {s.query}}.Encode()
}

// searchFor pages through one keyword search from at until maxItems
// results are added, the results end, or TikTok stops answering, and
// returns the cursor that continues it. A first page refused for want of a
// signature fails the source, saying so; a later one makes the result
// partial.
func (s *scraper) searchFor(ctx context.Context, r *scrapers.SerialJob, q search, at position, maxItems int) (*listCursor, error) {
	path, what, kind := videoSearchPath, "videos", cursorSearchVideo
	if q.users {
		path, what, kind = userSearchPath, "users", cursorSearchUser
	}
	seen := map[string]bool{}
	have, next, err := walk(ctx, maxItems, at, nil, searchPageSize, func(ctx context.Context, cursor string, n int) (*pageOf[any], error) {
		if cursor == "" {
			cursor = "0"
		}
		v := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "keyword": {q.query},
			"count": {strconv.Itoa(n)}, "search_source": {"normal_search"}}
		if q.users {
			v.Set("cursor", cursor)
		} else {
			v.Set("offset", cursor)
		}
		req := &scrapers.Request{URL: "https://www.tiktok.com" + path + "?" + v.Encode(), Header: http.Header{"Referer": {q.source()}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		if err != nil {
			return nil, err
		}
		pg, err := parseSearch(resp.Body, q.users)
		if err != nil {
			return nil, err
		}
		out := &pageOf[any]{Cursor: pg.Cursor, More: pg.HasMore}
		for _, vid := range pg.Videos {
			out.Items = append(out.Items, vid)
		}
		for _, p := range pg.Profiles {
			out.Items = append(out.Items, p)
		}
		return out, nil
	}, func(it any) bool {
		switch x := it.(type) {
		case Video:
			if seen[x.ID] {
				return false
			}
			seen[x.ID] = true
			x.Source, x.SearchQuery, x.ListedVia = q.source(), q.query, listedViaAPI
			r.Add(x)
		case Profile:
			if seen[x.UniqueID] {
				return false
			}
			seen[x.UniqueID] = true
			x.Source, x.SearchQuery = q.source(), q.query
			r.Add(x)
		}
		r.Call().Progress(fmt.Sprintf("found %d %s for %q", len(seen), what, q.query), len(seen), maxItems)
		return true
	})
	var nc *listCursor
	if next != nil {
		nc = &listCursor{Kind: kind, Key: q.query, After: next.After, Skip: next.Skip}
	}
	if err != nil {
		var be *scrapers.BlockedError
		if ctx.Err() != nil || have == 0 || errors.As(r.RateLimited(err), &be) {
			if ctx.Err() != nil {
				return nc, scrapers.ContextError(ctx)
			}
			return nc, r.RateLimited(err)
		}
		r.Call().MarkPartial(fmt.Sprintf("the search %s gave %d of %d %s: %v", q.source(), have, maxItems, what, err))
	}
	return nc, nil
}
