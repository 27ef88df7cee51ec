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
			"top-level comment, top comments first or newest first.",
		func(s *jsonschema.Schema) {
			if ps := s.Properties["urls"]; ps != nil {
				one := 1
				ps.MinItems = &one
			}
			scrapers.ListMax(s, maxSources, "urls")
			scrapers.IntRange(s, "max_comments", 1, maxCommentsLimit, defaultMaxComments)
			scrapers.Choice(s, "sort_by", "top", "newest")
		},
		p.comments).WithItems(scrapers.ItemSchema[Comment]())
}

// comments runs the comments tool, one video after another.
func (p *plugin) comments(ctx context.Context, call *scrapers.Call, a commentsArgs) error {
	ids, err := p.videoIDs(a.URLs)
	if err != nil {
		return err
	}
	r := &run{call: call}
	for i, id := range ids {
		if ctx.Err() != nil {
			return stopped(ctx, call)
		}
		n, err := p.videoComments(ctx, r, id, a.maxComments, a.SortBy)
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

// errNoComments says a video shows no comment section.
var errNoComments = errors.New("the video shows no comments (they may be turned off)")

// videoComments reads up to max comments of one video in the given order and
// returns how many it added.
func (p *plugin) videoComments(ctx context.Context, r *run, id string, max int, sortBy string) (int, error) {
	wp, err := p.watchPage(ctx, id)
	if err != nil {
		return 0, err
	}
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
			return 0, fmt.Errorf("YouTube says: %s", tokens.Message)
		}
		return 0, errNoComments
	}
	next := func(tok string) (commentPage, error) {
		data, err := p.innertube(ctx, wp.Config, "next", map[string]any{"context": wp.Config.webContext(), "continuation": tok}, nil)
		if err != nil {
			return commentPage{}, err
		}
		return extractComments(data, id), nil
	}
	page, err := next(token)
	if err != nil {
		return 0, err
	}
	if sortBy == "newest" && token != tokens.Newest {
		// The page offered no newest-first token; the first answer's header
		// has the sort menu.
		if page.Newest == "" {
			return 0, errors.New("YouTube offered no newest-first order for this video's comments")
		}
		if page, err = next(page.Newest); err != nil {
			return 0, err
		}
	}
	seen := map[string]bool{}
	added, empty := 0, 0
	for pages := 1; ; pages++ {
		n := 0
		for _, c := range page.Comments {
			if added >= max {
				break
			}
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
		// Bounded: about 20 comments a page; a site that keeps sending
		// tokens without new comments is not followed for ever.
		if added >= max || page.Continuation == "" || page.Continuation == token || empty >= 2 || pages > max/10+10 {
			return added, nil
		}
		if ctx.Err() != nil {
			return added, stopped(ctx, r.call)
		}
		token = page.Continuation
		if page, err = next(token); err != nil {
			return added, err
		}
	}
}
