package hostbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// Throughput is how many single-page crawls a replica completes a second
// when the sites are slow: Sites stand-in sites on loopback, each on an
// address of its own (127.0.0.2, 127.0.0.3, …), answering every page after
// a fixed latency; web-crawl as deployed (its politeness of two pages per
// site and a pause between them, the page budget's defaults). Each cell
// holds a number of calls in flight for a window and counts the pages done,
// beside the limit latency sets (calls in flight ÷ latency) and the limit
// the sites' politeness sets.
type Throughput struct {
	Sites     int             // stand-in sites [128]
	Latencies []time.Duration // page latencies [300ms, 1s]
	InFlight  []int           // calls in flight [8, 64, 256]
	Window    time.Duration   // measured per cell, after a warm-up of twice the latency [8s]
	PageBytes int             // the stand-in page's size [about 30 KB]
	// Before, when set, also measures a host with MAX_PAGES_IN_FLIGHT=8,
	// the fixed cap of pages in flight before the page budget, at 64 calls
	// in flight (or the most asked, when fewer) for each latency: the
	// change side by side in one run.
	Before bool
	// RedisURL, when set, is given to the host process as REDIS_URL: its
	// politeness and robots.txt are then kept in Redis, a round trip or two
	// per page (the fleet's cost, measured).
	RedisURL string
}

func (t *Throughput) defaults() {
	if t.Sites <= 0 {
		t.Sites = 128
	}
	if len(t.Latencies) == 0 {
		t.Latencies = []time.Duration{300 * time.Millisecond, time.Second}
	}
	if len(t.InFlight) == 0 {
		t.InFlight = []int{8, 64, 256}
	}
	if t.Window <= 0 {
		t.Window = 8 * time.Second
	}
	if t.PageBytes <= 0 {
		t.PageBytes = 30 << 10
	}
}

// ThroughputCell is one latency and number of calls in flight.
type ThroughputCell struct {
	Latency  time.Duration
	InFlight int
	Before   bool    // measured on a host with the old cap of 8 pages in flight
	Stats    Stats   // calls done in the window: pages/s, p50, p99, errors
	Limit    float64 // InFlight ÷ Latency, pages/s
	Polite   float64 // what the sites' politeness allows, pages/s
	RSS      uint64  // the host's largest RSS in the cell, bytes
	Cores    float64 // the host's CPU in the window, in cores (of GOMAXPROCS); -1 when unknown
	FirstErr string
}

// OfLimit is the share of the latency-bound limit done.
func (c ThroughputCell) OfLimit() float64 {
	if c.Limit == 0 {
		return 0
	}
	return c.Stats.PerSecond / c.Limit
}

// perHost and hostDelay are web-crawl's politeness as deployed, for the
// limit it sets.
var (
	perHost   = webcrawl.DefaultSettings().PerHost
	hostDelay = webcrawl.DefaultSettings().PerHostDelay
)

// RunThroughput measures every cell on one host: the pluginhost binary in
// its own process when command is set (its RSS is then the host's alone),
// else a host in this process.
func RunThroughput(ctx context.Context, t Throughput, command []string, w io.Writer) ([]ThroughputCell, error) {
	t.defaults()
	sites, err := startSlowSites(t.Sites, t.PageBytes)
	if err != nil {
		return nil, err
	}
	defer sites.close()

	endpoint, readRSS, readCPU, stop, err := throughputHost(ctx, command, 0, t.RedisURL)
	if err != nil {
		return nil, err
	}
	defer stop()
	where := "this process (host and clients)"
	if len(command) > 0 {
		where = "the host's own process"
	}
	if t.RedisURL != "" && len(command) > 0 {
		where += ", politeness and robots.txt in Redis"
	}
	fmt.Fprintf(w, "\nthroughput: single-page web-crawl.crawl calls over %d stand-in sites on loopback (%d pages in flight per site, %s between), pages of %d KB; RSS and CPU of %s, GOMAXPROCS=%d\n",
		t.Sites, perHost, hostDelay, len(sites.page)>>10, where, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "  %-8s %-11s %9s %9s %7s %10s %9s %9s %7s %8s %10s %12s\n", "latency", "in flight", "pages/s", "limit", "of it", "sites let", "p50", "p99", "errors", "RSS MB", "host cores", "CPU ms/page")
	var cells []ThroughputCell
	row := func(c ThroughputCell) {
		label := strconv.Itoa(c.InFlight)
		if c.Before {
			label += " (cap 8)"
		}
		perPage := 0.0
		if c.Stats.PerSecond > 0 && c.Cores >= 0 {
			perPage = 1000 * c.Cores / c.Stats.PerSecond
		}
		fmt.Fprintf(w, "  %-8s %-11s %9.1f %9.1f %6.0f%% %10.1f %9s %9s %7d %8.1f %10.2f %12.1f\n", c.Latency, label, c.Stats.PerSecond, c.Limit, 100*c.OfLimit(), c.Polite,
			c.Stats.P50.Round(time.Millisecond), c.Stats.P99.Round(time.Millisecond), c.Stats.Errors, float64(c.RSS)/(1<<20), c.Cores, perPage)
		if c.FirstErr != "" {
			fmt.Fprintf(w, "    first error: %.300s\n", c.FirstErr)
		}
	}
	// Each site's robots.txt is read on the host's first visit and kept for
	// 24 h (for the fleet with Redis): read them all first, timed apart, so
	// that the cells measure the steady state rather than first visits.
	if err := readRobots(ctx, endpoint, sites, t, w); err != nil {
		return nil, err
	}
	for _, lat := range t.Latencies {
		sites.latency.Store(int64(lat))
		for _, n := range t.InFlight {
			c, err := throughputCell(ctx, endpoint, sites, lat, n, t, readRSS, readCPU)
			if err != nil {
				return cells, err
			}
			cells = append(cells, c)
			row(c)
		}
	}
	if !t.Before {
		return cells, nil
	}
	// The old cap, on a host of its own, in the same run.
	endpoint, readRSS, readCPU, stop2, err := throughputHost(ctx, command, 8, t.RedisURL)
	if err != nil {
		return cells, err
	}
	defer stop2()
	n := t.InFlight[len(t.InFlight)-1]
	for _, k := range t.InFlight {
		if k == 64 {
			n = k
		}
	}
	for _, lat := range t.Latencies {
		sites.latency.Store(int64(lat))
		c, err := throughputCell(ctx, endpoint, sites, lat, n, t, readRSS, readCPU)
		if err != nil {
			return cells, err
		}
		c.Before = true
		cells = append(cells, c)
		row(c)
	}
	return cells, nil
}

