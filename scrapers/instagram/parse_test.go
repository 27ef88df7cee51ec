package instagram

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
		if err != nil || p.Shortcode == "" || !strings.HasPrefix(p.URL, origin+"/") {
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
		if !shortcodeRE.MatchString(p.Shortcode) || (p.Type != "post" && p.Type != "reel") {
			t.Fatalf("post %+v", p)
		}
		for _, m := range p.Media {
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
		var d detailsArgs
		err = scrapers.DecodeArgs(raw, &d)
		check(err, d.targets, 0)
	})
}
