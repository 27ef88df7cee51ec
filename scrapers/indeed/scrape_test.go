package indeed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// genCard is a generated job card.
func genCard(n int, q string) map[string]any {
	return map[string]any{
		"jobkey": jobKey(q, n), "title": fmt.Sprintf("%s %d", q, n), "company": fmt.Sprintf("Company %d", n%7),
		"formattedLocation": "Leeds", "formattedRelativeTime": "1 day ago", "snippet": "<ul><li>Work</li></ul>",
		"companyRating": 3.5, "companyReviewCount": n, "companyOverviewLink": fmt.Sprintf("/cmp/Company-%d", n%7),
	}
}

// jobKey is the key of generated job n of search q.
func jobKey(q string, n int) string {
	first := byte('0')
	if q != "" {
		first = q[0]
	}
	return fmt.Sprintf("%c%015x", first, n+1)
}

// standIn is a local Indeed: searches paging with start= like Indeed's
// (15 cards a page, start moving by 10, so pages overlap), job pages, blocks.
type standIn struct {
	t         testing.TB
	total     int // jobs a search finds
	slowAfter int // search pages answered before the site hangs (0: never)
	searches  atomic.Int32
	jobPages  atomic.Int32
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch r.URL.Path {
	case "/jobs":
		n := int(s.searches.Add(1))
		if s.slowAfter > 0 && n > s.slowAfter {
			<-r.Context().Done()
			return
		}
		switch q.Get("q") {
		case "blocked":
			w.WriteHeader(http.StatusForbidden)
			if b, err := scrapertest.ReadFixture("webpages/cloudflare-challenge-2025.html"); err == nil {
				w.Write(b)
			} else {
				w.Write(scrapertest.Testdata(s.t, "cloudflare.html"))
			}
			return
		case "captcha":
			w.Write(scrapertest.Testdata(s.t, "hcaptcha.html"))
			return
		case "real":
			b, err := scrapertest.ReadFixture("indeed/mosaic-jobcards.json") // never Skip off the test's goroutine
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Write(searchPage(b))
			return
		case "bakers":
			w.Write(scrapertest.Testdata(s.t, "search-page.html"))
			return
		}
		start, _ := strconv.Atoi(q.Get("start"))
		if start >= s.total { // Indeed repeats its last page
			start = max(0, s.total-15)
		}
		var results []any
		for i := start; i < start+15 && i < s.total; i++ {
			results = append(results, genCard(i, q.Get("q")))
		}
		cards, _ := json.Marshal(map[string]any{"metaData": map[string]any{"mosaicProviderJobCardsModel": map[string]any{"results": results}}})
		w.Write(searchPage(cards))
	case "/viewjob":
		s.jobPages.Add(1)
		jk := q.Get("jk")
		switch {
		case jk == "54f1f8af68d722d2":
			b, err := scrapertest.ReadFixture("indeed/viewjob-page.html")
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Write(b)
		case jk == "aaaa111122223333":
			w.Write(scrapertest.Testdata(s.t, "job-page.html"))
		case jk == "login":
			http.Redirect(w, r, "/auth?continue=%2Fviewjob", http.StatusFound)
		case jk == "gone" || jk == jobKey("gone", 1): // so is the page of the second job of a search for "gone"
			http.NotFound(w, r)
		default: // the own job page under another key
			w.Write(bytes.ReplaceAll(scrapertest.Testdata(s.t, "job-page.html"), []byte("aaaa111122223333"), []byte(jk)))
		}
	case "/auth":
		w.Write([]byte(`<html><body>Sign in to Indeed</body></html>`))
	default:
		http.NotFound(w, r)
	}
}

// serve starts s as the stand-in origin and builds the plugin against it.
func serve(t *testing.T, s *standIn) scrapers.Plugin {
	t.Helper()
	s.t = t
	return scrapertest.Serve(t, s, New, "INDEED_BASE_URL")
}

