package webcrawl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// The pages in flight across calls are bounded by the shared budget's
// count, not by a fixed number of web-crawl's own: with a budget of 3, eight
// single-page calls to eight sites fetch 3 pages at once, and every call
// still ends with its page.
func TestPagesInFlightFollowTheBudget(t *testing.T) {
	var now, most atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><article><p>%s</p></article></body></html>`, r.URL.Path, strings.Repeat("text of the page ", 30))
	}))
	defer srv.Close()
	budget := scrapers.NewPageBudget(3, 64<<20)
	st := testSettings()
	st.Pages = budget
	st.PerHost = 100 // one stand-in for all: the budget is what binds
	p := NewWithSettings(st)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{"start_urls": []string{fmt.Sprintf("%s/p%d", srv.URL, i)}})
			out, err := scrapertest.RunTool(t, p, "crawl", string(raw), 20*time.Second)
			if err == nil && (len(out.Items) != 1 || len(out.Failed) != 0) {
				err = fmt.Errorf("%d items, %d failed", len(out.Items), len(out.Failed))
			}
			errs <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for now.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n, s := now.Load(), budget.Stats(); n != 3 || s.Pages != 3 || s.Waits == 0 {
		t.Fatalf("%d pages at the site, budget %+v; want 3 and 3, the rest waiting", n, s)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if most.Load() != 3 {
		t.Fatalf("%d pages at once, budget 3", most.Load())
	}
	if s := budget.Stats(); s.Pages != 0 || s.Bytes != 0 {
		t.Fatalf("held after the calls: %+v", s)
	}
}

// Pages larger than the whole byte budget (their parse alone is more) still
// all come: the oldest page always gets room, so the pages never wait on
// each other, and while they are read and parsed they hold at most the
// budget and one page.
func TestPagesLargerThanTheBudgetAllCome(t *testing.T) {
	body := `<html><head><title>Big</title></head><body><article>` + strings.Repeat("<p>a paragraph of the big page, kept as its main content</p>", 6000) + `</article></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	const budgetBytes = 1 << 20 // one page's parse is about 3 MiB
	budget := scrapers.NewPageBudget(100, budgetBytes)
	st := testSettings()
	st.Pages = budget
	st.PerHost = 100
	var starts []string
	for i := range 6 {
		starts = append(starts, fmt.Sprintf("%s/big%d", srv.URL, i))
	}
	stop := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var most int64
		for {
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(time.Millisecond):
				most = max(most, budget.Stats().Bytes)
			}
		}
	}()
	items, err, _ := run(t, st, map[string]any{"start_urls": starts})
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 {
		t.Fatalf("%d pages came, want 6", len(items))
	}
	for _, it := range items {
		if it["error"] != nil {
			t.Errorf("%v: %v", it["url"], it["error"])
		}
	}
	if most, one := <-peak, parseCost(len(body)); most > budgetBytes+one || most < one {
		t.Fatalf("the pages held %d bytes at most; budget %d and one page's parse %d", most, budgetBytes, one)
	}
	if s := budget.Stats(); s.Pages != 0 || s.Bytes != 0 || s.Waits == 0 {
		t.Fatalf("after: %+v (pages must have waited for room)", s)
	}
}
