package webcrawl

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// Pages of four hosts that all redirect to one: that host still has at
// most PerHost (2) pages in flight, since a page's slot moves with its
// redirect; each page is fetched, and the first hosts' slots are given back
// when their answers are in.
func TestRedirectTakesTheTargetHostsSlot(t *testing.T) {
	var inFlight, peak atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(150 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p></article></body></html>`,
			r.URL.Path, r.URL.Path, strings.Repeat("The page's own words, for reading. ", 12))
	}))
	t.Cleanup(target.Close)
	var starts []string
	for i := range 4 {
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/from-"+fmt.Sprint(i)+r.URL.Path, http.StatusMovedPermanently)
		}))
		t.Cleanup(origin.Close)
		starts = append(starts, origin.URL+"/a", origin.URL+"/b")
	}
	s := testSettings()
	s.PerCall = 8
	items, err, _ := run(t, s, map[string]any{"start_urls": starts})
	if err != nil {
		t.Fatal(err)
	}
	if ok := scrapertest.Succeeded(items); len(ok) != len(starts) {
		t.Fatalf("%d of %d pages fetched: %v", len(ok), len(starts), items)
	}
	if p := peak.Load(); p > int64(s.PerHost) || p < 2 {
		t.Fatalf("the target host had %d pages in flight at once, want at most %d (and at least 2, or the test shows nothing)", p, s.PerHost)
	}
}

// Two hosts whose pages redirect each to the other: a fetch holds one slot
// at a time, so they never wait on each other, and every page comes back.
func TestRedirectsBetweenTwoHostsDoNotDeadlock(t *testing.T) {
	var a, b *httptest.Server
	handler := func(other **httptest.Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/go/") {
				http.Redirect(w, r, (*other).URL+"/final/"+strings.TrimPrefix(r.URL.Path, "/go/"), http.StatusFound)
				return
			}
			time.Sleep(100 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><article><p>%s</p></article></body></html>`,
				r.URL.Path, strings.Repeat("Words of the page. ", 20))
		}
	}
	a = httptest.NewServer(handler(&b))
	b = httptest.NewServer(handler(&a))
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	var starts []string
	for i := range 4 {
		starts = append(starts, fmt.Sprintf("%s/go/%d", a.URL, i), fmt.Sprintf("%s/go/%d", b.URL, i))
	}
	s := testSettings()
	s.PerCall = 8
	start := time.Now()
	items, err, _ := run(t, s, map[string]any{"start_urls": starts})
	if err != nil {
		t.Fatal(err)
	}
	if ok := scrapertest.Succeeded(items); len(ok) != len(starts) {
		t.Fatalf("%d of %d pages fetched in %v: %v", len(ok), len(starts), time.Since(start), items)
	}
}
