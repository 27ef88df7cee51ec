package tiktok

import (
	"context"
	"encoding/base64"
	"encoding/json"
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

const badCursor = "is not a cursor this plugin gave (give the next_cursor of a previous answer as it was)"

// listCursor is what the tools return as next_cursor and take back as
// cursor: which listing it continues, TikTok's own cursor of the page to
// read next ("" for the first), and how many items of that page were
// returned already (when max_items stopped inside a page), so that nothing
// is skipped or repeated. It travels as unpadded base64url JSON: opaque to
// the caller.
type listCursor struct {
	Kind  string `json:"k"`
	Key   string `json:"u,omitempty"`
	ID    string `json:"id,omitempty"`
	After string `json:"c,omitempty"`
	Skip  int    `json:"s,omitempty"`
}

func (c listCursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor reads a cursor argument; the error completes "cursor ".
func parseCursor(s string) (listCursor, error) {
	var c listCursor
	if len(s) > maxCursorLen {
		return c, fmt.Errorf("is longer than %d characters; %s", maxCursorLen, badCursor)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Skip < 0 || c.Skip > 1000 || len(c.After) > 512 || len(c.ID) > 512 {
		return listCursor{}, fmt.Errorf("%s", badCursor)
	}
	ok := false
	switch c.Kind {
	case cursorProfile:
		ok = usernameRE.MatchString(c.Key) && secUIDRE.MatchString(c.ID)
	case cursorHashtag:
		ok = validHashtag(c.Key) && digitsOnly(c.ID) && c.ID != ""
	case cursorSearchVideo, cursorSearchUser:
		ok = validQuery(c.Key)
	case cursorTrending:
		ok = c.Key == ""
	case cursorComments:
		ok = videoIDRE.MatchString(c.Key) && (c.ID == "" || usernameRE.MatchString(c.ID))
	}
	if !ok {
		return listCursor{}, fmt.Errorf("%s", badCursor)
	}
	return c, nil
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
type pageOf[T any] struct {
	Items  []T
	Cursor string // where the next page starts
	More   bool
}

// position is where a listing stands: TikTok's cursor of a page ("" for
// the first) and how many of its items were returned already.
type position struct {
	After string
	Skip  int
}

// walk returns items of a listing from start until want are added, the
// listing ends, or TikTok stops answering. first, when given, is the page
// at start. fetch asks the page at a cursor for n items; add adds an item
// and says whether it was new (a page of nothing new ends the walk, as
// does a cursor that does not move). It returns how many were added, where
// the listing continues (nil at its end), and the error that stopped it,
// in which case next is where to try again.
func walk[T any](ctx context.Context, want int, start position, first *pageOf[T], pageSize int,
	fetch func(ctx context.Context, at string, n int) (*pageOf[T], error), add func(T) bool) (have int, next *position, err error) {
	at, pg := start, first
	// TikTok often sends fewer than asked (20 comments of 50): room for
	// pages of half the size, and a bound all the same.
	maxPages := max(maxListPages, 2*(want+pageSize-1)/pageSize+5)
	for pages := 0; ; pages++ {
		if pg == nil {
			if pages >= maxPages {
				return have, &at, fmt.Errorf("stopped after %d pages", maxPages)
			}
			if ctx.Err() != nil {
				return have, &at, scrapers.ContextError(ctx)
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
			return have, &position{After: at.After, Skip: i}, nil
		case !pg.More || pg.Cursor == "" || pg.Cursor == at.After:
			return have, nil, nil
		case have >= want:
			return have, &position{After: pg.Cursor}, nil
		case fresh == 0 && i > at.Skip:
			// TikTok sent only what it had sent already: stop here, and
			// let the caller go on from the next page.
			return have, &position{After: pg.Cursor}, nil
		}
		at, pg = position{After: pg.Cursor}, nil
	}
}