// throughputHost starts the host the throughput is measured on: the
// pluginhost binary in its own process when command is set, else in this
// process; maxPages, when positive, is its MAX_PAGES_IN_FLIGHT. It returns
// web-crawl's endpoint, how to read the host's RSS, and how to stop it.
func throughputHost(ctx context.Context, command []string, maxPages int, redisURL string) (string, func() uint64, func() float64, func(), error) {
	if len(command) > 0 {
		var env []string
		if redisURL != "" {
			env = append(env, "REDIS_URL="+redisURL)
		}
		if maxPages > 0 {
			env = append(env, "MAX_PAGES_IN_FLIGHT="+strconv.Itoa(maxPages))
		}
		sub, err := startHost(ctx, command, env...)
		if err != nil {
			return "", nil, nil, nil, err
		}
		pid := strconv.Itoa(sub.cmd.Process.Pid)
		return sub.url + "/web-crawl/mcp", func() uint64 { return rss(pid) }, func() float64 { return sub.metric("process_cpu_seconds_total") }, sub.stop, nil
	}
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	cfg.RateLimitPerMinute, cfg.MaxConcurrentCalls = 0, 0
	cfg.MaxPagesInFlight = maxPages
	h, err := host.New(cfg, host.Options{Logger: quietLogger(), Plugins: []scrapers.Constructor{webcrawl.New}, Backend: license.Dev{}})
	if err != nil {
		return "", nil, nil, nil, err
	}
	srv := httptest.NewServer(h.Handler())
	return srv.URL + "/web-crawl/mcp", func() uint64 { return rss("self") }, selfCPU, srv.Close, nil
}

// selfCPU is this process's CPU time in seconds (user and system); -1 when
// it cannot be read.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// readRobots crawls one page of every site, 256 at once at the first
// latency, and says how long the host's first visits took (each reads the
// site's robots.txt before its page).
func readRobots(ctx context.Context, endpoint string, sites *slowSites, t Throughput, w io.Writer) error {
	if len(t.Latencies) > 0 {
		sites.latency.Store(int64(t.Latencies[0]))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxIdleConns: 256}}
	defer client.CloseIdleConnections()
	start := time.Now()
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for k := range sites.n() {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if crawlOne(ctx, client, endpoint, sites.url(k)+"/first-visit") != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	fmt.Fprintf(w, "  first visits (robots.txt, then the page) of the %d sites, 256 at once: %s, %d failed\n", sites.n(), time.Since(start).Round(time.Millisecond), failed.Load())
	return ctx.Err()
}