func TestSearchPagesToMaxItems(t *testing.T) {
	s := &standIn{total: 200}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"queries":["welder"],"location":"Leeds","country":"uk","max_items":42}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 42 {
		t.Fatalf("jobs = %d, want 42", len(got))
	}
	seen := map[any]bool{}
	for i, j := range got {
		if seen[j["job_key"]] {
			t.Fatalf("duplicate job %v", j["job_key"])
		}
		seen[j["job_key"]] = true
		if j["rank"] != float64(i+1) || j["search_query"] != "welder" || j["search_location"] != "Leeds" || !strings.HasPrefix(j["url"].(string), "https://uk.indeed.com/viewjob?jk=") {
			t.Fatalf("job %d = %v", i, j)
		}
		if j["title"] != fmt.Sprintf("welder %d", i) || j["company_details"] != nil || j["description"] != nil {
			t.Fatalf("job %d = %v", i, j)
		}
	}
	// 15 cards a page, start moving by 10: pages at 0, 10, 20, 30.
	if n := s.searches.Load(); n != 4 {
		t.Errorf("search pages = %d, want 4", n)
	}
	// A search with fewer results than max_items ends when pages repeat.
	s2 := &standIn{total: 23}
	o, err = scrapertest.RunTool(t, serve(t, s2), "scrape", `{"position":"welder","max_items":100}`, 10*time.Second)
	if err != nil || len(o.Items) != 23 || s2.searches.Load() != 3 {
		t.Errorf("jobs %d, pages %d, %v", len(o.Items), s2.searches.Load(), err)
	}
}

func TestSearchWithDetailsAndCompanies(t *testing.T) {
	s := &standIn{total: 5}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"queries":["welder"],"max_items":3,"include_details":true,"parse_company_details":true}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 3 || s.jobPages.Load() != 3 {
		t.Fatalf("jobs %d, job pages %d", len(got), s.jobPages.Load())
	}
	for _, j := range got {
		if !strings.HasPrefix(fmt.Sprint(j["description"]), "We bake everything by hand.") || j["company_details"] == nil {
			t.Errorf("job = %v", j)
		}
		cd := j["company_details"].(map[string]any)
		if cd["logo"] != "https://logos.example.test/crumb.png" || cd["rating"] != 4.4 {
			t.Errorf("company details = %v", cd)
		}
	}
}

