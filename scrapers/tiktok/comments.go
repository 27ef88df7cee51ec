package tiktok

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Limits of the comments tool.
const (
	defaultMaxComments = 20
	maxMaxComments     = 500
	// commentPageSize is how many comments one request asks for (TikTok's
	// web client asks 20; it answers at most 50).
	commentPageSize = 50
	commentListPath = "/api/comment/list/"
)

// Comment is one top-level comment of a TikTok video, named as YouTube's
// comments are.
type Comment struct {
	URL            string `json:"url"` // the video's page
	Type           string `json:"type"`
	VideoID        string `json:"video_id"`
	VideoURL       string `json:"video_url"`
	CommentID      string `json:"comment_id"`
	Author         string `json:"author"` // the commenter's unique id (@name)
	AuthorNickname string `json:"author_nickname,omitempty"`
	AuthorID       string `json:"author_id,omitempty"`
	Text           string `json:"text"`
	Likes          int64  `json:"likes"`
	ReplyCount     int64  `json:"reply_count"`
	CreatedAt      string `json:"created_at,omitempty"` // RFC 3339, UTC
	Language       string `json:"language,omitempty"`
	IsPinned       bool   `json:"is_pinned,omitempty"`       // pinned by the video's author
	LikedByAuthor  bool   `json:"liked_by_author,omitempty"` // liked by the video's author
}

// commentPage is one answer of /api/comment/list/.
type commentPage struct {
	Comments []Comment
	Cursor   string
	HasMore  bool
	Total    *int64
}

// parseComments reads a comment list answer; video is the video's page URL.
func parseComments(body []byte, videoID, video string) (*commentPage, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, &signedError{What: "comment list", Endpoint: commentListPath, Answer: "an empty body"}
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	m := jsonval.Object(v)
	if m == nil {
		return nil, errNotJSON
	}
	if code, ok := jsonval.FirstInt(m["status_code"], m["statusCode"]); ok && code != 0 && m["comments"] == nil {
		return nil, &statusError{Code: code, Msg: jsonval.FirstString(m["status_msg"], m["statusMsg"])}
	}
	p := &commentPage{Cursor: jsonval.String(m["cursor"]), HasMore: jsonval.Bool(m["has_more"])}
	if n, ok := jsonval.Int(m["has_more"]); ok {
		p.HasMore = n != 0
	}
	if n, ok := jsonval.Int(m["total"]); ok && n >= 0 {
		p.Total = &n
	}
	for _, it := range jsonval.List(m["comments"]) {
		c := jsonval.Object(it)
		cm := Comment{
			URL: video, Type: "comment", VideoID: videoID, VideoURL: video,
			CommentID:      jsonval.String(c["cid"]),
			Author:         jsonval.String(jsonval.Get(c, "user", "unique_id")),
			AuthorNickname: jsonval.String(jsonval.Get(c, "user", "nickname")),
			AuthorID:       jsonval.String(jsonval.Get(c, "user", "uid")),
			Text:           jsonval.String(c["text"]),
			Language:       jsonval.String(c["comment_language"]),
			IsPinned:       jsonval.Bool(c["author_pin"]),
			LikedByAuthor:  jsonval.Bool(c["is_author_digged"]),
		}
		if cm.CommentID == "" {
			continue
		}
		if n, ok := jsonval.Int(c["digg_count"]); ok && n >= 0 {
			cm.Likes = n
		}
		if n, ok := jsonval.Int(c["reply_comment_total"]); ok && n >= 0 {
			cm.ReplyCount = n
		}
		if ct, ok := jsonval.Int(c["create_time"]); ok && ct > 0 && ct < 1e11 {
			cm.CreatedAt = time.Unix(ct, 0).UTC().Format(time.RFC3339)
		}
		p.Comments = append(p.Comments, cm)
	}
	return p, nil
}

// commentsArgs are the arguments of the comments tool.
type commentsArgs struct {
	URLs        []string `json:"urls,omitempty" jsonschema:"TikTok video URLs (https://www.tiktok.com/@user/video/123), at most 20"`
	VideoIDs    []string `json:"video_ids,omitempty" jsonschema:"TikTok video ids (the digits of /video/<id>), at most 20"`
	MaxComments *int     `json:"max_comments,omitempty" jsonschema:"comments to return per video (1-500, default 20)"`
	Cursor      string   `json:"cursor,omitempty" jsonschema:"continue a video's comments where a previous answer stopped: its next_cursor, as it was (alone, or with that one video)"`

	maxComments int
	videos      []videoRef
	at          position
}

// videoRef is a video the comments tool reads.
type videoRef struct {
	id     string
	url    string // its page, https://www.tiktok.com/@user/video/<id> when known
	author string // the author's username, when known
}

// videoPageURL is a video's page: by its author when known, else its embed.
func videoPageURL(id, author string) string {
	if author != "" {
		return "https://www.tiktok.com/@" + author + "/video/" + id
	}
	return "https://www.tiktok.com/embed/v2/" + id
}

var (
	videoIDRE   = regexp.MustCompile(`^[0-9]{5,25}$`)
	videoPathRE = regexp.MustCompile(`^/@([A-Za-z0-9._]{1,50})/(?:video|photo)/([0-9]{5,25})/?$`)
)

