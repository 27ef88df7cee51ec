package instagram

import (
	"context"
	"regexp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Kinds of listing a cursor continues.
const (
	cursorPosts    = "posts"    // a profile's posts (scrape): Key username, ID user id
	cursorComments = "comments" // a post's comments (details): Key shortcode, ID media id
)

// maxCursorLen bounds a cursor argument (as the schema says,
// scrapers.Tool.WithCursor); Instagram's own end_cursor values are a few
// hundred characters.
const maxCursorLen = scrapers.MaxCursorLen

var digitsRE = regexp.MustCompile(`^[0-9]{1,30}$`)

// listCursor is what the tools return as next_cursor and take back as
// cursor (see scrapers.ListCursor); Instagram's always carry their key and
// id.
type listCursor scrapers.ListCursor

var cursors = scrapers.ListCursorCodec{MaxSkip: maxPageSize, MaxField: maxCursorLen, KeepEmptyKeys: true, Valid: func(c scrapers.ListCursor) bool {
	switch c.Kind {
	case cursorPosts:
		return usernameRE.MatchString(c.Key) && digitsRE.MatchString(c.ID)
	case cursorComments:
		return shortcodeRE.MatchString(c.Key) && digitsRE.MatchString(c.ID)
	}
	return false
}}

func (c listCursor) String() string { return cursors.Encode(scrapers.ListCursor(c)) }

// parseCursor reads a cursor argument; the error completes "cursor ".
func parseCursor(s string) (listCursor, error) {
	c, err := cursors.Parse(s)
	return listCursor(c), err
}

// maxListPages bounds the API pages one listing reads.
const maxListPages = 10

// pageOf is one page of a listing Instagram pages with end_cursor.
type pageOf[T any] = scrapers.ListPage[T]

// position is where a listing stands: the end_cursor of a page ("" for
// the first) and how many of its items were returned already.
type position = scrapers.ListPosition

// walk returns items of a listing from start until want are added (each
// item add is given counts, new or not), the listing ends, or Instagram
// stops answering; see scrapers.WalkListing.
func walk[T any](ctx context.Context, want int, start position, first *pageOf[T], fetch func(ctx context.Context, after string, n int) (*pageOf[T], error), add func(T)) (have int, next *position, err error) {
	return scrapers.WalkListing(ctx, want, start, first, maxPageSize, maxListPages, fetch, func(x T) bool { add(x); return true })
}
