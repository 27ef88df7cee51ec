package googlesearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a stand-in Google: /search answers per query and start with
// pages it makes (n results each) unless a handler for the query is set.
type standIn struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	count    atomic.Int32
	perPage  int                                               // results on a page (default 10)
	lastPage int                                               // pages with results (default 10)
	handle   func(w http.ResponseWriter, r *http.Request) bool // true when it answered
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{perPage: 10, lastPage: 10}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(1)
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		s.mu.Unlock()
		if s.handle != nil && s.handle(w, r) {
			return
		}
		if r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		start, _ := strconv.Atoi(r.URL.Query().Get("start"))
		n := s.perPage
		if num, err := strconv.Atoi(r.URL.Query().Get("num")); err == nil {
			n = num
		}
		fmt.Fprint(w, resultsPage(r.URL.Query().Get("q"), start, n, start/max(n, 1) < s.lastPage))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) seen() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// resultsPage is a desktop-layout results page with n results for q.
func resultsPage(q string, start, n int, any bool) string {
	var b strings.Builder
	b.WriteString(`<html><body><div id="search"><div id="result-stats">About 1,000 results</div><div id="rso">`)
	if any {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `<div class="MjjYud"><div class="g"><div class="yuRUbf"><a href="https://example.com/%s/%d"><h3>%s result %d</h3><cite>example.com</cite></a></div><div class="VwiC3b">About %s, number %d.</div></div></div>`,
				strings.ReplaceAll(q, " ", "-"), start+i, html.EscapeString(q), start+i+1, html.EscapeString(q), start+i+1)
		}
	}
	b.WriteString(`</div></div><div id="botstuff"><a class="k8XOCe" href="/search?q=` + strings.ReplaceAll(q, " ", "+") + `+more">` + html.EscapeString(q) + ` more</a>`)
	if any {
		fmt.Fprintf(&b, `<a aria-label="Next page" href="/search?q=%s&amp;start=%d&amp;sa=N">Next</a>`, url.QueryEscape(q), start+n)
	}
	b.WriteString(`</div></body></html>`)
	return b.String()
}

// searxStandIn is a stand-in SearXNG JSON API.
func searxStandIn(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func searxAnswer(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	page := r.URL.Query().Get("pageno")
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"query":             q,
		"number_of_results": 0,
		"results": []map[string]any{
			{"url": "https://searx.example/" + page + "/a", "title": "A for " + q, "content": "first", "publishedDate": "2024-05-01T00:00:00"},
			{"url": "https://searx.example/" + page + "/b", "title": "B for " + q, "content": "second", "publishedDate": nil},
		},
		"suggestions":          []string{q + " tips"},
		"unresponsive_engines": []any{},
	})
}

// tool builds the plugin from vars and returns its search tool.
func tool(t *testing.T, vars map[string]string) scrapers.Tool {
	t.Helper()
	p, err := New(scrapertest.Env(vars))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if p.ID != "google-search" || len(p.Tools) != 1 || p.Tools[0].Name != "search" || p.Tools[0].Title != "Search Google" {
		t.Fatalf("plugin = %+v", p)
	}
	return p.Tools[0]
}

func run(t *testing.T, tl scrapers.Tool, ctx context.Context, args string) ([]pageItem, scrapers.Outcome, error) {
	t.Helper()
	call := scrapers.NewCall(nil)
	err := tl.Run(ctx, call, json.RawMessage(args))
	out := call.Snapshot()
	scrapertest.CheckItems(t, tl, out)
	var items []pageItem
	for _, raw := range out.Items {
		var it pageItem
		if err := json.Unmarshal(raw, &it); err != nil {
			t.Fatalf("item %s: %v", raw, err)
		}
		items = append(items, it)
	}
	return items, out, err
}

