package youtube

import (
	"context"
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// A listing is a list of videos YouTube shows in pages: a query's results or
// a channel's videos. Its first page is a web page (/results, /@handle/videos)
// carrying ytInitialData; the next ones come from an innertube method
// (search, browse) given the continuation token the previous page ended with.

// firstPageToken stands, in a cursor, for the listing's first page (the web
// page, which has no continuation token of its own). YouTube's tokens are
// long base64 strings and never this.
const firstPageToken = "page1"

// listPage is one page of a listing: its videos in order and the token of
// the next ("" on the last page).
type listPage struct {
	Videos       []Video
	Continuation string
}

// listing says how to read one listing.
type listing struct {
	// key names the listing in its cursors (a cursor is refused for
	// another listing).
	key string
	// name is how progress names it, source how a failure does (its URL).
	name, source string
	// first fetches and parses the first page, with the innertube settings
	// its page gives for the next ones.
	first func(ctx context.Context) (listPage, innertubeConfig, error)
	// prime, when set, is run before a listing resumed from a cursor: it
	// reads what the first page says of the listing (a channel's name, the
	// innertube settings) without returning its videos.
	prime func(ctx context.Context) (innertubeConfig, error)
	// method is the innertube method that loads further pages.
	method string
	// parse reads a continuation answer.
	parse func(data any) listPage
	// emit completes and adds one video at 1-based rank pos.
	emit func(ctx context.Context, v Video, pos int)
}

// list adds up to max videos of l, from cur on (the zero cursor: the first
// page). It returns how many it added and the cursor of what comes next (no
// token when the listing ended). On an error the cursor still says where the
// listing stopped, so that a caller can resume after a failure.
func (p *plugin) list(ctx context.Context, r *run, l listing, max int, cur scrapers.Cursor) (int, scrapers.Cursor, error) {
	token, skip, done := cur.Token, cur.Skip, cur.Done
	if token == "" {
		token, skip, done = firstPageToken, 0, 0
	}
	at := func(tok string, skip int) scrapers.Cursor {
		return scrapers.Cursor{Listing: l.key, Token: tok, Skip: skip, Done: done}
	}
	var cfg innertubeConfig
	if token != firstPageToken && l.prime != nil {
		var err error
		if cfg, err = l.prime(ctx); err != nil {
			return 0, at(token, skip), err
		}
	}
	seen := map[string]bool{}
	added, empty := 0, 0
	// Bounded: a page holds about 20 to 30 videos; a site that keeps
	// sending tokens without new videos is not followed for ever.
	maxPages := max/5 + 5
	for pages := 0; ; pages++ {
		if ctx.Err() != nil {
			return added, at(token, skip), stopped(ctx, r.call)
		}
		if pages >= maxPages {
			r.call.MarkPartial(fmt.Sprintf("%s: stopped after %d pages with %d of %d videos", l.name, pages, added, max))
			return added, at(token, skip), nil
		}
		var pg listPage
		var err error
		if token == firstPageToken {
			pg, cfg, err = l.first(ctx)
		} else {
			r.call.Progress(fmt.Sprintf("%s: %d of %d videos", l.name, added, max), added, max)
			var data any
			data, err = p.innertube(ctx, cfg, l.method, map[string]any{"context": cfg.webContext(), "continuation": token}, nil)
			if err == nil {
				pg = l.parse(data)
			}
		}
		if err != nil {
			return added, at(token, skip), err
		}
		fresh := 0
		for i := range pg.Videos {
			v := pg.Videos[i]
			if i < skip {
				seen[v.ID] = true // returned by an earlier call
				continue
			}
			if added >= max {
				return added, at(token, i), nil
			}
			done++
			if seen[v.ID] {
				continue
			}
			seen[v.ID] = true
			added++
			fresh++
			l.emit(ctx, v, done)
		}
		if pg.Continuation == "" || pg.Continuation == token {
			return added, scrapers.Cursor{}, nil
		}
		token, skip = pg.Continuation, 0
		if added >= max {
			return added, at(token, 0), nil
		}
		if fresh == 0 {
			if empty++; empty >= 2 {
				r.call.MarkPartial(fmt.Sprintf("%s: YouTube sent pages without new videos; stopped with %d of %d", l.name, added, max))
				return added, at(token, 0), nil
			}
		}
	}
}
