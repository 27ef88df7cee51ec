package tiktok

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// card is one video card as TikTok's rendered profile page writes it.
func card(id, alt, views string, pinned bool) string {
	badge := ""
	if pinned {
		badge = `<div data-e2e="video-card-badge" class="css-1rzcapn-DivBadge">Pinned</div>`
	}
	return `<div class="css-x6y88p-DivItemContainerV2"><div data-e2e="user-post-item" class="css-1as5cen-DivWrapper"><div class="css-1fvvfz4-DivContainer">` +
		`<a href="https://www.tiktok.com/@baker.bob/video/` + id + `" class="css-1g95xhm-AVideoContainer"><div>` + badge +
		`<img alt="` + alt + `" src="https://p16-sign.example.test/` + id + `.jpeg"></div>` +
		`<div class="css-11u47i-DivCardFooter"><strong data-e2e="video-views" class="video-count">` + views + `</strong></div></a></div></div></div>`
}

func TestParseCards(t *testing.T) {
	page := `<html><body><div data-e2e="user-post-item-list">` +
		card("7300000000000000001", "Crumb shot #rye #bread created by Bob Baker with Bob Baker’s original sound", "1.2M", true) +
		card("7300000000000000002", "plain", "987", false) +
		card("7300000000000000001", "a repeat", "1", false) + // the same video twice: once
		`<div data-e2e="user-post-item"><a href="/@baker.bob/photo/7300000000000000003"><img alt="photo post" src="javascript:x"></a></div>` +
		`<div data-e2e="user-post-item"><a href="/explore">not a video</a></div>` +
		`</div></body></html>`
	vs := parseCards([]byte(page), "baker.bob")
	if len(vs) != 3 {
		t.Fatalf("%d cards: %+v", len(vs), vs)
	}
	v := vs[0]
	if v.ID != "7300000000000000001" || v.Description != "Crumb shot #rye #bread" || *v.Stats.Plays != 1200000 || !v.StatsRounded || !v.Pinned ||
		strings.Join(v.Hashtags, ",") != "rye,bread" || v.URL != "https://www.tiktok.com/@baker.bob/video/7300000000000000001" || v.CreatedAt == "" ||
		v.ListedVia != listedViaRendered || v.Cover != "https://p16-sign.example.test/7300000000000000001.jpeg" {
		t.Errorf("card 0 %+v", v)
	}
	if *vs[1].Stats.Plays != 987 || vs[1].StatsRounded || vs[1].Pinned {
		t.Errorf("card 1 %+v", vs[1])
	}
	if vs[2].URL != "https://www.tiktok.com/@baker.bob/photo/7300000000000000003" || vs[2].Cover != "" || vs[2].Stats.Plays != nil {
		t.Errorf("card 2 %+v", vs[2])
	}
	// The bound: at most maxCards cards are read.
	var b strings.Builder
	for i := range maxCards + 50 {
		b.WriteString(card(fmt.Sprintf("73%017d", i), "x", "1", false))
	}
	if n := len(parseCards([]byte(b.String()), "baker.bob")); n != maxCards {
		t.Errorf("%d cards read of %d, want %d", n, maxCards+50, maxCards)
	}
}

