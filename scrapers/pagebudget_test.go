package scrapers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

func ExamplePageBudget() {
	b := scrapers.NewPageBudget(2, 1<<20) // two pages, 1 MiB between them
	ctx := context.Background()
	first, _ := b.Acquire(ctx, 64<<10)
	second, _ := b.Acquire(ctx, 64<<10)
	_ = first.Grow(ctx, 900<<10) // the oldest page always gets room

	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err := b.Acquire(short, 64<<10) // a third page waits for a place
	fmt.Println("third page:", err)
	err = second.Grow(short, 512<<10) // the second waits for bytes
	fmt.Println("second grows:", err)

	first.Release()
	fmt.Println("second grows after the first is done:", second.Grow(ctx, 512<<10))
	s := b.Stats()
	fmt.Println(s.Pages, "page,", s.Bytes>>10, "KiB held")
	second.Release()
	// Output:
	// third page: context deadline exceeded
	// second grows: context deadline exceeded
	// second grows after the first is done: <nil>
	// 1 page, 512 KiB held
}

func TestPageBudgetNilBoundsNothing(t *testing.T) {
	var b *scrapers.PageBudget
	h, err := b.Acquire(context.Background(), 1<<40)
	if err != nil || h != nil {
		t.Fatalf("nil budget: %v %v", h, err)
	}
	if err := h.Grow(context.Background(), 1<<50); err != nil {
		t.Fatal(err)
	}
	h.Release()
	if s := b.Stats(); s != (scrapers.PageBudgetStats{}) {
		t.Fatalf("nil stats %+v", s)
	}
}

// Many pages growing at once never pass the bytes by more than one page,
// never wait on each other for ever, and leave nothing held.
func TestPageBudgetUnderLoad(t *testing.T) {
	const maxBytes, page = 1 << 20, 256 << 10
	b := scrapers.NewPageBudget(64, maxBytes)
	var peak atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := b.Acquire(ctx, 16<<10)
			if err != nil {
				t.Error(err)
				return
			}
			defer h.Release()
			for n := int64(32 << 10); n <= page; n *= 2 {
				if err := h.Grow(ctx, n); err != nil {
					t.Error(err)
					return
				}
				s := b.Stats()
				for {
					p := peak.Load()
					if s.Bytes <= p || peak.CompareAndSwap(p, s.Bytes) {
						break
					}
				}
				if s.Pages > 64 {
					t.Errorf("%d pages in flight, limit 64", s.Pages)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > maxBytes+page {
		t.Fatalf("held %d bytes at most, limit %d and one page %d", p, maxBytes, page)
	}
	if s := b.Stats(); s.Pages != 0 || s.Bytes != 0 || s.Waits == 0 {
		t.Fatalf("after: %+v (waits must have happened)", s)
	}
}

// Fetchers of different sites that share a budget share its bound; when the
// call ends, a waiting request stops at once.
func TestFetchersShareThePageBudget(t *testing.T) {
	var now, most atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		fmt.Fprint(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	defer close(release)
	budget := scrapers.NewPageBudget(3, 64<<20)
	env := scrapers.Env{AllowPrivateNetworks: true, Pages: budget}
	var fetchers []*scrapers.Fetcher
	for _, id := range []string{"one", "two"} {
		f, err := scrapers.NewFetcher(env, scrapers.Site{ID: id, Origin: srv.URL, MaxConcurrent: 4, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		fetchers = append(fetchers, f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := fetchers[i%2].Get(ctx, srv.URL+"/p")
			errs <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for now.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if s := budget.Stats(); s.Pages != 3 || now.Load() != 3 {
		t.Fatalf("%d requests at the site, %d pages held; want 3 and 3 (four per site would allow 8)", now.Load(), s.Pages)
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a request ended with %v, want the call's cancellation", err)
		}
	}
	if most.Load() > 3 {
		t.Fatalf("%d requests at once, budget 3", most.Load())
	}
	if s := budget.Stats(); s.Pages != 0 || s.Bytes != 0 {
		t.Fatalf("held after the call: %+v", s)
	}
}

// A body read through a fetcher grows its page's hold to the body's size.
func TestFetcherGrowsItsHoldWithTheBody(t *testing.T) {
	body := strings.Repeat("y", 700<<10)
	seen := make(chan int64, 1)
	budget := scrapers.NewPageBudget(4, 64<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush() // no Content-Length: grown as it is read
		fmt.Fprint(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, body[len(body)/2:])
	}))
	defer srv.Close()
	f, err := scrapers.NewFetcher(scrapers.Env{AllowPrivateNetworks: true, Pages: budget}, scrapers.Site{ID: "big", Origin: srv.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go func() {
		var most int64
		defer func() { seen <- most }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			most = max(most, budget.Stats().Bytes)
			time.Sleep(time.Millisecond)
		}
	}()
	resp, err := f.Get(context.Background(), srv.URL)
	close(stop)
	if err != nil || len(resp.Body) != len(body) {
		t.Fatalf("%v, %d bytes", err, len(resp.Body))
	}
	if most := <-seen; most < int64(len(body)/2) {
		t.Fatalf("the page held at most %d bytes of the budget while reading %d", most, len(body))
	}
	if s := budget.Stats(); s.Pages != 0 || s.Bytes != 0 {
		t.Fatalf("held after the request: %+v", s)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "256MiB": 256 << 20, "1GiB": 1 << 30, "512 MB": 512e6, "64KiB": 64 << 10, "10B": 10} {
		if got, err := scrapers.ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1MiB", "1.5GiB", "9999999999GiB", "MiB"} {
		if _, err := scrapers.ParseBytes(in); err == nil || !strings.Contains(err.Error(), "256MiB") {
			t.Errorf("ParseBytes(%q): %v, want an error naming the form", in, err)
		}
	}
}

func TestDefaultPageMemoryIsAQuarterOfTheLimit(t *testing.T) {
	limit := scrapers.MemoryLimit()
	if limit <= 0 {
		t.Fatalf("memory limit %d", limit)
	}
	if got := scrapers.DefaultPageMemory(); got != max(limit/4, 64<<20) {
		t.Fatalf("default %d for a limit of %d", got, limit)
	}
}

// FuzzParseBytes: any text is a size or a clear error, never a panic; a
// size is never negative, and written back in bytes it reads the same.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "1", "256MiB", "1GiB", "512 MB", "64KiB", "10B", "", "-1", "1e9", "9223372036854775807", "1125899906842624", "GiB", " 7 KB "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := scrapers.ParseBytes(s)
		if err != nil {
			if !strings.Contains(err.Error(), "256MiB") {
				t.Fatalf("ParseBytes(%q): an error that does not show the form: %v", s, err)
			}
			return
		}
		if n < 0 || n > 1<<50 {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
		if back, err := scrapers.ParseBytes(strconv.FormatInt(n, 10)); err != nil || back != n {
			t.Fatalf("ParseBytes(%q) = %d, which reads back as %d, %v", s, n, back, err)
		}
	})
}
