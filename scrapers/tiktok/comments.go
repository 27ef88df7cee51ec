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

	maxComments int
	videos      []videoRef
}

// videoRef is a video the comments tool reads.
type videoRef struct {
	id  string
	url string // its page, https://www.tiktok.com/@user/video/<id> when known
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
	if len(a.URLs)+len(a.VideoIDs) == 0 {
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
		a.videos = append(a.videos, videoRef{id: m[2], url: "https://www.tiktok.com/@" + m[1] + "/video/" + m[2]})
	}
	for i, id := range a.VideoIDs {
		id = strings.TrimSpace(id)
		if !videoIDRE.MatchString(id) {
			return scrapers.Argf("video_ids", "entry %d (%q) is not a TikTok video id (5 to 25 digits)", i, id)
		}
		a.videos = append(a.videos, videoRef{id: id, url: "https://www.tiktok.com/embed/v2/" + id})
	}
	return nil
}

func commentsSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "video_ids")
	scrapers.IntRange(s, "max_comments", 1, maxMaxComments, defaultMaxComments)
}

// maxCommentPages bounds the requests for one video's comments.
const maxCommentPages = maxMaxComments/commentPageSize + 5

// comments runs the comments tool: each video's comments in turn, paged
// with cursor up to max_comments.
func (s *scraper) comments(ctx context.Context, call *scrapers.Call, a commentsArgs) error {
	srcs := make([]scrapers.Source, len(a.videos))
	for i, v := range a.videos {
		srcs[i] = scrapers.Source{URL: v.url, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.videoComments(ctx, r, v, a.maxComments)
		}}
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
}

func (s *scraper) videoComments(ctx context.Context, r *scrapers.SerialJob, v videoRef, max int) error {
	seen := map[string]bool{}
	have, cursor := 0, "0"
	for page := 0; page < maxCommentPages && have < max; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		q := url.Values{"aid": {"1988"}, "app_name": {"tiktok_web"}, "device_platform": {"web_pc"}, "aweme_id": {v.id},
			"count": {strconv.Itoa(min(commentPageSize, max-have))}, "cursor": {cursor}}
		req := &scrapers.Request{URL: "https://www.tiktok.com" + commentListPath + "?" + q.Encode(), Header: http.Header{"Referer": {v.url}, "Accept": {"application/json, text/plain, */*"}}}
		resp, err := s.f.Do(ctx, req)
		var pg *commentPage
		if err == nil {
			pg, err = parseComments(resp.Body, v.id, v.url)
		}
		if err != nil {
			if ctx.Err() != nil || have == 0 {
				return r.RateLimited(err)
			}
			if be := r.RateLimited(err); isBlock(be) {
				return be
			}
			r.Call().MarkPartial(fmt.Sprintf("the comments of %s stopped at %d of %d: %v", v.url, have, max, err))
			return nil
		}
		fresh := 0
		for _, c := range pg.Comments {
			if have < max && !seen[c.CommentID] {
				seen[c.CommentID] = true
				r.Add(c)
				have, fresh = have+1, fresh+1
			}
		}
		r.Call().Progress(fmt.Sprintf("listed %d comments of %s", have, v.url), have, max)
		if !pg.HasMore || fresh == 0 || pg.Cursor == "" || pg.Cursor == cursor {
			return nil
		}
		cursor = pg.Cursor
	}
	return nil
}

func isBlock(err error) bool {
	var be *scrapers.BlockedError
	return errors.As(err, &be)
}
