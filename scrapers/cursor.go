package scrapers

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Paging cursors. A tool that lists (posts, videos, jobs, results) takes an
// optional string argument "cursor" and returns the site's next cursor as the
// result-level field "next_cursor" (absent when the listing has no more): an
// agent that wants more passes next_cursor back as cursor, with the same
// listing arguments. The cursor is opaque to the agent.
//
// A site's own token (Reddit's after, YouTube's continuation, a page number)
// does not say everything: a tool that stops inside a page (max_results 10 of
// a 20-video page) must resume inside it, and a token given back with another
// query would silently page through the wrong listing. [Cursor] carries the
// token with how much of its page was already returned and a digest of the
// listing it belongs to; tools that need neither may return the site's token
// as it is.

// CursorArg is the name of the cursor argument, NextCursorField the name of
// the result-level field.
const (
	CursorArg       = "cursor"
	NextCursorField = "next_cursor"
)

// Bounds of a cursor, so that what comes back from a client stays small:
// YouTube's continuation tokens, the longest of the sites', are under 1 KB.
const (
	MaxCursorLen      = 4096
	maxCursorTokenLen = 2048
	maxCursorSkip     = 1000
	maxCursorDone     = 1_000_000
)

// Cursor is where a listing stopped.
type Cursor struct {
	// Listing names the listing the cursor continues (a query with its
	// sort, a channel, a subreddit). Only a digest of it is encoded; a
	// cursor decoded for another listing is refused.
	Listing string
	// Token is the site's own token for the page to load next: a
	// continuation, an after id, a page number or offset.
	Token string
	// Skip is how many entries of that page were already returned.
	Skip int
	// Done is how many entries of the listing came before the cursor, so
	// that ranks (position) go on from there on the next page.
	Done int
}

// cursorWire is a cursor as encoded.
type cursorWire struct {
	L string `json:"l"`
	T string `json:"t"`
	K int    `json:"k,omitempty"`
	N int    `json:"n,omitempty"`
}

// listingDigest is a short digest of a listing's name.
func listingDigest(listing string) string {
	sum := sha256.Sum256([]byte(listing))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// String encodes the cursor for next_cursor: URL-safe base64 of a small
// JSON object. The zero Token encodes as "" (no more pages).
func (c Cursor) String() string {
	if c.Token == "" {
		return ""
	}
	b, _ := json.Marshal(cursorWire{L: listingDigest(c.Listing), T: c.Token, K: max(c.Skip, 0), N: max(c.Done, 0)})
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor decodes the cursor argument arg for listing. An empty arg is
// the zero Cursor (the first page). Anything that is not a cursor this
// project returned, or one returned for another listing, is an *ArgError
// naming the cursor argument.
func ParseCursor(arg, listing string) (Cursor, error) {
	if arg == "" {
		return Cursor{}, nil
	}
	if len(arg) > MaxCursorLen {
		return Cursor{}, Argf(CursorArg, "is longer than %d characters; pass back the next_cursor of a previous answer unchanged", MaxCursorLen)
	}
	b, err := base64.RawURLEncoding.DecodeString(arg)
	var w cursorWire
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&w)
	}
	if err != nil || w.T == "" || len(w.T) > maxCursorTokenLen || w.K < 0 || w.K > maxCursorSkip || w.N < 0 || w.N > maxCursorDone {
		return Cursor{}, Argf(CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
	}
	if w.L != listingDigest(listing) {
		return Cursor{}, Argf(CursorArg, "was returned for another listing; give it with the same arguments as the call that returned it")
	}
	return Cursor{Listing: listing, Token: w.T, Skip: w.K, Done: w.N}, nil
}

// SetNextCursor sets the result's next_cursor to c, or leaves it out when c
// has no token (the listing has no more).
func (c *Call) SetNextCursor(next Cursor) {
	if s := next.String(); s != "" {
		c.SetMeta(NextCursorField, s)
	}
}

// WithCursor returns t taking the cursor argument (its schema bounded and
// described) and declaring next_cursor in its outputSchema. The argument
// type must have a string field tagged json:"cursor".
func (t Tool) WithCursor() Tool {
	if p := t.InputSchema.Properties[CursorArg]; p != nil {
		p.MaxLength = jsonschema.Ptr(MaxCursorLen)
	} else {
		panic(fmt.Sprintf("scrapers: tool %q declares a cursor but its arguments have no cursor field", t.Name))
	}
	return t.WithMeta(NextCursorField, &jsonschema.Schema{
		Type:        "string",
		Description: "Where the listing stopped: pass it back as the cursor argument, with the same other arguments, for the next page. Absent when there is no more.",
	})
}
