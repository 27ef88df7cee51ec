package googlesearch

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func extract(tb testing.TB, page []byte) *SERP {
	tb.Helper()
	s, err := Extract(page)
	if err != nil {
		tb.Fatalf("Extract: %v", err)
	}
	return s
}

// checkOrganic holds for every result of every layout.
func checkOrganic(t *testing.T, list []Organic) {
	t.Helper()
	seen := map[string]bool{}
	for i, o := range list {
		if o.Position != i+1 {
			t.Errorf("result %d has position %d", i, o.Position)
		}
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.HasPrefix(u.Path, "/url") {
			t.Errorf("result %d: %q is not a target URL", i+1, o.URL)
		}
		if seen[o.URL] {
			t.Errorf("result %d repeats %s", i+1, o.URL)
		}
		seen[o.URL] = true
		if o.Title == "" || strings.TrimSpace(o.Title) != o.Title {
			t.Errorf("result %d: title %q", i+1, o.Title)
		}
	}
}

func TestExtractDesktopFixture(t *testing.T) {
	s := extract(t, scrapertest.Fixture(t, "google/desktop-google.html"))
	if len(s.Organic) != 9 {
		t.Fatalf("%d organic results, want 9: %+v", len(s.Organic), s.Organic)
	}
	checkOrganic(t, s.Organic)
	if s.Organic[1].URL != "https://www.google.com/" {
		t.Errorf("result 2 url = %q, want https://www.google.com/", s.Organic[1].URL)
	}
	if s.Organic[3].Title != "Google Maps" {
		t.Errorf("result 4 title = %q, want Google Maps", s.Organic[3].Title)
	}
	for _, o := range s.Organic {
		if o.DisplayedURL == "" || o.Description == "" {
			t.Errorf("result %d lacks displayed_url or description: %+v", o.Position, o)
		}
	}
	if got := s.Organic[2].DisplayedURL; got != "https://www.google.com › account › about" {
		t.Errorf("result 3 displayed_url = %q", got)
	}
	if !strings.HasPrefix(s.Organic[1].Description, "Search the world's information") {
		t.Errorf("result 2 description = %q", s.Organic[1].Description)
	}
	if s.TotalResults == nil || *s.TotalResults != 25150000000 {
		t.Errorf("total results = %v, want 25150000000", s.TotalResults)
	}
	if len(s.Related) != 8 || s.Related[0].Query != "google map" || !strings.HasPrefix(s.Related[0].URL, "https://www.google.com/search?") {
		t.Errorf("related queries = %+v, want 8 starting with google map", s.Related)
	}
	if len(s.PeopleAlsoAsk) != 4 || s.PeopleAlsoAsk[0].Question != "What does Google stand for?" {
		t.Errorf("people also ask = %+v", s.PeopleAlsoAsk)
	}
	if !s.IsResultsPage {
		t.Error("not recognised as a results page")
	}
	if s.NextStart != 10 {
		t.Errorf("next start = %d, want 10 from the More results link", s.NextStart)
	}
}

func TestExtractNojsFixture(t *testing.T) {
	s := extract(t, scrapertest.Fixture(t, "google/nojs-google.html"))
	if len(s.Organic) != 10 {
		t.Fatalf("%d organic results, want 10", len(s.Organic))
	}
	checkOrganic(t, s.Organic)
	if s.Organic[7].URL != "https://maps.google.com/" {
		t.Errorf("result 8 url = %q, want https://maps.google.com/ (from a /url?q= link)", s.Organic[7].URL)
	}
	if s.Organic[0].URL != "https://www.google.com/" || s.Organic[0].DisplayedURL != "www.google.com" {
		t.Errorf("result 1 = %+v", s.Organic[0])
	}
	if s.Organic[9].Description != "Google Classroom is your all-in-one place for teaching and learning." {
		t.Errorf("result 10 description = %q", s.Organic[9].Description)
	}
	if len(s.Related) == 0 || s.Related[0].Query != "www.google search web" {
		t.Errorf("related queries = %+v", s.Related)
	}
	if s.NextStart != 10 {
		t.Errorf("next start = %d, want 10 from the Next page link", s.NextStart)
	}
}

func TestExtractMobileFixture(t *testing.T) {
	s := extract(t, scrapertest.Fixture(t, "google/mobile-google.html"))
	if len(s.Organic) < 3 {
		t.Fatalf("%d organic results, want at least 3", len(s.Organic))
	}
	checkOrganic(t, s.Organic)
	want := []string{"https://google.com/", "https://www.google.com/", "https://www.google.com/account/about/"}
	for i, w := range want {
		if s.Organic[i].URL != w {
			t.Errorf("result %d url = %q, want %q", i+1, s.Organic[i].URL, w)
		}
	}
	if s.Organic[2].Title != "Google Account" || s.Organic[2].DisplayedURL != "https://www.google.com › about" {
		t.Errorf("result 3 = %+v", s.Organic[2])
	}
	if len(s.PeopleAlsoAsk) != 4 {
		t.Errorf("people also ask = %+v", s.PeopleAlsoAsk)
	}
}