func TestWrittenCount(t *testing.T) {
	for in, want := range map[string]int64{"987": 987, "1,234": 1234, "15.3K": 15300, "1.2M": 1200000, "2B": 2000000000, " 4k ": 4000} {
		if n, _, ok := writtenCount(in); !ok || n != want {
			t.Errorf("writtenCount(%q) = %d %v, want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "K", "-1", "NaN", "1e300M", "views"} {
		if n, _, ok := writtenCount(in); ok {
			t.Errorf("writtenCount(%q) = %d", in, n)
		}
	}
	if idTime("12") != 0 || idTime("not a number") != 0 || idTime("18446744073709551615") != 0 || idTime("7300000000000000000") != 1699663698 {
		t.Error("idTime")
	}
}

func TestCursors(t *testing.T) {
	for _, c := range []listCursor{
		{Kind: cursorProfile, Key: "chef.anna", ID: "MS4wLjABAAAA-x", After: "1700000000000"},
		{Kind: cursorHashtag, Key: "bread", ID: "6983", After: "30", Skip: 4},
		{Kind: cursorSearchVideo, Key: "sour dough"},
		{Kind: cursorSearchUser, Key: "baker", After: "20"},
		{Kind: cursorTrending, After: "60"},
		{Kind: cursorComments, Key: "7000000000000000001", ID: "chef.anna", After: "50"},
	} {
		got, err := parseCursor(c.String())
		if err != nil || got != c {
			t.Errorf("%+v: %+v %v", c, got, err)
		}
	}
	for _, c := range []listCursor{
		{Kind: "likes"}, {Kind: cursorProfile, Key: "a b", ID: "x"}, {Kind: cursorProfile, Key: "a", ID: "x/y"},
		{Kind: cursorHashtag, Key: "bread", ID: "69x"}, {Kind: cursorSearchVideo, Key: ""}, {Kind: cursorTrending, Key: "x"},
		{Kind: cursorComments, Key: "12"}, {Kind: cursorHashtag, Key: "bread", ID: "1", Skip: -1},
	} {
		if _, err := parseCursor(c.String()); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	for _, raw := range []string{"", "!!", strings.Repeat("A", maxCursorLen+1), "bnVsbA"} {
		if _, err := parseCursor(raw); err == nil {
			t.Errorf("%q accepted", raw)
		}
	}
}

func FuzzParseCards(f *testing.F) {
	f.Add([]byte(card("7300000000000000001", "x created by y", "1.2M", true)))
	if b, err := os.ReadFile(filepath.Join("testdata", "profile-app.html")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`<div data-e2e="user-post-item"><a href="//@a/video/12345"><strong data-e2e="video-views">9e99B</strong></a></div>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		vs := parseCards(body, "owner")
		if len(vs) > maxCards {
			t.Fatalf("%d cards", len(vs))
		}
		for _, v := range vs {
			if !videoIDRE.MatchString(v.ID) || !strings.HasPrefix(v.URL, "https://www.tiktok.com/@") || v.Stats.Plays != nil && *v.Stats.Plays < 0 {
				t.Fatalf("%+v", v)
			}
		}
	})
}

// FuzzScrapeArgs: any arguments decode to an *ArgError or to sources
// within their bounds; a cursor leaves exactly the listing it continues.
func FuzzScrapeArgs(f *testing.F) {
	for _, s := range []string{
		`{"trending":true,"max_items":5}`, `{"urls":["https://www.tiktok.com/foryou"]}`,
		`{"cursor":"` + listCursor{Kind: cursorHashtag, Key: "bread", ID: "6983", After: "30"}.String() + `","hashtags":["bread"]}`,
		`{"cursor":"` + listCursor{Kind: cursorTrending}.String() + `","profiles":["a"]}`, `{"cursor":"x"}`, `{"cursor":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a scrapeArgs
		err := scrapers.DecodeArgs(raw, &a)
		if err != nil {
			var ae *scrapers.ArgError
			if !errors.As(err, &ae) || ae.Arg == "" {
				t.Fatalf("error %v is not an argument error", err)
			}
			return
		}
		n := len(a.urls) + len(a.profiles) + len(a.hashtags) + len(a.searches)
		if a.trending {
			n++
		}
		if a.cursor != nil && n != 0 || a.cursor == nil && n == 0 || n > 4*maxSources+1 || a.maxItems < 1 || a.maxItems > maxMaxItems {
			b, _ := json.Marshal(a)
			t.Fatalf("accepted %s: %d sources, cursor %v", b, n, a.cursor)
		}
	})
}

// TestWalkIsBounded: a site that sends one item a page stops the walk at
// its page bound, with the cursor to go on from and the reason.
func TestWalkIsBounded(t *testing.T) {
	fetches := 0
	have, next, err := walk(context.Background(), 100, position{}, nil, 30, func(_ context.Context, at string, n int) (*pageOf[int], error) {
		fetches++
		i, _ := strconv.Atoi(at)
		return &pageOf[int]{Items: []int{i}, Cursor: strconv.Itoa(i + 1), More: true}, nil
	}, func(int) bool { return true })
	if fetches != 13 || have != 13 || next == nil || next.After != "13" || err == nil || !strings.Contains(err.Error(), "stopped after 13 pages") {
		t.Errorf("%d fetches, %d items, next %+v, %v", fetches, have, next, err)
	}
	// A page of nothing new ends the walk where the next page starts.
	have, next, err = walk(context.Background(), 10, position{}, nil, 30, func(_ context.Context, at string, n int) (*pageOf[int], error) {
		return &pageOf[int]{Items: []int{1, 2}, Cursor: at + "x", More: true}, nil
	}, func(i int) bool { return false })
	if have != 0 || next == nil || next.After != "x" || err != nil {
		t.Errorf("stale pages: %d, %+v, %v", have, next, err)
	}
}

// BenchmarkParseCards reads a rendered profile page of 30 cards.
func BenchmarkParseCards(b *testing.B) {
	var page strings.Builder
	page.WriteString(`<html><body><div data-e2e="user-post-item-list">`)
	for i := range 30 {
		page.WriteString(card(fmt.Sprintf("73%017d", i), "a video #bread created by Bob with Bob's original sound", "12.3K", i == 0))
	}
	page.WriteString(`</div></body></html>`)
	body := []byte(page.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if len(parseCards(body, "baker.bob")) != 30 {
			b.Fatal("cards")
		}
	}
}
