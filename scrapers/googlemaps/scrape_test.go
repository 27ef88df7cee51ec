package googlemaps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// ownReview is a review item of a listugcposts answer ([0] the review).
func ownReview(n int) []any {
	el := sparse(6, map[int]any{
		0: "rev" + itoa(n),
		1: sparse(14, map[int]any{
			2:  float64(1_700_000_000_000_000 + n*1_000_000),
			3:  float64(1_700_000_000_000_000 + n*1_000_000),
			4:  sparse(6, map[int]any{5: []any{"Reviewer " + itoa(n), "https://lh3.example.test/" + itoa(n), []any{"https://www.google.com/maps/contrib/" + itoa(n)}, itoa(n)}}),
			6:  "a week ago",
			13: []any{"Google", nil, nil, nil, 5.0},
		}),
		2: sparse(16, map[int]any{0: []any{float64(1 + n%5)}, 14: []any{"en"}, 15: []any{[]any{"Review text " + itoa(n)}}}),
		4: sparse(4, map[int]any{3: []any{"https://www.google.com/maps/reviews/data=!rev" + itoa(n)}}),
	})
	return []any{el}
}

var (
	pbOffset = regexp.MustCompile(`!8i(\d+)`)
	pbCount  = regexp.MustCompile(`!7i(\d+)`)
	pbID     = regexp.MustCompile(`!1s([^!]+)`)
	pbToken  = regexp.MustCompile(`!2s([^!]*)`)
	pbSort   = regexp.MustCompile(`!13m1!1e(\d)`)
)

// mapsStandIn is a local Google Maps: generated search pages, place pages
// and review pages, block pages, and real fixtures when present.
type mapsStandIn struct {
	t          testing.TB
	places     int // places a search finds
	reviews    int // reviews a place has
	slowAfter  int // search or review requests answered before the site hangs (0: never)
	requests   atomic.Int32
	searches   atomic.Int32
	reviewReqs atomic.Int32
	mu         sync.Mutex
	sorts      []string
}

func (s *mapsStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pb := q.Get("pb")
	if r.URL.Path == "/search" || r.URL.Path == "/maps/rpc/listugcposts" {
		if n := int(s.requests.Add(1)); s.slowAfter > 0 && n > s.slowAfter {
			<-r.Context().Done()
			return
		}
	}
	switch {
	case r.URL.Path == "/search" && q.Get("tbm") == "map":
		s.searches.Add(1)
		if q.Get("q") == "blocked" {
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
			return
		}
		if q.Get("q") == "real coffee" {
			b, err := scrapertest.ReadFixture("googlemaps/search-output.json") // never Skip off the test's goroutine
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(")]}'\n"))
			w.Write(b)
			return
		}
		offset, _ := strconv.Atoi(firstMatch(pbOffset, pb))
		count, _ := strconv.Atoi(firstMatch(pbCount, pb))
		results := []any{sparse(11, map[int]any{10: []any{q.Get("q"), 0}})}
		for i := offset; i < offset+count && i < s.places; i++ {
			results = append(results, sparse(15, map[int]any{14: ownPlace(i)}))
		}
		writeXSSI(w, []any{[]any{q.Get("q"), results}})
	case r.URL.Path == "/sorry/index":
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(scrapertest.Testdata(s.t, "sorry.html"))
	case r.URL.Path == "/maps/place/Kipriakon":
		b, err := scrapertest.ReadFixture("googlemaps/place-raw.json")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(placePage(s.t, b))
	case r.URL.Path == "/maps/place/Busy":
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case r.URL.Path == "/maps/place/Consent":
		w.Write(scrapertest.Testdata(s.t, "consent.html"))
	case r.URL.Path == "/maps/place/Harbour+Bakery" || r.URL.Path == "/maps/place/Harbour Bakery":
		w.Write(scrapertest.Testdata(s.t, "place-page.html"))
	case r.URL.Path == "/maps/place/" && strings.HasPrefix(q.Get("q"), "place_id:ChIJown"):
		n, err := strconv.Atoi(strings.TrimLeft(strings.TrimPrefix(q.Get("q"), "place_id:ChIJown"), "0"))
		if err != nil {
			n = 0
		}
		page, _ := json.Marshal(sparse(7, map[int]any{6: ownPlace(n)}))
		w.Write(placePage(s.t, page))
	case r.URL.Path == "/maps/rpc/listugcposts":
		s.reviewReqs.Add(1)
		s.mu.Lock()
		s.sorts = append(s.sorts, firstMatch(pbSort, pb))
		s.mu.Unlock()
		if firstMatch(pbID, pb) == "0xdead:0xbeef" {
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
			return
		}
		page := 0
		if tok := firstMatch(pbToken, pb); tok != "" {
			page, _ = strconv.Atoi(strings.TrimPrefix(tok, "p"))
		}
		var items []any
		for i := page * reviewsPageSize; i < (page+1)*reviewsPageSize && i < s.reviews; i++ {
			items = append(items, ownReview(i))
		}
		var next any
		if (page+1)*reviewsPageSize < s.reviews {
			next = "p" + itoa(page+1)
		}
		writeXSSI(w, []any{nil, next, items})
	default:
		http.NotFound(w, r)
	}
}