func TestExtractSmallPage(t *testing.T) {
	s := extract(t, scrapertest.Testdata(t, "serp-small.html"))
	checkOrganic(t, s.Organic)
	want := []Organic{
		{Position: 1, Title: "Tutorial: Getting started with generics", URL: "https://go.dev/doc/tutorial/generics",
			DisplayedURL: "https://go.dev › doc › tutorial", Date: "Mar 22, 2022", Description: "This tutorial introduces the basics of generics in Go."},
		{Position: 2, Title: "Go by Example: Generics", URL: "https://gobyexample.com/generics",
			Description: "Starting with version 1.18, Go has added support for generics, also known as type parameters."},
		{Position: 3, Title: "Newest 'generics' questions", URL: "https://stackoverflow.com/questions/tagged/generics+go",
			DisplayedURL: "stackoverflow.com › questions", Date: "3 days ago", Description: "Questions about type parameters in Go."},
	}
	if len(s.Organic) != len(want) {
		t.Fatalf("organic = %+v\nwant the 3 results (no ad, no duplicate, no PAA link, no knowledge panel, no More results)", s.Organic)
	}
	for i := range want {
		if s.Organic[i] != want[i] {
			t.Errorf("result %d =\n %+v\nwant\n %+v", i+1, s.Organic[i], want[i])
		}
	}
	if s.TotalResults == nil || *s.TotalResults != 1230000 {
		t.Errorf("total = %v", s.TotalResults)
	}
	if len(s.Related) != 2 || s.Related[0].Query != "golang generics constraints" || s.Related[1].URL != "https://www.google.com/search?q=golang+generics+example&sa=X" {
		t.Errorf("related = %+v", s.Related)
	}
	if s.NextStart != -1 {
		t.Errorf("next start = %d; the page has no labelled next link", s.NextStart)
	}
	if len(s.PeopleAlsoAsk) != 2 {
		t.Fatalf("people also ask = %+v", s.PeopleAlsoAsk)
	}
	q := s.PeopleAlsoAsk[0]
	if q.Question != "What are generics in Go?" || q.Answer != "Generics let you write functions that work with any of a set of types." ||
		q.URL != "https://go.dev/blog/intro-generics" || q.Title != "An Introduction To Generics" {
		t.Errorf("first question = %+v", q)
	}
}

