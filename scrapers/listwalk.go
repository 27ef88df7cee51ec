package scrapers

import (
	"context"
	"fmt"
)

// ListPage is one page of a listing a site pages with its own cursor.
type ListPage[T any] struct {
	Items  []T
	Cursor string // the site's cursor of the next page
	More   bool
}

// ListPosition is where a listing stands: the site's cursor of a page (""
// for the first) and how many of its items were returned already.
type ListPosition struct {
	After string
	Skip  int
}

// WalkListing returns items of a listing from start until want are added,
// the listing ends, or the site stops answering, reading at most maxPages
// pages. first, when given, is the page at start (one a page embeds).
// fetch asks the page at a cursor for n items (at most pageSize); add adds
// an item and says whether it was new: a page of nothing new ends the
// walk, as does a cursor that does not move. It returns how many were
// added, where the listing continues (nil at its end), and the error that
// stopped it, in which case next is where to try again.
func WalkListing[T any](ctx context.Context, want int, start ListPosition, first *ListPage[T], pageSize, maxPages int,
	fetch func(ctx context.Context, at string, n int) (*ListPage[T], error), add func(T) bool) (have int, next *ListPosition, err error) {
	at, pg := start, first
	for pages := 0; ; pages++ {
		if pg == nil {
			if pages >= maxPages {
				return have, &at, fmt.Errorf("stopped after %d pages", maxPages)
			}
			if ctx.Err() != nil {
				return have, &at, ContextError(ctx)
			}
			if pg, err = fetch(ctx, at.After, min(pageSize, at.Skip+want-have)); err != nil {
				return have, &at, err
			}
		}
		i, fresh := at.Skip, 0
		for ; i < len(pg.Items) && have < want; i++ {
			if add(pg.Items[i]) {
				have++
				fresh++
			}
		}
		switch {
		case have >= want && i < len(pg.Items):
			return have, &ListPosition{After: at.After, Skip: i}, nil
		case !pg.More || pg.Cursor == "" || pg.Cursor == at.After:
			// The end, or a cursor that does not move (which would
			// read the same page again and again).
			return have, nil, nil
		case have >= want:
			return have, &ListPosition{After: pg.Cursor}, nil
		case fresh == 0 && i > at.Skip:
			// The site sent only what it had sent already: stop here,
			// and let the caller go on from the next page.
			return have, &ListPosition{After: pg.Cursor}, nil
		}
		at, pg = ListPosition{After: pg.Cursor}, nil
	}
}