func firstMatch(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

func writeXSSI(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Write([]byte(")]}'\n"))
	w.Write(b)
}

// serve starts s as the stand-in origin and builds the plugin against it.
func serve(t *testing.T, s *mapsStandIn) scrapers.Plugin {
	t.Helper()
	s.t = t
	return scrapertest.Serve(t, s, New, "GOOGLE_MAPS_BASE_URL")
}

func TestScrapeSearchPagesToMaxPlaces(t *testing.T) {
	s := &mapsStandIn{places: 95}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["cafe in Springfield"],"max_places":45,"country_code":"US"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 45 || s.searches.Load() != 3 {
		t.Fatalf("places %d, searches %d; want 45 and 3", len(got), s.searches.Load())
	}
	for i, m := range got {
		if m["rank"] != float64(i+1) || m["search_query"] != "cafe in Springfield" || m["name"] != ownPlace(i)[11] {
			t.Fatalf("place %d = %v", i, m)
		}
	}
	// All of a shorter listing: Google's last page has fewer than 20.
	s2 := &mapsStandIn{places: 95}
	o, err = scrapertest.RunTool(t, serve(t, s2), "scrape", `{"search_queries":["cafe"],"max_places":100}`, 10*time.Second)
	if err != nil || len(o.Items) != 95 || s2.searches.Load() != 5 {
		t.Errorf("places %d searches %d err %v", len(o.Items), s2.searches.Load(), err)
	}
}

func TestScrapeRealFixturesThroughStandIn(t *testing.T) {
	scrapertest.Fixture(t, "googlemaps/search-output.json")
	scrapertest.Fixture(t, "googlemaps/place-raw.json")
	p := serve(t, &mapsStandIn{})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["real coffee"],"urls":["https://www.google.com/maps/place/Kipriakon"],"max_places":50}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 21 || got[0]["name"] != "Dream Coffee" || got[20]["name"] != "Kipriakon" || got[20]["phone"] != "25 101555" {
		t.Fatalf("%d items: first %v last %v", len(got), got[0]["name"], got[len(got)-1])
	}
}

func TestScrapeURLsAndPlaceIDs(t *testing.T) {
	s := &mapsStandIn{places: 3}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://maps.google.com/maps/place/Harbour+Bakery","https://www.google.co.uk/maps/search/tea+rooms/@51.5,-0.12,14z"],
		"place_ids":["ChIJown00000000007"],"language":"de"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1+3+1 {
		t.Fatalf("items = %v", got)
	}
	if got[0]["name"] != "Harbour Bakery" || got[1]["search_query"] != "tea rooms" || got[4]["place_id"] != "ChIJown00000000007" {
		t.Errorf("items = %v", got)
	}
}

