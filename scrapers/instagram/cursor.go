package instagram

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Kinds of listing a cursor continues.
const (
	cursorPosts    = "posts"    // a profile's posts (scrape)
	cursorComments = "comments" // a post's comments (details)
)

// maxCursorLen bounds a cursor argument (as the schema says,
// scrapers.Tool.WithCursor); Instagram's own end_cursor values are a few
// hundred characters.
const maxCursorLen = scrapers.MaxCursorLen

var digitsRE = regexp.MustCompile(`^[0-9]{1,30}$`)

// listCursor is what the tools return as next_cursor and take back as
// cursor: which listing it continues (a profile by its username and user
// id, a post by its shortcode and media id), Instagram's own end_cursor of
// the page to read next ("" for the first page, read through the API), and
// how many items of that page were returned already (when max_items or
// comments stopped inside a page), so that nothing is skipped or repeated.
// It travels as unpadded base64url JSON: opaque to the caller.
type listCursor struct {
	Kind  string `json:"k"`
	Key   string `json:"u"`  // username or shortcode
	ID    string `json:"id"` // user id or media id
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
		return c, fmt.Errorf("is longer than %d characters; give the next_cursor of a previous answer as it was", maxCursorLen)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil {
		return listCursor{}, fmt.Errorf("is not a cursor this plugin gave (give the next_cursor of a previous answer as it was)")
	}
	switch {
	case c.Kind == cursorPosts && usernameRE.MatchString(c.Key) && digitsRE.MatchString(c.ID):
	case c.Kind == cursorComments && shortcodeRE.MatchString(c.Key) && digitsRE.MatchString(c.ID):
	default:
		return listCursor{}, fmt.Errorf("is not a cursor this plugin gave (give the next_cursor of a previous answer as it was)")
	}
	if c.Skip < 0 || c.Skip > maxPageSize || len(c.After) > maxCursorLen {
		return listCursor{}, fmt.Errorf("is not a cursor this plugin gave (give the next_cursor of a previous answer as it was)")
	}
	return c, nil
}