func TestSearchPagesThroughStart(t *testing.T) {
	g := newStandIn(t)
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, out, err := run(t, tl, context.Background(), `{"queries":["golang"],"max_pages_per_query":3}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	for i, it := range items {
		page := i + 1
		if it.Page != page || it.Query != "golang" || it.ResultsProvider != "google" || len(it.OrganicResults) != 10 {
			t.Fatalf("item %d = %+v", i, it)
		}
		if first := it.OrganicResults[0]; first.Position != (page-1)*10+1 || first.URL != fmt.Sprintf("https://example.com/golang/%d", (page-1)*10) {
			t.Errorf("page %d first result = %+v", page, first)
		}
		wantURL := "https://www.google.com/search?pws=0&q=golang"
		if page > 1 {
			wantURL = fmt.Sprintf("https://www.google.com/search?pws=0&q=golang&start=%d", (page-1)*10)
		}
		if it.URL != wantURL {
			t.Errorf("item url = %s, want %s", it.URL, wantURL)
		}
		if it.TotalResults == nil || *it.TotalResults != 1000 || len(it.RelatedQueries) != 1 || it.PeopleAlsoAsk == nil {
			t.Errorf("page %d extras: total %v related %+v", page, it.TotalResults, it.RelatedQueries)
		}
	}
	reqs := g.seen()
	if len(reqs) != 3 || reqs[0].URL.Query().Has("start") || reqs[1].URL.Query().Get("start") != "10" || reqs[2].URL.Query().Get("start") != "20" {
		t.Fatalf("stand-in saw %v", reqs)
	}
	if c := reqs[0].Header.Get("Cookie"); !strings.Contains(c, "SOCS=") || !strings.Contains(c, "CONSENT=") {
		t.Errorf("no consent cookies: %q", c)
	}
	if out.Meta["results_provider"] != "google" || out.Partial {
		t.Errorf("meta %v partial %v", out.Meta, out.Partial)
	}
}

func TestSearchFollowsTheNextLink(t *testing.T) {
	g := newStandIn(t)
	g.perPage = 9 // Google often shows 9 results; its Next link then says start=9
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, _, err := run(t, tl, context.Background(), `{"queries":["nine"],"max_pages_per_query":3}`)
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, r := range g.seen() {
		starts = append(starts, r.URL.Query().Get("start"))
	}
	if strings.Join(starts, ",") != ",9,18" {
		t.Fatalf("starts %v, want the Next links' 9 and 18", starts)
	}
	if len(items) != 3 || items[2].OrganicResults[0].Position != 19 || items[2].OrganicResults[0].URL != "https://example.com/nine/18" {
		t.Fatalf("third page = %+v", items[2])
	}
}

func TestSearchArgumentsReachGoogle(t *testing.T) {
	g := newStandIn(t)
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, _, err := run(t, tl, context.Background(),
		`{"queries":["generics"],"country_code":"DE","language_code":"de","site":"https://go.dev/blog/","results_per_page":20,"start":40,"max_pages_per_query":2}`)
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.seen()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	q := reqs[1].URL.Query()
	if q.Get("q") != "site:go.dev/blog generics" || q.Get("gl") != "de" || q.Get("hl") != "de" || q.Get("num") != "20" || q.Get("start") != "60" {
		t.Errorf("second page query = %v", q)
	}
	if al := reqs[0].Header.Get("Accept-Language"); !strings.HasPrefix(al, "de,") {
		t.Errorf("Accept-Language = %q", al)
	}
	if items[1].OrganicResults[0].Position != 61 {
		t.Errorf("second page starts at position %d, want 61", items[1].OrganicResults[0].Position)
	}
}

func TestSearchStopsAtAnEmptyPage(t *testing.T) {
	g := newStandIn(t)
	g.lastPage = 1
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, _, err := run(t, tl, context.Background(), `{"queries":["rare thing"],"max_pages_per_query":5}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || len(items[1].OrganicResults) != 0 || items[1].OrganicResults == nil {
		t.Fatalf("items = %+v; want page 1 and the empty page 2", items)
	}
	if g.count.Load() != 2 {
		t.Fatalf("%d requests; paging must stop after an empty page", g.count.Load())
	}
}

func TestSearchRealDesktopPage(t *testing.T) {
	page := scrapertest.Fixture(t, "google/desktop-google.html")
	g := newStandIn(t)
	g.handle = func(w http.ResponseWriter, r *http.Request) bool {
		w.Write(page)
		return true
	}
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, _, err := run(t, tl, context.Background(), `{"queries":["google"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || len(items[0].OrganicResults) != 9 || items[0].OrganicResults[1].URL != "https://www.google.com/" || items[0].OrganicResults[3].Title != "Google Maps" {
		t.Fatalf("items = %+v", items)
	}
}

func blockedGoogle(t *testing.T) *standIn {
	g := newStandIn(t)
	captcha, err := readCaptcha(t)
	if err != nil {
		t.Fatal(err)
	}
	g.handle = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/search" {
			// As Google does: a 302 to /sorry/ serving the captcha with 429.
			http.Redirect(w, r, "/sorry/index?continue="+r.URL.String(), http.StatusFound)
			return true
		}
		if strings.HasPrefix(r.URL.Path, "/sorry/") {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(captcha)
			return true
		}
		return false
	}
	return g
}

// readCaptcha is the real captcha page when the fixtures are there, else ours.
func readCaptcha(t *testing.T) ([]byte, error) {
	var page []byte
	t.Run("real captcha page", func(t *testing.T) { page = scrapertest.Fixture(t, "google/recaptcha.html") })
	if page != nil {
		return page, nil
	}
	return scrapertest.Testdata(t, "sorry.html"), nil
}

func TestBlockFallsBackToSearxng(t *testing.T) {
	g := blockedGoogle(t)
	sx, sxCount := searxStandIn(t, searxAnswer)
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL, "SEARXNG_URL": sx.URL + "/"})
	items, out, err := run(t, tl, context.Background(), `{"queries":["alpha","beta"],"max_pages_per_query":2,"language_code":"en","country_code":"gb"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 {
		t.Fatalf("%d items, want 4", len(items))
	}
	for _, it := range items {
		if it.ResultsProvider != "searxng" || len(it.OrganicResults) != 2 || !strings.HasPrefix(it.URL, sx.URL+"/search?") {
			t.Fatalf("item = %+v", it)
		}
		if it.OrganicResults[0].Date != "2024-05-01T00:00:00" || it.OrganicResults[0].Description != "first" || it.RelatedQueries[0].Query != it.Query+" tips" {
			t.Errorf("searxng fields: %+v", it)
		}
	}
	if out.Meta["results_provider"] != "searxng" || sxCount.Load() != 4 {
		t.Errorf("meta %v, searxng asked %d times", out.Meta, sxCount.Load())
	}
	// A blocked provider is not asked again in the call: only the two first
	// pages, asked at once by two workers, reached Google.
	searches := 0
	for _, r := range g.seen() {
		if r.URL.Path == "/search" {
			searches++
		}
	}
	if searches > 2 {
		t.Errorf("Google asked %d times for 4 pages after blocking", searches)
	}
	var sawLang bool
	for _, it := range items {
		sawLang = sawLang || strings.Contains(it.URL, "language=en-GB")
	}
	if !sawLang {
		t.Errorf("language not passed to SearXNG: %s", items[0].URL)
	}
}

func TestBlockWithoutFallbackIsAToolError(t *testing.T) {
	g := blockedGoogle(t)
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, _, err := run(t, tl, context.Background(), `{"queries":["alpha","beta"]}`)
	var be *scrapers.BlockedError
	if !errors.As(err, &be) || be.Site != "Google" || be.Kind != scrapers.BlockCaptcha {
		t.Fatalf("err = %v, want Google's captcha block", err)
	}
	if !strings.Contains(err.Error(), "Google") || !strings.Contains(err.Error(), "captcha") {
		t.Fatalf("the error does not say Google and captcha: %v", err)
	}
	if len(items) != 0 {
		t.Fatalf("items on a blocked call: %+v", items)
	}
}

func TestFailedQueryIsReportedBesideTheOthers(t *testing.T) {
	g := newStandIn(t)
	g.handle = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("q") == "broken" {
			http.Error(w, "oops", http.StatusNotFound)
			return true
		}
		return false
	}
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	items, out, err := run(t, tl, context.Background(), `{"queries":["broken","fine"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failed) != 1 || !strings.Contains(out.Failed[0].URL, "q=broken") || !strings.Contains(out.Failed[0].Error, "404") {
		t.Fatalf("failed = %+v", out.Failed)
	}
	var ok int
	for _, it := range items {
		if it.Query == "fine" && len(it.OrganicResults) == 10 {
			ok++
		}
	}
	if ok != 1 || !out.Partial {
		t.Fatalf("items %+v partial %v", items, out.Partial)
	}
}

func TestSearxngRealNewsAnswer(t *testing.T) {
	body := scrapertest.Fixture(t, "searxng/search-news.json")
	sx, _ := searxStandIn(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	tl := tool(t, map[string]string{"SEARXNG_URL": sx.URL, "GOOGLE_SEARCH_PROVIDERS": "searxng"})
	items, _, err := run(t, tl, context.Background(), `{"queries":["artificial intelligence"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || len(items[0].OrganicResults) != 10 {
		t.Fatalf("items = %+v", items)
	}
	for _, o := range items[0].OrganicResults {
		if o.Title == "" || !strings.HasPrefix(o.URL, "https://") {
			t.Errorf("result %+v", o)
		}
	}
}

func TestSearxngRealAnswer(t *testing.T) {
	body := scrapertest.Fixture(t, "searxng/search-general.json")
	sx, _ := searxStandIn(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	tl := tool(t, map[string]string{"SEARXNG_URL": sx.URL, "GOOGLE_SEARCH_PROVIDERS": "searxng"})
	items, out, err := run(t, tl, context.Background(), `{"queries":["what to watch after Severance"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || len(items[0].OrganicResults) != 6 || items[0].ResultsProvider != "searxng" || out.Meta["results_provider"] != "searxng" {
		t.Fatalf("items = %+v", items)
	}
	first := items[0].OrganicResults[0]
	if first.Position != 1 || first.Title != "What other shows do you rate as highly as (or close to) Severance?" ||
		!strings.HasPrefix(first.URL, "https://www.reddit.com/r/SeveranceAppleTVPlus/") || !strings.HasPrefix(first.Description, "30 Jan 2025") {
		t.Errorf("first = %+v", first)
	}
}

func TestSearxngFailuresAreClear(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		want   string
	}{
		{"engines down", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"query":"x","results":[],"suggestions":[],"unresponsive_engines":[["brave","Suspended: too many requests"],["duckduckgo","CAPTCHA"]]}`)
		}, "brave (Suspended: too many requests), duckduckgo (CAPTCHA)"},
		{"json disabled", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) }, "search.formats"},
		{"not json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, "not SearXNG's JSON"},
		{"down", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "x", http.StatusInternalServerError) }, "SearXNG answered HTTP 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sx, _ := searxStandIn(t, tc.answer)
			tl := tool(t, map[string]string{"SEARXNG_URL": sx.URL, "GOOGLE_SEARCH_PROVIDERS": "searxng"})
			_, _, err := run(t, tl, context.Background(), `{"queries":["x"]}`)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestSearxngFirstThenGoogle(t *testing.T) {
	sx, _ := searxStandIn(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	g := newStandIn(t)
	tl := tool(t, map[string]string{"SEARXNG_URL": sx.URL, "GOOGLE_SEARCH_BASE_URL": g.URL, "GOOGLE_SEARCH_PROVIDERS": "searxng, google"})
	items, out, err := run(t, tl, context.Background(), `{"queries":["x"]}`)
	if err != nil || len(items) != 1 || items[0].ResultsProvider != "google" || out.Meta["results_provider"] != "google" {
		t.Fatalf("err %v items %+v meta %v", err, items, out.Meta)
	}
}

func TestBadArguments(t *testing.T) {
	g := newStandIn(t)
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	many := `"q"` + strings.Repeat(`,"q"`, 20)
	for _, tc := range []struct{ args, arg string }{
		{`{}`, "queries"},
		{`{"queries":[]}`, "queries"},
		{`{"queries":[` + many + `]}`, "queries"},
		{`{"queries":["ok","  "]}`, "queries"},
		{`{"queries":["` + strings.Repeat("a", 2049) + `"]}`, "queries"},
		{`{"queries":"golang"}`, "queries"},
		{`{"queries":["a"],"max_pages_per_query":0}`, "max_pages_per_query"},
		{`{"queries":["a"],"max_pages_per_query":11}`, "max_pages_per_query"},
		{`{"queries":["a"],"max_pages_per_query":"2"}`, "max_pages_per_query"},
		{`{"queries":["a"],"results_per_page":101}`, "results_per_page"},
		{`{"queries":["a"],"start":-1}`, "start"},
		{`{"queries":["a"],"country_code":"usa"}`, "country_code"},
		{`{"queries":["a"],"language_code":"english!"}`, "language_code"},
		{`{"queries":["a"],"site":"not a site"}`, "site"},
		{`{"queries":["a"],"max_items":3}`, "max_items"},
		{`[1]`, "arguments"},
	} {
		_, _, err := run(t, tl, context.Background(), tc.args)
		scrapertest.CheckArgError(t, err, tc.arg, tc.args)
	}
	if g.count.Load() != 0 {
		t.Fatalf("bad arguments reached Google %d times", g.count.Load())
	}
}

func TestSlowSiteGivesPartialResults(t *testing.T) {
	g := newStandIn(t)
	g.handle = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("start") != "" {
			select { // page 2 and later never come in time
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return true
		}
		return false
	}
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	items, _, err := run(t, tl, ctx, `{"queries":["slow"],"max_pages_per_query":3}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if len(items) != 1 || items[0].Page != 1 || len(items[0].OrganicResults) != 10 {
		t.Fatalf("items = %+v; want page 1 gathered before the deadline", items)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("returned %v after a 1.5s deadline", el)
	}
}

func TestCancelStopsUpstreamRequests(t *testing.T) {
	g := newStandIn(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	g.handle = func(w http.ResponseWriter, r *http.Request) bool {
		cancel(scrapers.ErrCancelled) // the first request cancels the call
		return false
	}
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	_, _, err := run(t, tl, ctx, `{"queries":["a","b","c","d","e"],"max_pages_per_query":10}`)
	if !errors.Is(err, scrapers.ErrCancelled) {
		t.Fatalf("err = %v, want ErrCancelled", err)
	}
	time.Sleep(100 * time.Millisecond)
	// The three workers may each have had one request in flight.
	if n := g.count.Load(); n > 3 {
		t.Fatalf("%d requests reached Google after the cancel", n)
	}
}

func TestProgressIsReported(t *testing.T) {
	g := newStandIn(t)
	g.lastPage = 1
	tl := tool(t, map[string]string{"GOOGLE_SEARCH_BASE_URL": g.URL})
	var mu sync.Mutex
	var last, total int
	call := scrapers.NewCall(func(msg string, done, tot int) {
		mu.Lock()
		last, total = max(last, done), tot
		mu.Unlock()
	})
	if err := tl.Run(context.Background(), call, json.RawMessage(`{"queries":["a","b"],"max_pages_per_query":4}`)); err != nil {
		t.Fatal(err)
	}
	if total != 8 || last != 8 {
		t.Fatalf("progress ended at %d of %d, want 8 of 8 (a query that ran out of results counts its remaining pages done)", last, total)
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"GOOGLE_SEARCH_PROVIDERS": "bing"}, "unknown provider"},
		{map[string]string{"GOOGLE_SEARCH_PROVIDERS": "searxng"}, "SEARXNG_URL is not set"},
		{map[string]string{"GOOGLE_SEARCH_PROVIDERS": " , "}, "names no provider"},
		{map[string]string{"SEARXNG_URL": "ftp://x"}, "SEARXNG_URL"},
		{map[string]string{"SEARXNG_URL": "http://admin:pw@searx:8080"}, "SEARXNG_URL"},
		{map[string]string{"GOOGLE_SEARCH_BASE_URL": "not a url"}, "GOOGLE_SEARCH_BASE_URL"},
	} {
		_, err := New(scrapertest.Env(tc.vars))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error saying %q", tc.vars, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("the error shows SEARXNG_URL's password: %v", err)
		}
	}
	p, err := newPlugin(scrapertest.Env(map[string]string{"SEARXNG_URL": "http://searx:8080"}))
	if err != nil || len(p.providers) != 2 || p.providers[0].name() != "google" || p.providers[1].name() != "searxng" {
		t.Fatalf("default order with SEARXNG_URL: %v %+v", err, p)
	}
	p, err = newPlugin(scrapertest.Env(nil))
	if err != nil || len(p.providers) != 1 || p.providers[0].name() != "google" {
		t.Fatalf("default order without SEARXNG_URL: %v %+v", err, p)
	}
}

func TestSchema(t *testing.T) {
	tl := tool(t, nil)
	b, err := json.Marshal(tl.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"queries"`, `"maxItems":20`, `"max_pages_per_query"`, `"maximum":10`, `"country_code"`, `"language_code"`, `"site"`, `"required":["queries"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("schema lacks %s: %s", want, s)
		}
	}
}

// A SearXNG answer has no Next link: a page with results has a cursor to the
// page after it by number, whatever results_per_page says.
func TestSearxngCursorNamesTheNextPage(t *testing.T) {
	sx, _ := searxStandIn(t, searxAnswer)
	tl := tool(t, map[string]string{"SEARXNG_URL": sx.URL, "GOOGLE_SEARCH_PROVIDERS": "searxng"})
	for _, perPage := range []int{10, 20} {
		args := fmt.Sprintf(`{"queries":["x"],"results_per_page":%d,"max_pages_per_query":2}`, perPage)
		items, out, err := run(t, tl, context.Background(), args)
		cursor, _ := out.Meta["next_cursor"].(string)
		if err != nil || len(items) != 2 || cursor == "" {
			t.Fatalf("%s: err %v, %d items, cursor %q", args, err, len(items), cursor)
		}
		args = fmt.Sprintf(`{"queries":["x"],"results_per_page":%d,"cursor":%q}`, perPage, cursor)
		items, _, err = run(t, tl, context.Background(), args)
		if err != nil || len(items) != 1 || items[0].Page != 3 || !strings.Contains(items[0].OrganicResults[0].URL, "/3/") {
			t.Errorf("%s: err %v, items %+v", args, err, items)
		}
	}
}