func TestReviewsPagesSortAndResolve(t *testing.T) {
	s := &mapsStandIn{reviews: 100}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "reviews", `{"urls":["https://www.google.com/maps/place/Joe/@40.7,-73.9,17z/data=!4m7!3m6!1s0x89c259ab3c1ef289:0x3b67a41175949f55!8m2"],
		"max_reviews":45,"sort_by":"newest"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 45 || s.reviewReqs.Load() != 3 {
		t.Fatalf("reviews %d requests %d", len(got), s.reviewReqs.Load())
	}
	for i, m := range got {
		if m["review_id"] != "rev"+itoa(i) || m["author"].(map[string]any)["name"] != "Reviewer "+itoa(i) || m["text"] != "Review text "+itoa(i) {
			t.Fatalf("review %d = %v", i, m)
		}
	}
	s.mu.Lock()
	sorts := strings.Join(s.sorts, ",")
	s.mu.Unlock()
	if sorts != "2,2,2" {
		t.Errorf("sort codes sent = %s, want newest (2) on every page", sorts)
	}
	// A place id is resolved through its page to the feature id first.
	s2 := &mapsStandIn{reviews: 3}
	o, err = scrapertest.RunTool(t, serve(t, s2), "reviews", `{"place_ids":["ChIJown00000000004"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got = scrapertest.Items(t, o)
	if len(got) != 3 || got[0]["place_name"] != ownPlace(4)[11] || !strings.Contains(got[0]["place_url"].(string), "ChIJown00000000004") {
		t.Errorf("reviews = %v", got)
	}
}

func TestBlocks(t *testing.T) {
	p := serve(t, &mapsStandIn{places: 5, reviews: 5})
	for _, c := range []struct{ tool, args, kind string }{
		{"scrape", `{"search_queries":["blocked"]}`, scrapers.BlockCaptcha},
		{"scrape", `{"urls":["https://www.google.com/maps/place/Consent"]}`, scrapers.BlockConsentWall},
		{"reviews", `{"place_ids":["0xdead:0xbeef"]}`, scrapers.BlockCaptcha},
		{"scrape", `{"urls":["https://www.google.com/maps/place/Busy"]}`, scrapers.BlockRateLimited},
	} {
		_, err := scrapertest.RunTool(t, p, c.tool, c.args, 10*time.Second)
		var be *scrapers.BlockedError
		if !errors.As(err, &be) || be.Kind != c.kind || !strings.Contains(err.Error(), "Google Maps") {
			t.Errorf("%s %s: err = %v, want a Google Maps %s", c.tool, c.args, err, c.kind)
		}
	}
	// After some places, a block is reported as the failed source and stops the call.
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["cafe","blocked","more"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 6 || !strings.Contains(fmt.Sprint(got[5]["error"]), "captcha") || !o.Partial {
		t.Errorf("items %v partial %v", got, o.Partial)
	}
}

func TestPerSourceFailures(t *testing.T) {
	p := serve(t, &mapsStandIn{places: 2})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.google.com/maps/place/Nowhere"],"search_queries":["cafe"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 3 || !o.Partial || got[0]["name"] == nil {
		t.Errorf("items %v partial %v", got, o.Partial)
	}
	if !strings.Contains(fmt.Sprint(got[2]["error"]), "404") || got[2]["url"] != "https://www.google.com/maps/place/Nowhere" {
		t.Errorf("failure item = %v", got[2])
	}
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.google.com/maps/place/Nowhere"]}`, 10*time.Second)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound {
		t.Errorf("err = %v", err)
	}
}

func TestSlowSiteGivesPartialAtDeadline(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"scrape", `{"search_queries":["cafe"],"max_places":100}`},
		{"reviews", `{"place_ids":["0x1:0x2"],"max_reviews":100}`},
	} {
		p := serve(t, &mapsStandIn{places: 100, reviews: 100, slowAfter: 1})
		o, err := scrapertest.RunTool(t, p, c.tool, c.args, 700*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the deadline", c.tool, err)
		}
		if len(o.Items) != 20 {
			t.Errorf("%s: items before the deadline = %d, want 20", c.tool, len(o.Items))
		}
	}
}

func TestBadArguments(t *testing.T) {
	p := scrapertest.NewPlugin(t, New, map[string]string{"GOOGLE_MAPS_BASE_URL": "http://127.0.0.1:1"})
	many := `"` + strings.Repeat(`q","`, 20) + `q"`
	for _, c := range []struct{ tool, args, arg string }{
		{"scrape", `{}`, "search_queries"},
		{"scrape", `{"search_queries":[` + many + `]}`, "search_queries"},
		{"scrape", `{"search_queries":["` + strings.Repeat("x", 301) + `"]}`, "search_queries"},
		{"scrape", `{"search_queries":[" "]}`, "search_queries"},
		{"scrape", `{"urls":["https://www.example.com/maps/place/x"]}`, "urls"},
		{"scrape", `{"urls":["https://www.google.com/search?q=x"]}`, "urls"},
		{"scrape", `{"urls":["javascript:alert(1)"]}`, "urls"},
		{"scrape", `{"place_ids":["short"]}`, "place_ids"},
		{"scrape", `{"place_ids":["ChIJ has spaces in it"]}`, "place_ids"},
		{"scrape", `{"search_queries":["a"],"max_places":0}`, "max_places"},
		{"scrape", `{"search_queries":["a"],"max_places":101}`, "max_places"},
		{"scrape", `{"search_queries":["a"],"language":"english!"}`, "language"},
		{"scrape", `{"search_queries":["a"],"country_code":"usa"}`, "country_code"},
		{"scrape", `{"search_queries":["a"],"max_reviews":3}`, "max_reviews"},
		{"reviews", `{}`, "urls"},
		{"reviews", `{"urls":["https://www.google.com/maps/search/coffee"]}`, "urls"},
		{"reviews", `{"place_ids":["ChIJabcdefghijk"],"max_reviews":501}`, "max_reviews"},
		{"reviews", `{"place_ids":["ChIJabcdefghijk"],"sort_by":"oldest"}`, "sort_by"},
		{"reviews", `{"place_ids":"ChIJabcdefghijk"}`, "place_ids"},
	} {
		_, err := scrapertest.RunTool(t, p, c.tool, c.args, time.Second)
		scrapertest.CheckArgError(t, err, c.arg, c.tool+" "+c.args)
	}
}

func TestPluginShape(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "google-maps" || len(p.Tools) != 2 || p.Tools[0].Name != "scrape" || p.Tools[0].Title != "Scrape Google Maps" ||
		p.Tools[1].Name != "reviews" || p.Tools[1].Title != "Google Maps reviews" {
		t.Fatalf("plugin = %+v", p)
	}
	b, _ := json.Marshal(p.Tools[1].InputSchema)
	for _, want := range []string{`"enum":["most_relevant","newest","highest","lowest"]`, `"maximum":500`, `"maxItems":20`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("reviews schema lacks %s: %s", want, b)
		}
	}
}