func TestJobAndSearchURLs(t *testing.T) {
	p := serve(t, &standIn{total: 3})
	args := `{"urls":["https://au.indeed.com/viewjob?jk=54f1f8af68d722d2&from=serp","https://uk.indeed.com/rc/clk?jk=aaaa111122223333&bb=x",
		"https://uk.indeed.com/jobs?q=bakers&l=Leeds&sort=date&vjk=zzz"],"parse_company_details":true}`
	o, err := scrapertest.RunTool(t, p, "scrape", args, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	// Searches run first, then the job URLs in order.
	if len(got) != 4 || got[0]["title"] != "Head Baker" || got[1]["title"] != "Pastry Chef (nights)" || got[3]["title"] != "Head Baker" {
		t.Fatalf("items = %v", got)
	}
	if got[0]["url"] != "https://uk.indeed.com/viewjob?jk=aaaa111122223333" || got[0]["search_query"] != "bakers" || got[0]["search_location"] != "Leeds" {
		t.Errorf("first = %v", got[0])
	}
	if _, err := scrapertest.ReadFixture("indeed/viewjob-page.html"); err == nil {
		if got[2]["title"] != "Senior DevOps Engineer" || got[2]["url"] != "https://au.indeed.com/viewjob?jk=54f1f8af68d722d2" || got[2]["company_details"] == nil {
			t.Errorf("real job = %v", got[2])
		}
	}
}

func TestBlocks(t *testing.T) {
	p := serve(t, &standIn{total: 5})
	for _, c := range []struct{ args, kind string }{
		{`{"queries":["blocked"]}`, scrapers.BlockRobotCheck},
		{`{"queries":["captcha"]}`, scrapers.BlockCaptcha},
		{`{"urls":["https://www.indeed.com/viewjob?jk=login"]}`, scrapers.BlockLoginWall},
	} {
		_, err := scrapertest.RunTool(t, p, "scrape", c.args, 10*time.Second)
		var be *scrapers.BlockedError
		if !errors.As(err, &be) || be.Kind != c.kind || !strings.Contains(err.Error(), "Indeed") {
			t.Errorf("%s: err = %v, want an Indeed %s", c.args, err, c.kind)
		}
	}
	// Blocked after some jobs: they stay, the block is the failed source.
	o, err := scrapertest.RunTool(t, p, "scrape", `{"queries":["welder","blocked","other"],"max_items":2}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 3 || !strings.Contains(fmt.Sprint(got[2]["error"]), "robot check") || !o.Partial {
		t.Errorf("items %v partial %v", got, o.Partial)
	}
}

func TestDetailsFailureKeepsTheCard(t *testing.T) {
	p := serve(t, &standIn{total: 3})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"queries":["gone"],"include_details":true}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 3 || !o.Partial {
		t.Fatalf("jobs %d partial %v", len(got), o.Partial)
	}
	if got[1]["title"] != "gone 1" || !strings.Contains(fmt.Sprint(got[1]["details_error"]), "404") || got[1]["description"] != nil {
		t.Errorf("job without its page = %v", got[1])
	}
	if got[0]["description"] == nil || got[2]["description"] == nil || got[0]["details_error"] != nil {
		t.Errorf("jobs with pages = %v, %v", got[0], got[2])
	}
}

func TestJobURLFailures(t *testing.T) {
	p := serve(t, &standIn{total: 3})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.indeed.com/viewjob?jk=gone","https://www.indeed.com/viewjob?jk=aaaa111122223333"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 || !strings.Contains(fmt.Sprint(got[0]["error"]), "404") || got[1]["title"] != "Head Baker" || !o.Partial {
		t.Errorf("items %v", got)
	}
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.indeed.com/viewjob?jk=gone"]}`, 10*time.Second)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound {
		t.Errorf("err = %v", err)
	}
}

func TestSlowSiteGivesPartialAtDeadline(t *testing.T) {
	s := &standIn{total: 200, slowAfter: 1}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"queries":["welder"],"max_items":100}`, 700*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if len(o.Items) != 15 {
		t.Errorf("jobs before the deadline = %d, want the first page's 15", len(o.Items))
	}
}

func TestBadArguments(t *testing.T) {
	p := scrapertest.NewPlugin(t, New, map[string]string{"INDEED_BASE_URL": "http://127.0.0.1:1"})
	many := `"` + strings.Repeat(`q","`, 20) + `q"`
	for _, c := range []struct{ args, arg string }{
		{`{}`, "queries"},
		{`{"country":"uk"}`, "queries"},
		{`{"queries":[` + many + `]}`, "queries"},
		{`{"queries":[""]}`, "queries"},
		{`{"queries":["` + strings.Repeat("x", 201) + `"]}`, "queries"},
		{`{"position":"` + strings.Repeat("x", 201) + `"}`, "position"},
		{`{"queries":["a"],"country":"xx"}`, "country"},
		{`{"queries":["a"],"max_items":0}`, "max_items"},
		{`{"queries":["a"],"max_items":1000}`, "max_items"},
		{`{"urls":["https://www.linkedin.com/jobs/view/1"]}`, "urls"},
		{`{"urls":["https://www.indeed.com/cmp/Acme"]}`, "urls"},
		{`{"urls":["https://www.indeed.com/viewjob"]}`, "urls"},
		{`{"urls":["indeed.com/viewjob?jk=1"]}`, "urls"},
		{`{"urls":["https://indeed.com.evil.test/viewjob?jk=1"]}`, "urls"},
		{`{"queries":["a"],"include_details":"yes"}`, "include_details"},
		{`{"queries":["a"],"max_pages":2}`, "max_pages"},
	} {
		_, err := scrapertest.RunTool(t, p, "scrape", c.args, time.Second)
		scrapertest.CheckArgError(t, err, c.arg, c.args)
	}
}

func TestArgumentsPlanSearches(t *testing.T) {
	var a scrapeArgs
	if err := scrapers.DecodeArgs(json.RawMessage(`{"queries":["nurse"],"position":"Nurse","location":"Perth","country":"AU",
		"urls":["https://ca.indeed.com/q-barista-l-toronto-jobs.html","https://www.indeed.com/m/viewjob?jk=abc"]}`), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.searches) != 2 || !reflect.DeepEqual(a.searches[0], search{host: "au.indeed.com", q: "nurse", l: "Perth"}) {
		t.Errorf("searches = %+v (position equal to a query is not searched twice)", a.searches)
	}
	if s := a.searches[1]; s.host != "ca.indeed.com" || s.q != "barista" || s.l != "toronto" {
		t.Errorf("path search = %+v", s)
	}
	if len(a.jobURLs) != 1 || a.jobURLs[0] != "https://www.indeed.com/viewjob?jk=abc" {
		t.Errorf("job URLs = %v", a.jobURLs)
	}
	var loc scrapeArgs
	if err := scrapers.DecodeArgs(json.RawMessage(`{"location":"remote"}`), &loc); err != nil || len(loc.searches) != 1 || loc.searches[0].host != "www.indeed.com" {
		t.Errorf("location-only: %+v %v", loc.searches, err)
	}
}

func TestPluginShape(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "indeed" || len(p.Tools) != 1 || p.Tools[0].Name != "scrape" || p.Tools[0].Title != "Scrape Indeed" {
		t.Fatalf("plugin = %+v", p)
	}
	b, _ := json.Marshal(p.Tools[0].InputSchema)
	for _, want := range []string{`"max_items":{"type":"integer"`, `"maximum":100`, `"maxItems":20`, `"parse_company_details"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s: %s", want, b)
		}
	}
}
