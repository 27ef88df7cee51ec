package scrapers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// ListCursor is the cursor of a site whose listings have several kinds
// (Instagram's posts and comments, TikTok's profiles, hashtags, searches,
// trending and comments), which says itself which listing it continues
// instead of carrying a digest of it as [Cursor] does: the kind of
// listing, its key and id (a username and user id, a shortcode and media
// id, a query), the site's own cursor of the page to read next ("" for
// the first page) and how many items of that page were returned already
// (when a limit stopped inside a page), so that nothing is skipped or
// repeated. It travels as unpadded base64url JSON: opaque to the caller.
type ListCursor struct {
	Kind  string `json:"k"`
	Key   string `json:"u,omitempty"`
	ID    string `json:"id,omitempty"`
	After string `json:"c,omitempty"`
	Skip  int    `json:"s,omitempty"`
}

// listCursorKeyed is a ListCursor as encoded by a codec that keeps its key
// and id when empty (Instagram's cursors always carry both).
type listCursorKeyed struct {
	Kind  string `json:"k"`
	Key   string `json:"u"`
	ID    string `json:"id"`
	After string `json:"c,omitempty"`
	Skip  int    `json:"s,omitempty"`
}

// BadListCursor is how a [ListCursorCodec] refuses a cursor argument it
// did not give; like all its errors, it completes "cursor ".
const BadListCursor = "is not a cursor this plugin gave (give the next_cursor of a previous answer as it was)"

// ListCursorCodec encodes and checks one site's [ListCursor]s.
type ListCursorCodec struct {
	// MaxSkip bounds Skip; MaxField bounds the length of After and ID.
	MaxSkip, MaxField int
	// KeepEmptyKeys writes "u" and "id" even when they are empty.
	KeepEmptyKeys bool
	// Valid says whether a decoded cursor names a listing of the site
	// (its kind known, its key and id of the right form).
	Valid func(ListCursor) bool
}

// Encode returns c as the next_cursor the tools give.
func (k ListCursorCodec) Encode(c ListCursor) string {
	var b []byte
	if k.KeepEmptyKeys {
		b, _ = json.Marshal(listCursorKeyed(c))
	} else {
		b, _ = json.Marshal(c)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Parse reads a cursor argument s. Its errors complete "cursor ": one
// longer than [MaxCursorLen], or [BadListCursor] for anything that does
// not decode, is out of bounds, or that Valid refuses.
func (k ListCursorCodec) Parse(s string) (ListCursor, error) {
	if len(s) > MaxCursorLen {
		return ListCursor{}, fmt.Errorf("is longer than %d characters; give the next_cursor of a previous answer as it was", MaxCursorLen)
	}
	var c ListCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Skip < 0 || c.Skip > k.MaxSkip || len(c.After) > k.MaxField || len(c.ID) > k.MaxField || !k.Valid(c) {
		return ListCursor{}, fmt.Errorf("%s", BadListCursor)
	}
	return c, nil
}