// Validate checks the arguments.
func (a *commentsArgs) Validate() error {
	if err := scrapers.ListLen("urls", a.URLs, 0, maxSources); err != nil {
		return err
	}
	if err := scrapers.ListLen("video_ids", a.VideoIDs, 0, maxSources); err != nil {
		return err
	}
	if len(a.URLs)+len(a.VideoIDs) == 0 && a.Cursor == "" {
		return scrapers.Argf("urls", "give at least one of urls or video_ids")
	}
	n, err := scrapers.IntArg("max_comments", a.MaxComments, 1, maxMaxComments, defaultMaxComments)
	if err != nil {
		return err
	}
	a.maxComments = n
	for i, raw := range a.URLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		host := ""
		if err == nil {
			host = strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || (host != "tiktok.com" && !strings.HasSuffix(host, ".tiktok.com")) {
			return scrapers.Argf("urls", "entry %d (%q) is not a TikTok URL", i, raw)
		}
		m := videoPathRE.FindStringSubmatch(u.Path)
		if m == nil {
			return scrapers.Argf("urls", "entry %d (%q) is not a TikTok video URL (https://www.tiktok.com/@user/video/<id>)", i, raw)
		}
		a.videos = append(a.videos, videoRef{id: m[2], url: videoPageURL(m[2], m[1]), author: m[1]})
	}
	for i, id := range a.VideoIDs {
		id = strings.TrimSpace(id)
		if !videoIDRE.MatchString(id) {
			return scrapers.Argf("video_ids", "entry %d (%q) is not a TikTok video id (5 to 25 digits)", i, id)
		}
		a.videos = append(a.videos, videoRef{id: id, url: videoPageURL(id, "")})
	}
	if a.Cursor == "" {
		return nil
	}
	c, err := parseCursor(a.Cursor)
	if err != nil {
		return scrapers.Argf("cursor", "%v", err)
	}
	if c.Kind != cursorComments {
		return scrapers.Argf("cursor", "continues %s; give it to the scrape tool", c.label())
	}
	if len(a.videos) > 1 || len(a.videos) == 1 && a.videos[0].id != c.Key {
		return scrapers.Argf("cursor", "continues %s, so give it alone or with that one video", c.label())
	}
	a.videos = []videoRef{{id: c.Key, url: videoPageURL(c.Key, c.ID), author: c.ID}}
	a.at = position{After: c.After, Skip: c.Skip}
	return nil
}

func commentsSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "video_ids")
	scrapers.IntRange(s, "max_comments", 1, maxMaxComments, defaultMaxComments)
}

// comments runs the comments tool: each video's comments in turn, paged
// with cursor up to max_comments. With one video, next_cursor continues
// its comments.
func (s *scraper) comments(ctx context.Context, call *scrapers.Call, a commentsArgs) error {
	var next *listCursor
	srcs := make([]scrapers.Source, len(a.videos))
	for i, v := range a.videos {
		srcs[i] = scrapers.Source{URL: v.url, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			c, err := s.videoComments(ctx, r, v, a.at, a.maxComments)
			if len(a.videos) == 1 {
				next = c
			}
			return err
		}}
	}
	err := scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
	if next != nil {
		call.SetMeta("next_cursor", next.String())
	}
	return err
}

func (s *scraper) videoComments(ctx context.Context, r *scrapers.SerialJob, v videoRef, at position, max int) (*listCursor, error) {
	seen := map[string]bool{}
	have, next, err := walk(ctx, max, at, nil, commentPageSize, func(ctx context.Context, cursor string, n int) (*pageOf[Comment], error) {
		if cursor == "" {
			cursor = "0"
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "aweme_id": {v.id},
			"count": {strconv.Itoa(n)}, "cursor": {cursor}}
		req := &scrapers.Request{URL: "https://www.tiktok.com" + commentListPath + "?" + q.Encode(), Header: http.Header{"Referer": {v.url}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		if err != nil {
			return nil, err
		}
		pg, err := parseComments(resp.Body, v.id, v.url)
		if err != nil {
			return nil, err
		}
		return &pageOf[Comment]{Items: pg.Comments, Cursor: pg.Cursor, More: pg.HasMore}, nil
	}, func(c Comment) bool {
		if seen[c.CommentID] {
			return false
		}
		seen[c.CommentID] = true
		r.Add(c)
		r.Call().Progress(fmt.Sprintf("listed %d comments of %s", len(seen), v.url), len(seen), max)
		return true
	})
	var nc *listCursor
	if next != nil {
		nc = &listCursor{Kind: cursorComments, Key: v.id, ID: v.author, After: next.After, Skip: next.Skip}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nc, scrapers.ContextError(ctx)
		}
		if have == 0 {
			return nc, r.RateLimited(err)
		}
		if be := r.RateLimited(err); isBlock(be) {
			return nc, be
		}
		r.Call().MarkPartial(fmt.Sprintf("the comments of %s stopped at %d of %d: %v", v.url, have, max, err))
	}
	return nc, nil
}

func isBlock(err error) bool {
	var be *scrapers.BlockedError
	return errors.As(err, &be)
}