// throughputCell holds n calls in flight for a warm-up and the window; a
// call counts when it ends inside the window.
func throughputCell(ctx context.Context, endpoint string, sites *slowSites, lat time.Duration, n int, t Throughput, readRSS func() uint64, readCPU func() float64) (ThroughputCell, error) {
	c := ThroughputCell{Latency: lat, InFlight: n, Limit: float64(n) / lat.Seconds(),
		Polite: float64(sites.n()*perHost) / (lat + hostDelay).Seconds()}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxIdleConns: n}}
	defer client.CloseIdleConnections()
	warm := 2 * lat
	start := time.Now()
	from, to := start.Add(warm), start.Add(warm+t.Window)
	var (
		mu       sync.Mutex
		lat50    []time.Duration
		errs     int
		firstErr string
	)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cctx.Err() == nil && time.Now().Before(to) {
				// A page never asked before in the run: the host's result
				// cache must not answer it.
				k := sites.seq.Add(1)
				u := sites.url(int(k)) + "/page?n=" + strconv.FormatInt(k, 10)
				t0 := time.Now()
				err := crawlOne(cctx, client, endpoint, u)
				t1 := time.Now()
				if t1.Before(from) || t1.After(to) {
					continue
				}
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == "" {
						firstErr = err.Error()
					}
				} else {
					lat50 = append(lat50, t1.Sub(t0))
				}
				mu.Unlock()
			}
		}()
	}
	// The host's RSS, sampled through the cell, and its CPU in the window.
	var peak uint64
	cpu0, cpuAt := -1.0, time.Time{}
	tick := time.NewTicker(250 * time.Millisecond)
	for time.Now().Before(to) && ctx.Err() == nil {
		select {
		case <-tick.C:
			peak = max(peak, readRSS())
			if cpu0 < 0 && !time.Now().Before(from) {
				cpu0, cpuAt = readCPU(), time.Now()
			}
		case <-ctx.Done():
		}
	}
	tick.Stop()
	c.Cores = -1
	if cpu1 := readCPU(); cpu0 >= 0 && cpu1 >= cpu0 {
		c.Cores = (cpu1 - cpu0) / time.Since(cpuAt).Seconds()
	}
	cancel() // the calls still running are the next window's, not this one's
	wg.Wait()
	c.RSS = peak
	c.Stats = summarise(lat50, errs, t.Window)
	c.FirstErr = firstErr
	// Let the cancelled calls leave the host before the next cell.
	time.Sleep(lat + hostDelay + 200*time.Millisecond)
	return c, ctx.Err()
}

// crawlOne makes one single-page crawl as a light client would: one POST,
// the answer as JSON.
func crawlOne(ctx context.Context, c *http.Client, endpoint, page string) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crawl","arguments":{"start_urls":["` + page + `"]}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "License bench-key")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	switch {
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the host answered %s: %.200s", resp.Status, b)
	case bytes.Contains(b, []byte(`"isError":true`)) || !bytes.Contains(b, []byte(`"markdown"`)):
		return fmt.Errorf("the call failed: %.300s", b)
	}
	return nil
}

// slowSites are stand-in sites, each on a loopback address of its own,
// answering every page after the latency set.
type slowSites struct {
	servers []*http.Server
	urls    []string
	latency atomic.Int64
	seq     atomic.Int64 // pages asked so far in the run
	page    []byte
}

func startSlowSites(n, pageBytes int) (*slowSites, error) {
	s := &slowSites{page: standInPage(pageBytes)}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(time.Duration(s.latency.Load()))
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(s.page)))
		_, _ = w.Write(s.page)
	})
	for i := 0; i < n; i++ {
		// 127.0.0.2 onwards: every site a host of its own, as distinct
		// sites are; a system without them gets ports of 127.0.0.1.
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.%d.%d:0", (i+2)/250, (i+2)%250))
		if err != nil {
			if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				s.close()
				return nil, err
			}
		}
		srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		s.servers = append(s.servers, srv)
		s.urls = append(s.urls, "http://"+ln.Addr().String())
	}
	return s, nil
}

func (s *slowSites) n() int           { return len(s.urls) }
func (s *slowSites) url(k int) string { return s.urls[k%len(s.urls)] }

func (s *slowSites) close() {
	for _, srv := range s.servers {
		_ = srv.Close()
	}
}

// standInPage is an article of about n bytes: a title, a byline, headings,
// paragraphs with links, a list.
func standInPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A stand-in article</title><meta name="description" content="A page of the throughput bench"><meta name="author" content="Bench Writer"></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article><h1>A stand-in article</h1>`)
	for i := 0; b.Len() < n; i++ {
		if i%6 == 0 {
			fmt.Fprintf(&b, "<h2>Section %d</h2>", i/6+1)
		}
		fmt.Fprintf(&b, `<p>Paragraph %d of the article, with enough words to be kept as the main content of the page by the extractor, and a <a href="/page?link=%d">link to another page</a> of the same site.</p>`, i, i)
		if i%10 == 9 {
			b.WriteString("<ul><li>one item</li><li>another item</li><li>a third item</li></ul>")
		}
	}
	b.WriteString(`</article><footer>© Bench</footer></body></html>`)
	return []byte(b.String())
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// ParseDurations reads "300ms,1s".
func ParseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q is not a duration such as 300ms or 1s", f)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("no durations")
	}
	return out, nil
}

// ParseInts reads "8,64,256".
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no numbers")
	}
	slices.Sort(out)
	return out, nil
}
