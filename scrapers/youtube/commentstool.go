package youtube

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the comments tool's arguments.
const (
	maxCommentsLimit   = 1000
	defaultMaxComments = 20
)

// commentsArgs are the comments tool's arguments.
type commentsArgs struct {
	URLs        []string `json:"urls" jsonschema:"YouTube video URLs, 1 to 20"`
	MaxComments *int     `json:"max_comments,omitempty" jsonschema:"Comments per video, 1 to 1000 (default 20)"`
	SortBy      string   `json:"sort_by,omitempty" jsonschema:"top (default) or newest"`
	Cursor      string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer, to read the next comments of its one video (give the same urls and sort_by)"`

	maxComments int
}

// Defaults fills sort_by.
func (a *commentsArgs) Defaults() {
	a.SortBy = strings.ToLower(strings.TrimSpace(a.SortBy))
	if a.SortBy == "" {
		a.SortBy = "top"
	}
}

// Validate checks the arguments' rules.
func (a *commentsArgs) Validate() error {
	if err := scrapers.ListLen("urls", a.URLs, 1, maxSources); err != nil {
		return err
	}
	n, err := scrapers.IntArg("max_comments", a.MaxComments, 1, maxCommentsLimit, defaultMaxComments)
	if err != nil {
		return err
	}
	a.maxComments = n
	if a.SortBy != "top" && a.SortBy != "newest" {
		return scrapers.Argf("sort_by", `must be "top" or "newest", got %q`, a.SortBy)
	}
	return nil
}

func (p *plugin) commentsTool() scrapers.Tool {
	return scrapers.NewTool("comments", "YouTube comments",
		"Read the comments of YouTube videos: author, text, likes, published time and reply count of each "+
			"top-level comment, top comments first or newest first. A call for one video returns next_cursor when it has more "+
			"comments; pass it back as cursor for the next ones.",
		func(s *jsonschema.Schema) {
			if ps := s.Properties["urls"]; ps != nil {
				one := 1
				ps.MinItems = &one
			}
			scrapers.ListMax(s, maxSources, "urls")
			scrapers.IntRange(s, "max_comments", 1, maxCommentsLimit, defaultMaxComments)
			scrapers.Choice(s, "sort_by", "top", "newest")
		},
		p.comments).WithItems(scrapers.ItemSchema[Comment]()).WithCursor()
}

// comments runs the comments tool, one video after another.
func (p *plugin) comments(ctx context.Context, call *scrapers.Call, a commentsArgs) error {
	ids := make([]string, len(a.URLs))
	for i, raw := range a.URLs {
		id, err := videoID(raw, p.fetch.OnSite)
		if err != nil {
			return scrapers.Argf("urls", "entry %d: %v", i, err)
		}
		ids[i] = id
	}
	var cur scrapers.Cursor
	if a.Cursor != "" {
		if len(ids) != 1 {
			return scrapers.Argf(scrapers.CursorArg, "continues the comments of one video: give it with exactly one URL, as in the call that returned it")
		}
		var err error
		if cur, err = scrapers.ParseCursor(a.Cursor, commentsKey(ids[0], a.SortBy)); err != nil {
			return err
		}
	}
	r := &run{call: call}
	for i, id := range ids {
		if ctx.Err() != nil {
			return stopped(ctx, call)
		}
		n, next, err := p.videoComments(ctx, r, id, a.maxComments, a.SortBy, cur)
		if len(ids) == 1 {
			call.SetNextCursor(next)
		}
		if n > 0 {
			r.ok++
		}
		if err != nil {
			if stop, ret := r.fail(ctx, a.URLs[i], err); stop {
				return ret
			}
		} else if n == 0 {
			r.ok++ // a video with no comments yet is an answer, not a failure
		}
		call.Progress(fmt.Sprintf("read %d comments of video %s (%d of %d)", n, id, i+1, len(ids)), i+1, len(ids))
	}
	return r.result()
}

// commentsKey names a video's comments in one order, for their cursors.
func commentsKey(id, sortBy string) string { return "comments " + id + " " + sortBy }

// errNoComments says a video shows no comment section.
var errNoComments = errors.New("the video shows no comments (they may be turned off)")