func TestExtractPagesWithoutResults(t *testing.T) {
	s := extract(t, scrapertest.Testdata(t, "no-results.html"))
	if len(s.Organic) != 0 || !s.IsResultsPage {
		t.Errorf("a no-results page: %d results, results page %v", len(s.Organic), s.IsResultsPage)
	}
	for _, name := range []string{"not-results.html", "sorry.html", "consent.html"} {
		if s := extract(t, scrapertest.Testdata(t, name)); s.IsResultsPage || len(s.Organic) != 0 {
			t.Errorf("%s taken for a results page", name)
		}
	}
	if s := extract(t, nil); len(s.Organic) != 0 || s.Organic == nil || s.Related == nil || s.PeopleAlsoAsk == nil {
		t.Errorf("empty page: %+v", s)
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(body []byte, rawURL string) *scrapers.Response {
		u, _ := url.Parse(rawURL)
		return &scrapers.Response{URL: u, StatusCode: 200, Body: body}
	}
	cases := []struct {
		name string
		r    *scrapers.Response
		kind string
	}{
		{"captcha page", resp(scrapertest.Testdata(t, "sorry.html"), "https://www.google.com/search?q=x"), scrapers.BlockCaptcha},
		{"sorry redirect", resp([]byte("<html></html>"), "https://www.google.com/sorry/index?continue=x"), scrapers.BlockCaptcha},
		{"consent page", resp(scrapertest.Testdata(t, "consent.html"), "https://www.google.com/search?q=x"), scrapers.BlockConsentWall},
		{"consent host", resp([]byte("<html></html>"), "https://consent.google.com/ml?continue=x"), scrapers.BlockConsentWall},
		{"javascript demanded", resp(scrapertest.Testdata(t, "enablejs.html"), "https://www.google.com/search?q=x"), scrapers.BlockRobotCheck},
		{"results", resp(scrapertest.Testdata(t, "serp-small.html"), "https://www.google.com/search?q=x"), ""},
		{"no results", resp(scrapertest.Testdata(t, "no-results.html"), "https://www.google.com/search?q=x"), ""},
	}
	for _, tc := range cases {
		be := detectBlock(tc.r)
		switch {
		case tc.kind == "" && be != nil:
			t.Errorf("%s: detected %v", tc.name, be)
		case tc.kind != "" && (be == nil || be.Kind != tc.kind || be.Site != "Google"):
			t.Errorf("%s: got %v, want a %s block by Google", tc.name, be, tc.kind)
		}
	}
}

func TestDetectBlockOnRealPages(t *testing.T) {
	u, _ := url.Parse("https://www.google.com/search?q=google")
	if be := detectBlock(&scrapers.Response{URL: u, Body: scrapertest.Fixture(t, "google/recaptcha.html")}); be == nil || be.Kind != scrapers.BlockCaptcha {
		t.Errorf("recaptcha.html: %v, want a captcha block", be)
	}
	for _, name := range []string{"desktop-google.html", "mobile-google.html", "nojs-google.html"} {
		if be := detectBlock(&scrapers.Response{URL: u, Body: scrapertest.Fixture(t, "google/"+name)}); be != nil {
			t.Errorf("%s taken for a block: %v", name, be)
		}
	}
}

func TestTotalResults(t *testing.T) {
	for in, want := range map[string]int64{
		"About 25,150,000,000 results (0.62 seconds)":   25150000000,
		"Environ 1 230 000 résultats (0,35 secondes)":   1230000,
		"Ungefähr 1.230.000 Ergebnisse (0,41 Sekunden)": 1230000,
		"Page 2 of about 4,560 results (0.3 seconds)":   2,
		"1 result":           1,
		"Etwa 12 Ergebnisse": 12,
	} {
		if got := totalResults(in); got == nil || *got != want {
			t.Errorf("totalResults(%q) = %v, want %d", in, got, want)
		}
	}
	for _, in := range []string{"", "No results", "(0.3 seconds)", "About 99999999999999999999999 results"} {
		if got := totalResults(in); got != nil {
			t.Errorf("totalResults(%q) = %d, want none", in, *got)
		}
	}
}

func TestResultURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a?b=c":                       "https://example.com/a?b=c",
		"/url?q=https://example.com/x%3Fy%3D1&sa=U":       "https://example.com/x?y=1",
		"/url?url=https://example.org/&rct=j":             "https://example.org/",
		"https://www.google.com/url?q=https://a.example/": "https://a.example/",
		"/search?q=next&start=10":                         "",
		"https://www.google.com/search?q=x":               "",
		"/aclk?sa=l&adurl=x":                              "",
		"javascript:void(0)":                              "",
		"#":                                               "",
		"/url?q=javascript:alert(1)":                      "",
		"https://maps.google.com/":                        "https://maps.google.com/",
		"mailto:a@example.com":                            "",
	} {
		if got := resultURL(in); got != want {
			t.Errorf("resultURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitDate(t *testing.T) {
	for _, tc := range []struct{ in, date, rest string }{
		{"Mar 22, 2022 — This tutorial", "Mar 22, 2022", "This tutorial"},
		{"22 Mar 2022 — Text", "22 Mar 2022", "Text"},
		{"3 days ago · Text", "3 days ago", "Text"},
		{"1 hour ago - Text", "1 hour ago", "Text"},
		{"2024-01-05 — Text", "2024-01-05", "Text"},
		{"No date here — Text", "", "No date here — Text"},
		{"", "", ""},
	} {
		d, r := splitDate(tc.in)
		if d != tc.date || r != tc.rest {
			t.Errorf("splitDate(%q) = %q, %q; want %q, %q", tc.in, d, r, tc.date, tc.rest)
		}
	}
}

// FuzzExtract: any page gives results that are numbered and point at http(s)
// pages, and never a panic.
func FuzzExtract(f *testing.F) {
	for _, name := range []string{"serp-small.html", "no-results.html", "sorry.html", "consent.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<div id="rso"><a href="/url?q=http://x"><h3>t</h3></a><a href="/url?q=%zz"><h3>u</h3></a></div>`))
	f.Add([]byte(`<div id="result-stats">About 9,999,999,999,999,999,999 results</div><a href="//evil"><h3> </h3></a>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		s, err := Extract(page)
		if err != nil {
			return
		}
		for i, o := range s.Organic {
			u, err := url.Parse(o.URL)
			if o.Position != i+1 || err != nil || (u.Scheme != "http" && u.Scheme != "https") || o.Title == "" {
				t.Fatalf("bad result %d: %+v", i, o)
			}
		}
		if s.TotalResults != nil && *s.TotalResults < 0 {
			t.Fatalf("negative total %d", *s.TotalResults)
		}
	})
}

func benchmarkExtract(b *testing.B, name string) {
	page := scrapertest.Fixture(b, name)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Extract(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractDesktop(b *testing.B) { benchmarkExtract(b, "google/desktop-google.html") }
func BenchmarkExtractMobile(b *testing.B)  { benchmarkExtract(b, "google/mobile-google.html") }
func BenchmarkExtractNojs(b *testing.B)    { benchmarkExtract(b, "google/nojs-google.html") }
