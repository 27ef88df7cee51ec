package scrapers_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// A listing that stopped inside a page gives a cursor that resumes there;
// the cursor is refused for another listing.
func ExampleCursor() {
	next := scrapers.Cursor{Listing: "search golang", Token: "CONTINUATION-2", Skip: 10, Done: 30}.String()
	c, err := scrapers.ParseCursor(next, "search golang")
	fmt.Println(c.Token, c.Skip, c.Done, err)
	_, err = scrapers.ParseCursor(next, "search rust")
	fmt.Println(err)
	// Output:
	// CONTINUATION-2 10 30 <nil>
	// invalid argument cursor: was returned for another listing; give it with the same arguments as the call that returned it
}

func TestParseCursorRefusesWhatItDidNotMake(t *testing.T) {
	if c, err := scrapers.ParseCursor("", "x"); err != nil || c != (scrapers.Cursor{}) {
		t.Errorf("empty cursor = %+v, %v", c, err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	for _, bad := range []string{
		"not base64!",
		enc([]byte("not json")),
		enc([]byte(`{"l":"x","t":""}`)),            // no token
		enc([]byte(`{"l":"x","t":"a","k":-1}`)),    // negative skip
		enc([]byte(`{"l":"x","t":"a","k":5000}`)),  // skip past any page
		enc([]byte(`{"l":"x","t":"a","extra":1}`)), // unknown member
		enc([]byte(`{"l":"x","t":"` + strings.Repeat("a", 3000) + `"}`)),
		strings.Repeat("A", scrapers.MaxCursorLen+1),
	} {
		_, err := scrapers.ParseCursor(bad, "x")
		var ae *scrapers.ArgError
		if !errors.As(err, &ae) || ae.Arg != scrapers.CursorArg {
			t.Errorf("ParseCursor(%.40q) = %v, want an argument error naming cursor", bad, err)
		}
	}
	if s := (scrapers.Cursor{Listing: "x"}).String(); s != "" {
		t.Errorf("a cursor without a token encodes as %q, want empty", s)
	}
}

func TestSetNextCursorOnlyWhenMore(t *testing.T) {
	call := scrapers.NewCall(nil)
	call.SetNextCursor(scrapers.Cursor{Listing: "l"})
	if _, set := call.Snapshot().Meta[scrapers.NextCursorField]; set {
		t.Error("next_cursor set for a listing with no more")
	}
	call.SetNextCursor(scrapers.Cursor{Listing: "l", Token: "t3_abc"})
	got, _ := call.Snapshot().Meta[scrapers.NextCursorField].(string)
	if c, err := scrapers.ParseCursor(got, "l"); err != nil || c.Token != "t3_abc" {
		t.Errorf("next_cursor %q decodes to %+v, %v", got, c, err)
	}
}

func TestWithCursorDeclaresBoth(t *testing.T) {
	type args struct {
		Cursor string `json:"cursor,omitempty"`
	}
	tool := scrapers.NewTool("list", "List", "lists", nil, func(context.Context, *scrapers.Call, args) error { return nil }).WithCursor()
	if p := tool.InputSchema.Properties["cursor"]; p == nil || p.MaxLength == nil || *p.MaxLength != scrapers.MaxCursorLen {
		t.Errorf("cursor argument schema = %+v", p)
	}
	if s := tool.Meta[scrapers.NextCursorField]; s == nil || s.Type != "string" {
		t.Errorf("next_cursor meta = %+v", s)
	}
}

func FuzzParseCursor(f *testing.F) {
	f.Add(scrapers.Cursor{Listing: "l", Token: "tok", Skip: 3}.String(), "l")
	f.Add("e30", "l")
	f.Fuzz(func(t *testing.T, arg, listing string) {
		c, err := scrapers.ParseCursor(arg, listing)
		if err != nil {
			return
		}
		if arg != "" && (c.Token == "" || c.Skip < 0 || c.Listing != listing) {
			t.Errorf("accepted %q as %+v", arg, c)
		}
		// What was accepted encodes back to a cursor that decodes the same.
		if arg != "" {
			if c2, err := scrapers.ParseCursor(c.String(), listing); err != nil || c2 != c {
				t.Errorf("round trip %+v -> %+v, %v", c, c2, err)
			}
		}
	})
}