// firstComments reads the watch page of video id and the first page of its
// comments in the given order. It returns the page, the token that loaded
// it and the innertube settings for the next.
func (p *plugin) firstComments(ctx context.Context, id, sortBy string) (commentPage, string, innertubeConfig, error) {
	wp, err := p.watchPage(ctx, id)
	if err != nil {
		return commentPage{}, "", innertubeConfig{}, err
	}
	cfg := wp.Config
	tokens := wp.Comments
	token := tokens.Section
	if token == "" {
		token = tokens.Top
	}
	if sortBy == "newest" && tokens.Newest != "" {
		token = tokens.Newest
	}
	if token == "" {
		if tokens.Message != "" {
			return commentPage{}, "", cfg, fmt.Errorf("YouTube says: %s", tokens.Message)
		}
		return commentPage{}, "", cfg, errNoComments
	}
	page, err := p.commentPage(ctx, cfg, id, token)
	if err != nil {
		return commentPage{}, "", cfg, err
	}
	if sortBy == "newest" && token != tokens.Newest {
		// The page offered no newest-first token; the first answer's header
		// has the sort menu.
		if page.Newest == "" {
			return commentPage{}, "", cfg, errors.New("YouTube offered no newest-first order for this video's comments")
		}
		token = page.Newest
		if page, err = p.commentPage(ctx, cfg, id, token); err != nil {
			return commentPage{}, "", cfg, err
		}
	}
	return page, token, cfg, nil
}

// commentPage loads one page of a video's comments with innertube /next.
func (p *plugin) commentPage(ctx context.Context, cfg innertubeConfig, id, token string) (commentPage, error) {
	data, err := p.innertube(ctx, cfg, "next", map[string]any{"context": cfg.webContext(), "continuation": token}, nil)
	if err != nil {
		return commentPage{}, err
	}
	return extractComments(data, id), nil
}

// videoComments reads up to max comments of one video in the given order,
// from cur on (the zero cursor: the first page), and returns how many it
// added and the cursor of the next (no token when there are no more).
func (p *plugin) videoComments(ctx context.Context, r *run, id string, max int, sortBy string, cur scrapers.Cursor) (int, scrapers.Cursor, error) {
	key := commentsKey(id, sortBy)
	token, skip, done := cur.Token, cur.Skip, cur.Done
	at := func(tok string, skip int) scrapers.Cursor {
		return scrapers.Cursor{Listing: key, Token: tok, Skip: skip, Done: done}
	}
	var page commentPage
	var cfg innertubeConfig
	var err error
	if token == "" {
		page, token, cfg, err = p.firstComments(ctx, id, sortBy)
	} else {
		// A cursor's token loads its page without the watch page: innertube
		// answers a continuation with the default settings.
		page, err = p.commentPage(ctx, cfg, id, token)
	}
	if err != nil {
		if cur.Token != "" {
			return 0, cur, err
		}
		return 0, scrapers.Cursor{}, err
	}
	seen := map[string]bool{}
	added, empty := 0, 0
	for pages := 1; ; pages++ {
		n := 0
		for i := range page.Comments {
			c := page.Comments[i]
			if i < skip {
				seen[c.CommentID] = true // returned by an earlier call
				continue
			}
			if added >= max {
				return added, at(token, i), nil
			}
			done++
			if seen[c.CommentID] || c.IsReply {
				continue
			}
			seen[c.CommentID] = true
			r.call.Add(c)
			added++
			n++
		}
		r.call.Progress(fmt.Sprintf("video %s: %d of %d comments", id, added, max), added, max)
		if n == 0 {
			empty++
		}
		if page.Continuation == "" || page.Continuation == token {
			return added, scrapers.Cursor{}, nil
		}
		token, skip = page.Continuation, 0
		// Bounded: about 20 comments a page; a site that keeps sending
		// tokens without new comments is not followed for ever.
		if added >= max || empty >= 2 || pages > max/10+10 {
			return added, at(token, 0), nil
		}
		if ctx.Err() != nil {
			return added, at(token, 0), stopped(ctx, r.call)
		}
		if page, err = p.commentPage(ctx, cfg, id, token); err != nil {
			return added, at(token, 0), err
		}
	}
}
