package instagram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// The GraphQL queries of Instagram's web client that page through a
// profile's posts and a post's comments. Their ids are those public
// scrapers name in 2025-2026; Instagram changes them from time to time, and
// an id it no longer knows is answered with an error the item names.
const (
	graphqlPath = "/graphql/query/"
	// timelineDocID pages a profile's posts for a logged-out reader,
	// answering data.user.edge_owner_to_timeline_media as web_profile_info.
	timelineDocID = "7950326061742207"
	// commentsDocID is PolarisPostCommentsPaginationQuery.
	commentsDocID   = "26864966453197043"
	commentsQuery   = "PolarisPostCommentsPaginationQuery"
	defaultLSDToken = "AVqbxe3J_YA" // sent when the page gave none
	asbdID          = "129477"
)

// errNoAPIData is an API answer that holds neither data nor a known error.
var errNoAPIData = errors.New("Instagram's answer holds no data")

// apiError is an error Instagram's GraphQL endpoint answered in place of
// data.
type apiError struct{ Msg string }

func (e *apiError) Error() string {
	return "Instagram's GraphQL endpoint answered with an error (" + e.Msg + "); the query id may have changed"
}

// graphqlAnswer decodes a GraphQL answer's data, or says why there is none.
func graphqlAnswer(body []byte) (map[string]any, error) {
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return nil, errNotJSON
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	data := jsonval.Object(jsonval.Get(v, "data"))
	if data == nil {
		if msg := jsonval.FirstString(jsonval.Get(v, "errors", 0, "message"), jsonval.Get(v, "message")); msg != "" {
			if len(msg) > 200 {
				msg = msg[:200]
			}
			return nil, &apiError{Msg: msg}
		}
		return nil, errNoAPIData
	}
	return data, nil
}

// timelinePage is one page of a profile's posts.
type timelinePage struct {
	Posts  []Post
	Cursor string
	More   bool
}

// parseTimeline reads an answer of the timeline query: the logged-out
// shape (data.user.edge_owner_to_timeline_media, GraphQL nodes) or the
// logged-in one (xdt_api__v1__feed__user_timeline_graphql_connection, v1
// items).
func parseTimeline(body []byte) (*timelinePage, error) {
	data, err := graphqlAnswer(body)
	if err != nil {
		return nil, err
	}
	p := &timelinePage{}
	var conn map[string]any
	if c := jsonval.Object(jsonval.Get(data, "user", "edge_owner_to_timeline_media")); c != nil {
		conn = c
		for _, e := range jsonval.List(c["edges"]) {
			if post, ok := postFromGraph(jsonval.Object(jsonval.Get(e, "node"))); ok {
				p.Posts = append(p.Posts, post)
			}
		}
	} else if c := jsonval.Object(data["xdt_api__v1__feed__user_timeline_graphql_connection"]); c != nil {
		conn = c
		for _, e := range jsonval.List(c["edges"]) {
			if post, ok := postFromV1(jsonval.Object(jsonval.Get(e, "node"))); ok {
				post.Comments = nil
				p.Posts = append(p.Posts, post)
			}
		}
	} else {
		return nil, errNoAPIData
	}
	for i := range p.Posts {
		p.Posts[i].Comments = nil
	}
	p.Cursor = jsonval.String(jsonval.Get(conn, "page_info", "end_cursor"))
	p.More = jsonval.Bool(jsonval.Get(conn, "page_info", "has_next_page")) && p.Cursor != ""
	return p, nil
}

// parseCommentsAnswer reads an answer of the comments pagination query.
func parseCommentsAnswer(body []byte) (*commentsPage, error) {
	data, err := graphqlAnswer(body)
	if err != nil {
		return nil, err
	}
	c := jsonval.Object(data[commentsKey])
	if c == nil {
		return nil, errNoAPIData
	}
	p := parseCommentsConnection(c)
	return &p, nil
}

// apiHeaders are the headers the web client sends with its API requests.
func apiHeaders(referer string) http.Header {
	return http.Header{
		"X-IG-App-ID":      {appID},
		"X-ASBD-ID":        {asbdID},
		"X-Requested-With": {"XMLHttpRequest"},
		"Accept":           {"*/*"},
		"Referer":          {referer},
	}
}

// timeline asks one page of a profile's posts: first of them after the
// end_cursor after ("" from the newest).
func (s *scraper) timeline(ctx context.Context, username, userID, after string, first int) (*timelinePage, error) {
	vars := map[string]any{"id": userID, "first": first}
	if after != "" {
		vars["after"] = after
	}
	b, _ := json.Marshal(vars)
	req := &scrapers.Request{
		URL:    origin + graphqlPath + "?" + url.Values{"doc_id": {timelineDocID}, "variables": {string(b)}}.Encode(),
		Header: apiHeaders(origin + "/" + username + "/"),
	}
	resp, err := s.f.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return parseTimeline(resp.Body)
}

// commentsAfter asks one page of a post's comments: first of them after
// the end_cursor after ("" from the first), as the web client's
// pagination query does, with the page's LSD token.
func (s *scraper) commentsAfter(ctx context.Context, shortcode, mediaID, after, lsd string, first int) (*commentsPage, error) {
	if lsd == "" {
		lsd = defaultLSDToken
	}
	vars := map[string]any{"after": nil, "before": nil, "first": first, "last": nil, "media_id": mediaID, "sort_order": "popular",
		"__relay_internal__pv__PolarisIsLoggedInrelayprovider": false}
	if after != "" {
		vars["after"] = after
	}
	b, _ := json.Marshal(vars)
	form := url.Values{"av": {"0"}, "__user": {"0"}, "__a": {"1"}, "lsd": {lsd}, "fb_api_caller_class": {"RelayModern"},
		"fb_api_req_friendly_name": {commentsQuery}, "variables": {string(b)}, "server_timestamps": {"true"}, "doc_id": {commentsDocID}}
	h := apiHeaders(origin + "/p/" + shortcode + "/")
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	h.Set("X-FB-LSD", lsd)
	h.Set("X-FB-Friendly-Name", commentsQuery)
	resp, err := s.f.Do(ctx, &scrapers.Request{Method: http.MethodPost, URL: origin + graphqlPath, Header: h, Body: []byte(form.Encode())})
	if err != nil {
		return nil, err
	}
	return parseCommentsAnswer(resp.Body)
}

// mediaID is the numeric id of a shortcode: its characters are the digits
// of the id in Instagram's base-64 alphabet. ok is false for a shortcode
// too long to be one (a private post's longer code).
func mediaID(shortcode string) (string, bool) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	if len(shortcode) > 11 {
		return "", false
	}
	var id uint64
	for i := 0; i < len(shortcode); i++ {
		d := bytes.IndexByte([]byte(alphabet), shortcode[i])
		if d < 0 || id > (1<<64-1)>>6 {
			return "", false
		}
		id = id<<6 | uint64(d)
	}
	return strconv.FormatUint(id, 10), true
}
