package instagram

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
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestParseOwnFixtures(t *testing.T) {
	pg, err := parseProfile(scrapertest.Testdata(t, "web_profile_info.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p := pg.Profile; p.Username != "crumbandco" || *p.Followers != 48213 || len(p.RecentPosts) != 3 || !pg.More || len(p.BioLinks) != 1 {
		t.Errorf("profile %+v", p)
	}
	for _, name := range []string{"post.html", "reel.html", "post-graphql.html"} {
		p, err := parsePostPage(scrapertest.Testdata(t, name))
		if err != nil || p.Post.Shortcode == "" || !strings.HasPrefix(p.Post.URL, origin+"/") {
			t.Errorf("%s: %+v %v", name, p, err)
		}
	}
}

func TestParseOddAndHostileAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"empty":      ``,
		"html":       `<html>`,
		"null user":  `{"data":{"user":null},"status":"ok"}`,
		"bad name":   `{"data":{"user":{"username":"../../etc"}}}`,
		"broken":     `{"data":{"user":{"username":"x"`,
		"wrong type": `{"data":[1]}`,
	} {
		if p, err := parseProfile([]byte(body)); err == nil {
			t.Errorf("%s: %+v, want an error", name, p)
		}
	}
	odd := `{"data":{"user":{"username":"odd","edge_followed_by":{"count":-5},"external_url":"javascript:alert(1)","bio_links":[{"url":7},"x"],
		"edge_owner_to_timeline_media":{"count":"many","edges":[{"node":{"shortcode":"bad code!"}},{"node":{"shortcode":"GOODcode1","edge_liked_by":{"count":1e300},"display_url":"data:x","taken_at_timestamp":"soon","edge_sidecar_to_children":{"edges":[null,{"node":{"is_video":true}}]}}}]}}}}`
	pg, err := parseProfile([]byte(odd))
	if err != nil {
		t.Fatal(err)
	}
	p := pg.Profile
	if p.Followers != nil || p.ExternalURL != "" || len(p.BioLinks) != 0 || p.PostCount != nil || len(p.RecentPosts) != 1 {
		t.Errorf("odd profile %+v", p)
	}
	if post := p.RecentPosts[0]; post.LikeCount != nil || post.DisplayURL != "" || post.TakenAt != "" || len(post.Media) != 0 || post.MediaType != "carousel" || post.OwnerUsername != "odd" {
		t.Errorf("odd post %+v", post)
	}
	for name, body := range map[string]string{
		"no scripts":      `<html><body>hi</body></html>`,
		"unclosed script": `<script type="application/json">{"xdt_api__v1__media__shortcode__web_info":{"items":[{"code":"ABCDEFG"}]}}`,
		"bad json":        `<script type="application/json">{nope</script>`,
		"empty items":     `<script type="application/json">{"xdt_api__v1__media__shortcode__web_info":{"items":[]}}</script>`,
		"bad code":        `<script type="application/json">{"a":{"xdt_api__v1__media__shortcode__web_info":{"items":[{"code":"x/y"}]}}}</script>`,
	} {
		if p, err := parsePostPage([]byte(body)); !errors.Is(err, errNoPost) {
			t.Errorf("%s: %+v %v, want errNoPost", name, p, err)
		}
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(path string, status int, body string) *scrapers.Response {
		r := &scrapers.Response{Request: &scrapers.Request{URL: "https://www.instagram.com" + path}, StatusCode: status, Body: []byte(body)}
		r.URL, _ = r.URL.Parse("https://www.instagram.com" + path)
		return r
	}
	for _, c := range []struct {
		r    *scrapers.Response
		kind string
	}{
		{resp("/accounts/login/?next=/p/x/", 200, "<html>"), scrapers.BlockLoginWall},
		{resp("/challenge/?next=/", 200, "<html>"), scrapers.BlockRobotCheck},
		{resp("/api/v1/users/web_profile_info/", 401, `{"message":"Please wait a few minutes before you try again.","require_login":true,"status":"fail"}`), scrapers.BlockLoginWall},
		{resp("/api/v1/users/web_profile_info/", 400, `{"message":"checkpoint_required","status":"fail"}`), scrapers.BlockRobotCheck},
		{resp("/api/v1/users/web_profile_info/", 429, `{"message":"Please wait a few minutes before you try again.","status":"fail"}`), scrapers.BlockRateLimited},
		{resp("/p/x/", 200, string(scrapertest.Testdata(t, "login.html"))), scrapers.BlockLoginWall},
		{resp("/p/x/", 429, "<html>"), ""},
		{resp("/api/v1/users/web_profile_info/", 200, string(scrapertest.Testdata(t, "error-shell.html"))), blockErrorPage},
		{resp("/graphql/query/", 200, "<!DOCTYPE html><html><body></body></html>"), blockErrorPage},
		{resp("/api/v1/users/web_profile_info/", 404, "<!DOCTYPE html><html>Sorry, this page isn't available.</html>"), ""},
		{resp("/p/x/", 200, string(scrapertest.Testdata(t, "error-shell.html"))), blockErrorPage},
		{resp("/ryeandshine/", 200, string(scrapertest.Testdata(t, "profile-page.html"))), ""},
		{resp("/p/x/", 200, string(scrapertest.Testdata(t, "post.html"))), ""},
		{resp("/api/v1/users/web_profile_info/", 200, string(scrapertest.Testdata(t, "web_profile_info.json"))), ""},
	} {
		scrapertest.CheckBlock(t, detectBlock(c.r), c.kind, "Instagram")
	}
}

