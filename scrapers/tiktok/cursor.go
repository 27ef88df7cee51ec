package tiktok

import (
	"context"
	"fmt"
	"regexp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Kinds of listing a cursor continues.
const (
	cursorProfile     = "profile"  // a profile's videos: Key username, ID secUid
	cursorHashtag     = "hashtag"  // a hashtag's videos: Key name, ID challenge id
	cursorSearchVideo = "search"   // a video search: Key the keywords
	cursorSearchUser  = "users"    // a user search: Key the keywords
	cursorTrending    = "trending" // the trending (For You) feed
	cursorComments    = "comments" // a video's comments: Key the video id, ID its author
)

// maxCursorLen bounds a cursor argument (as the schema says,
// scrapers.Tool.WithCursor).
const maxCursorLen = scrapers.MaxCursorLen

const badCursor = scrapers.BadListCursor

// listCursor is what the tools return as next_cursor and take back as
// cursor (see scrapers.ListCursor): which listing it continues, TikTok's
// own cursor of the page to read next ("" for the first), and how many
// items of that page were returned already.
type listCursor scrapers.ListCursor

var cursors = scrapers.ListCursorCodec{MaxSkip: 1000, MaxField: 512, Valid: func(c scrapers.ListCursor) bool {
	switch c.Kind {
	case cursorProfile:
		return usernameRE.MatchString(c.Key) && secUIDRE.MatchString(c.ID)
	case cursorHashtag:
		return validHashtag(c.Key) && digitsOnly(c.ID) && c.ID != ""
	case cursorSearchVideo, cursorSearchUser:
		return validQuery(c.Key)
	case cursorTrending:
		return c.Key == ""
	case cursorComments:
		return videoIDRE.MatchString(c.Key) && (c.ID == "" || usernameRE.MatchString(c.ID))
	}
	return false
}}

func (c listCursor) String() string { return cursors.Encode(scrapers.ListCursor(c)) }

// parseCursor reads a cursor argument; the error completes "cursor ".
func parseCursor(s string) (listCursor, error) {
	if len(s) > maxCursorLen {
		return listCursor{}, fmt.Errorf("is longer than %d characters; %s", maxCursorLen, badCursor)
	}
	c, err := cursors.Parse(s)
	return listCursor(c), err
}

var secUIDRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,200}$`)

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return len(s) <= 30
}

// maxListPages bounds the pages one listing reads in a call.
const maxListPages = 10

// pageOf is one page of a listing TikTok pages with a cursor.
type pageOf[T any] = scrapers.ListPage[T]

// position is where a listing stands: TikTok's cursor of a page ("" for
// the first) and how many of its items were returned already.
type position = scrapers.ListPosition

// walk returns items of a listing from start until want are added, the
// listing ends, or TikTok stops answering; see scrapers.WalkListing.
// TikTok often sends fewer than asked (20 comments of 50): it may read
// pages of half the size, and a bound all the same.
func walk[T any](ctx context.Context, want int, start position, first *pageOf[T], pageSize int,
	fetch func(ctx context.Context, at string, n int) (*pageOf[T], error), add func(T) bool) (have int, next *position, err error) {
	return scrapers.WalkListing(ctx, want, start, first, pageSize, max(maxListPages, 2*(want+pageSize-1)/pageSize+5), fetch, add)
}