func FuzzParseProfile(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "web_profile_info.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"data":{"user":{"username":"a","edge_owner_to_timeline_media":{"edges":[{"node":{"shortcode":"AAAAA","edge_sidecar_to_children":{"edges":[{"node":{"display_url":5}}]}}}]}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		pg, err := parseProfile(body)
		if err != nil {
			return
		}
		if !usernameRE.MatchString(pg.Profile.Username) || !strings.HasPrefix(pg.Profile.URL, origin+"/") {
			t.Fatalf("profile %+v", pg.Profile)
		}
		for _, p := range pg.Profile.RecentPosts {
			if !shortcodeRE.MatchString(p.Shortcode) || !strings.HasPrefix(p.URL, origin+"/") {
				t.Fatalf("post %+v", p)
			}
		}
	})
}

func FuzzParsePostPage(f *testing.F) {
	for _, name := range []string{"post.html", "reel.html", "post-graphql.html", "login.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<script type="application/json">{"xdt_api__v1__media__shortcode__web_info":{"items":[{"code":"AAAAA","carousel_media":[{"video_versions":[{"url":1}]}],"image_versions2":{"candidates":[{"url":"https://x","width":1e30,"height":-1}]}}]}}</script>`))
	f.Add([]byte(`<script>window.__additionalDataLoaded('x',{"graphql":{"shortcode_media":{"shortcode":"AAAAA"}}})</script>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parsePostPage(body)
		if err != nil {
			return
		}
		if !shortcodeRE.MatchString(p.Post.Shortcode) || (p.Post.Type != "post" && p.Post.Type != "reel") {
			t.Fatalf("post %+v", p)
		}
		for _, m := range p.Post.Media {
			if !strings.HasPrefix(m.URL, "http") {
				t.Fatalf("media %+v", m)
			}
		}
	})
}

// FuzzArgs: the arguments of both tools decode to an *ArgError or to
// targets within the bounds.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"usernames":["@natgeo"],"max_items":50}`,
		`{"urls":["https://www.instagram.com/p/DAaaaaaaaa1/","https://instagram.com/user/reel/DAaaaaaaaa2/","https://www.instagram.com/natgeo/"]}`,
		`{"urls":["https://www.instagram.com/explore/"]}`, `{"max_items":-1,"usernames":["a"]}`, `{"":1}`,
		`{"cursor":"` + listCursor{Kind: cursorPosts, Key: "natgeo", ID: "787132", After: "QVFE"}.String() + `","usernames":["natgeo"]}`,
		`{"cursor":"` + listCursor{Kind: cursorComments, Key: "DAaaaaaaaa1", ID: "34", Skip: 3}.String() + `","comments":5}`,
		`{"cursor":"` + listCursor{Kind: cursorPosts, Key: "natgeo", ID: "787132"}.String() + `","urls":["https://www.instagram.com/p/DAaaaaaaaa1/"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		check := func(err error, ts []target, max int) {
			if err != nil {
				var ae *scrapers.ArgError
				if !errors.As(err, &ae) || ae.Arg == "" {
					t.Fatalf("error %v is not an argument error", err)
				}
				return
			}
			if len(ts) == 0 || len(ts) > 2*maxSources || max < 0 || max > maxMaxItems {
				b, _ := json.Marshal(ts)
				t.Fatalf("accepted %s (max %d)", b, max)
			}
			for _, x := range ts {
				if (x.username == "") == (x.shortcode == "") || x.username != "" && !usernameRE.MatchString(x.username) || x.shortcode != "" && !shortcodeRE.MatchString(x.shortcode) {
					t.Fatalf("target %+v", x)
				}
			}
		}
		var s scrapeArgs
		err := scrapers.DecodeArgs(raw, &s)
		check(err, s.targets, s.maxItems)
		if err == nil && s.cursor != nil && (len(s.targets) != 1 || s.targets[0].username != s.cursor.Key) {
			t.Fatalf("a posts cursor with targets %+v", s.targets)
		}
		var d detailsArgs
		err = scrapers.DecodeArgs(raw, &d)
		check(err, d.targets, 0)
		if err == nil && (d.comments < 0 || d.comments > maxComments || d.cursor != nil && (len(d.targets) != 1 || d.targets[0].shortcode != d.cursor.Key)) {
			t.Fatalf("details %+v with targets %+v", d, d.targets)
		}
	})
}

func TestProfilePage(t *testing.T) {
	p, err := parseProfilePage(scrapertest.Testdata(t, "profile-page.html"), "ryeandshine")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "7700000001" || *p.Followers != 12400 || *p.Following != 1051 || *p.PostCount != 3287 || !p.CountsRounded || p.FullName != "Rye & Shine" {
		t.Errorf("%+v", p)
	}
	// Another account's page, the login page and the error page name no
	// account.
	for _, name := range []string{"login.html", "error-shell.html", "post.html"} {
		if _, err := parseProfilePage(scrapertest.Testdata(t, name), "ryeandshine"); !errors.Is(err, errNoProfilePage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := parseProfilePage(scrapertest.Testdata(t, "profile-page.html"), "someoneelse"); !errors.Is(err, errNoProfilePage) {
		t.Errorf("another account's page: %v", err)
	}
	for in, want := range map[string]int64{"731": 731, "4,317": 4317, "48.2K": 48200, "1.2M": 1200000, "3B": 3000000000, "12,5K": 12500} {
		if n, _ := pageCount(in); n == nil || *n != want {
			t.Errorf("pageCount(%q) = %v, want %d", in, n, want)
		}
	}
	for _, in := range []string{"", "K", "-3", "1e400K", "9999999999999999999999"} {
		if n, _ := pageCount(in); n != nil {
			t.Errorf("pageCount(%q) = %d", in, *n)
		}
	}
}

func TestMediaID(t *testing.T) {
	// A shortcode is the id's digits in base 64: encode and read back.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for _, id := range []uint64{1, 63, 64, 3400000000000000001, 1<<63 + 12345} {
		code := ""
		for n := id; n > 0; n >>= 6 {
			code = string(alphabet[n&63]) + code
		}
		if got, ok := mediaID(code); !ok || got != strconv.FormatUint(id, 10) {
			t.Errorf("mediaID(%q) = %q %v, want %d", code, got, ok, id)
		}
	}
	for _, bad := range []string{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "a/b", "_________________"} {
		if got, ok := mediaID(bad); ok {
			t.Errorf("mediaID(%q) = %q", bad, got)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := listCursor{Kind: cursorComments, Key: "DAaaaaaaaa1", ID: "3400000000000000001", After: `{"server_cursor": "x"}`, Skip: 3}
	got, err := parseCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []listCursor{{Kind: "likes", Key: "a", ID: "1"}, {Kind: cursorPosts, Key: "../x", ID: "1"}, {Kind: cursorPosts, Key: "a", ID: "1x"},
		{Kind: cursorPosts, Key: "a", ID: "1", Skip: -1}, {Kind: cursorComments, Key: "a", ID: "1"}} {
		if _, err := parseCursor(bad.String()); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestGraphQLAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"html":       `<!DOCTYPE html><html>`,
		"empty":      ``,
		"errors":     `{"errors":[{"message":"PersistedQueryNotFound","code":1675002}],"data":null}`,
		"no data":    `{"status":"ok"}`,
		"wrong type": `{"data":{"user":{"edge_owner_to_timeline_media":[1]}}}`,
	} {
		if p, err := parseTimeline([]byte(body)); err == nil {
			t.Errorf("timeline %s: %+v", name, p)
		}
		if p, err := parseCommentsAnswer([]byte(body)); err == nil {
			t.Errorf("comments %s: %+v", name, p)
		}
	}
	if _, err := parseTimeline([]byte(`{"errors":[{"message":"PersistedQueryNotFound"}],"data":null}`)); err == nil || !strings.Contains(err.Error(), "PersistedQueryNotFound") {
		t.Errorf("the error Instagram gave is not named: %v", err)
	}
	// The logged-in shape (v1 items) reads too; a next page without a
	// cursor is no next page.
	p, err := parseTimeline([]byte(`{"data":{"xdt_api__v1__feed__user_timeline_graphql_connection":{"edges":[{"node":{"code":"DXyzabc12","media_type":1,"taken_at":1700000000}}],"page_info":{"has_next_page":true,"end_cursor":null}}}}`))
	if err != nil || len(p.Posts) != 1 || p.Posts[0].Shortcode != "DXyzabc12" || p.More {
		t.Errorf("v1 timeline %+v %v", p, err)
	}
}

func FuzzParseProfilePage(f *testing.F) {
	for _, name := range []string{"profile-page.html", "login.html", "error-shell.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseProfilePage(body, "ryeandshine")
		if err != nil {
			return
		}
		if p.Username != "ryeandshine" || p.ReadFrom != "profile page" || p.ProfilePic != "" && !strings.HasPrefix(p.ProfilePic, "http") {
			t.Fatalf("%+v", p)
		}
		for _, n := range []*int64{p.Followers, p.Following, p.PostCount} {
			if n != nil && *n < 0 {
				t.Fatalf("negative count %+v", p)
			}
		}
	})
}

func FuzzParseGraphQL(f *testing.F) {
	f.Add([]byte(`{"data":{"user":{"edge_owner_to_timeline_media":{"edges":[{"node":{"shortcode":"AAAAA"}}],"page_info":{"has_next_page":true,"end_cursor":"x"}}}}}`))
	f.Add([]byte(`{"data":{"xdt_api__v1__media__media_id__comments__connection":{"edges":[{"node":{"pk":"1","text":"t","user":{"username":"u"}}}],"page_info":{"has_next_page":true,"end_cursor":"c"}}}}`))
	f.Add([]byte(`{"errors":[{"message":"x"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if p, err := parseTimeline(body); err == nil {
			for _, post := range p.Posts {
				if !shortcodeRE.MatchString(post.Shortcode) {
					t.Fatalf("%+v", post)
				}
			}
			if p.More && p.Cursor == "" {
				t.Fatal("more without a cursor")
			}
		}
		if p, err := parseCommentsAnswer(body); err == nil {
			for _, c := range p.Comments {
				if c.Text == "" {
					t.Fatalf("%+v", c)
				}
			}
			if p.More && p.Cursor == "" {
				t.Fatal("more without a cursor")
			}
		}
	})
}

// TestWalk: a listing resumes inside the page it stopped in, ends where
// Instagram says, and a cursor that does not move ends it.
func TestWalk(t *testing.T) {
	pages := map[string]*pageOf[int]{"": {Items: []int{0, 1, 2}, Cursor: "a", More: true}, "a": {Items: []int{3, 4, 5}, Cursor: "b", More: true}, "b": {Items: []int{6}}}
	fetch := func(_ context.Context, after string, n int) (*pageOf[int], error) { return pages[after], nil }
	var got []int
	add := func(i int) { got = append(got, i) }
	have, next, err := walk(context.Background(), 4, position{}, nil, fetch, add)
	if have != 4 || err != nil || next == nil || *next != (position{After: "a", Skip: 1}) {
		t.Fatalf("%d %+v %v", have, next, err)
	}
	have, next, err = walk(context.Background(), 10, *next, nil, fetch, add)
	if have != 3 || next != nil || err != nil || fmt.Sprint(got) != "[0 1 2 3 4 5 6]" {
		t.Fatalf("%d %+v %v %v", have, next, err, got)
	}
	stuck := func(_ context.Context, after string, n int) (*pageOf[int], error) {
		return &pageOf[int]{Items: []int{9}, Cursor: "same", More: true}, nil
	}
	have, next, err = walk(context.Background(), 50, position{After: "same"}, nil, stuck, func(int) {})
	if have != 1 || next != nil || err != nil {
		t.Errorf("a cursor that does not move: %d %+v %v", have, next, err)
	}
}

func BenchmarkParsePostPage(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "post.html"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parsePostPage(body); err != nil {
			b.Fatal(err)
		}
	}
}
