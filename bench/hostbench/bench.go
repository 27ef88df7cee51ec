// Package hostbench measures the plugin host: MCP calls through the host
// against the same tool on a bare MCP server (no license, registry or call
// bookkeeping), side by side in one run, and memory with many calls in
// flight. `pluginhost bench` runs it.
package hostbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// Options of a run. Zero values take the defaults in brackets.
type Options struct {
	Clients  int // concurrent MCP clients [32]
	Calls    int // calls per client per measure [40]
	Warmup   int // calls per client before measuring [5]
	InFlight int // calls held in flight for the memory measure [1000]; <0 skips it
	Rounds   int // alternating host/bare rounds [3]
	// Replicas is how many cancels are measured across three replicas on
	// Redis [100]; <0 skips it.
	Replicas int
	// SkipUsage skips the cost of counting usage (usage.go).
	SkipUsage bool
	// SkipCalls skips the side-by-side host and bare measures of
	// tools/list and crawl (and the license check).
	SkipCalls bool
	// HostCommand, when set, runs the host for the memory measure in its own
	// process (the pluginhost binary and its arguments, e.g. [self, "serve"]),
	// so that its RSS is the host's alone, without the bench's clients.
	HostCommand []string
	Timeout     time.Duration // whole run [10m]

	// The raw HTTP/1.1 load of tools/list and initialize (listings.go) on
	// the host, the bare Go SDK server, the TypeScript SDK server and the
	// floor.
	Connections  int           // keep-alive connections [32]
	Duration     time.Duration // per server and method in each round [2s]
	LoadRequests int           // requests per connection instead of Duration (0: Duration)
	SkipTS       bool          // leave the TypeScript SDK server out
	TSDir        string        // host/tsclient with node_modules ["": found from the working directory]
	// Throughput is the single-page crawls a replica completes over slow
	// sites (throughput.go); Throughput.Sites < 0 skips it.
	Throughput Throughput
	// CacheReplay is how many calls are replayed with 50% repeats across
	// three replicas on one Redis (cacheredis.go) [200]; <0 skips it and
	// the cache hit on Redis.
	CacheReplay int
	// Fleet is the politeness five stand-in sites see from three replicas
	// (fleet.go); Fleet.Calls < 0 skips it.
	Fleet Fleet
	// Footprint is what a replica costs at rest, per call in flight and for
	// its first PDF (footprint.go), measured on HostCommand's binary.
	Footprint Footprint
}

func (o *Options) defaults() {
	if o.Clients <= 0 {
		o.Clients = 32
	}
	if o.Calls <= 0 {
		o.Calls = 40
	}
	if o.Warmup <= 0 {
		o.Warmup = 5
	}
	if o.InFlight == 0 {
		o.InFlight = 1000
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Replicas == 0 {
		o.Replicas = 100
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.CacheReplay == 0 {
		o.CacheReplay = 200
	}
	o.loadDefaults()
}

// Stats summarise one measure.
type Stats struct {
	Calls     int
	Errors    int
	Elapsed   time.Duration
	P50, P99  time.Duration
	PerSecond float64
}

func summarise(lat []time.Duration, errors int, elapsed time.Duration) Stats {
	s := Stats{Calls: len(lat), Errors: errors, Elapsed: elapsed, P50: pct(lat, 50), P99: pct(lat, 99)}
	if len(lat) > 0 {
		s.PerSecond = float64(len(lat)) / elapsed.Seconds()
	}
	return s
}

func (s Stats) String() string {
	return fmt.Sprintf("%6d calls %4d errors %8.0f calls/s  p50 %8s  p99 %8s", s.Calls, s.Errors, s.PerSecond, s.P50.Round(10*time.Microsecond), s.P99.Round(10*time.Microsecond))
}

// Report is what a run measured.
type Report struct {
	HostList, BareList   Stats
	HostCrawl, BareCrawl Stats
	// CacheHit is the same crawl asked again and again of the host: every
	// call but the first answered from its result cache (in memory);
	// CacheHitRedis the same on a host whose cache is in Redis.
	CacheHit, CacheHitRedis Stats
	// CacheHitAlone and CacheHitRedisAlone are the same with one client.
	CacheHitAlone, CacheHitRedisAlone Stats
	CacheHitRedisFaults               int // Redis commands of that measure that fell back to memory
	// Replay is the upstream requests saved by the cache in a replay with
	// repeats across three replicas on one Redis.
	Replay ReplayReport
	// Fleet is what a few sites saw from three replicas, alone and on Redis.
	Fleet FleetReport
	// Lists are tools/list and initialize under the raw HTTP load on the
	// host, bare, TypeScript and floor servers.
	Lists       []ListReport
	CachedCheck time.Duration // mean of a cached license check
	InFlight    int
	InFlightRSS uint64 // bytes, whole process, with the calls held
	BaselineRSS uint64
	// InFlightWhere is whose RSS that is: the host's own process, or this
	// whole process (host and clients) without HostCommand.
	InFlightWhere string
	// InFlightGoroutines is goroutines per call held, above the baseline,
	// in the same process.
	InFlightGoroutines float64
	Replicas           ReplicaReport
	Throughput         []ThroughputCell
	Usage              UsageReport
	Footprint          []FootprintRow
}

// Run measures and writes a report to w.
func Run(ctx context.Context, opts Options, w io.Writer) (Report, error) {
	opts.defaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var rep Report
	site := newSite()
	defer site.Close()
	page := site.URL + "/page"
	env := map[string]string{}
	quiet := slog.New(slog.DiscardHandler)

	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	cfg.RateLimitPerMinute = 0
	cfg.MaxConcurrentCalls = 0
	cfg.Getenv = func(k string) string { return env[k] }
	// A stand-in Keygen: every key valid; after the first check each call's
	// license check is answered from the cache, as in production.
	h, err := host.New(cfg, host.Options{Logger: quiet, Plugins: []scrapers.Constructor{benchCrawl}, Backend: license.Dev{}})
	if err != nil {
		return rep, err
	}
	hostSrv := httptest.NewServer(h.Handler())
	defer hostSrv.Close()
	listed, err := hostTools(ctx, hostSrv.URL+"/web-crawl/mcp")
	if err != nil {
		return rep, err
	}
	bareSrv := httptest.NewServer(bareHandler(listed))
	defer bareSrv.Close()

	fmt.Fprintf(w, "pluginhost bench: %d clients, %d calls each per measure, %d rounds alternating host and bare, GOMAXPROCS=%d\n",
		opts.Clients, opts.Calls, opts.Rounds, runtime.GOMAXPROCS(0))
	hostURL, bareURL := hostSrv.URL+"/web-crawl/mcp", bareSrv.URL+"/mcp"
	crawlArgs := uniquePages(page)
	if !opts.SkipCalls {
		if rep.Lists, err = Listings(ctx, opts, hostURL, bareURL, w); err != nil {
			return rep, err
		}
		if err := sideBySide(ctx, h, opts, hostURL, bareURL, crawlArgs, &rep, w); err != nil {
			return rep, err
		}
		if err := CacheHits(ctx, opts, hostURL, page+"?n=cached", rep.HostCrawl, &rep, w); err != nil {
			return rep, fmt.Errorf("the cache hit measure: %w", err)
		}
	}
	if opts.InFlight > 0 {
		if err := inFlight(ctx, opts, h, hostURL, site, &rep, w); err != nil {
			return rep, err
		}
	}
	if !opts.Footprint.Skip && len(opts.HostCommand) > 0 {
		rows, err := RunFootprint(ctx, opts.Footprint, opts.HostCommand[0], w)
		rep.Footprint = rows
		if err != nil {
			return rep, fmt.Errorf("the footprint measure: %w", err)
		}
	}
	if opts.Throughput.Sites >= 0 {
		cells, err := RunThroughput(ctx, opts.Throughput, opts.HostCommand, w)
		rep.Throughput = cells
		if err != nil {
			return rep, fmt.Errorf("the throughput measure: %w", err)
		}
	}
	if opts.Replicas > 0 {
		rr, err := Replicas(ctx, opts.Replicas, w)
		if err != nil {
			return rep, fmt.Errorf("the replica measure: %w", err)
		}
		rep.Replicas = rr
	}
	if opts.CacheReplay > 0 {
		rr, err := Replay(ctx, opts.CacheReplay, w)
		if err != nil {
			return rep, fmt.Errorf("the cache replay: %w", err)
		}
		rep.Replay = rr
	}
	if opts.Fleet.Calls >= 0 {
		url, stop, err := redisURL()
		if err != nil {
			return rep, fmt.Errorf("the fleet measure: %w", err)
		}
		fr, err := RunFleet(ctx, opts.Fleet, url, w)
		stop()
		rep.Fleet = fr
		if err != nil {
			return rep, fmt.Errorf("the fleet measure: %w", err)
		}
	}
	if !opts.SkipUsage {
		ur, err := UsageCost(ctx, opts, w)
		if err != nil {
			return rep, fmt.Errorf("the usage measure: %w", err)
		}
		rep.Usage = ur
	}
	rep.summary(opts, w)
	return rep, nil
}

// sideBySide measures tools/list and crawl on the host and the bare server,
// alternating rounds, and a cached license check.
func sideBySide(ctx context.Context, h *host.Host, opts Options, hostURL, bareURL string, crawlArgs func() map[string]any, rep *Report, w io.Writer) error {
	var hl, bl, hc, bc []time.Duration
	var hle, ble, hce, bce int
	var hlt, blt, hct, bct time.Duration
	for round := 0; round < opts.Rounds; round++ {
		for _, m := range []struct {
			url   string
			lat   *[]time.Duration
			errs  *int
			total *time.Duration
		}{
			{hostURL, &hl, &hle, &hlt}, {bareURL, &bl, &ble, &blt},
		} {
			lat, errs, elapsed, err := drive(ctx, m.url, "", crawlArgs, nil, opts)
			if err != nil {
				return err
			}
			*m.lat = append(*m.lat, lat...)
			*m.errs += errs
			*m.total += elapsed
		}
		// Crawls go round host and bare within each client, so that the
		// machine's drift (other work on its two cores) falls on both
		// alike; each side's time is its share of the round's.
		lat, errs, elapsed, err := driveInterleaved(ctx, []string{hostURL, bareURL}, "crawl", crawlArgs, opts)
		if err != nil {
			return err
		}
		hs, bs := sum(lat[0]), sum(lat[1])
		if hs+bs > 0 {
			hct += time.Duration(float64(elapsed) * float64(hs) / float64(hs+bs))
			bct += time.Duration(float64(elapsed) * float64(bs) / float64(hs+bs))
		}
		hc, bc = append(hc, lat[0]...), append(bc, lat[1]...)
		hce, bce = hce+errs[0], bce+errs[1]
	}
	rep.HostList, rep.BareList = summarise(hl, hle, hlt), summarise(bl, ble, blt)
	rep.HostCrawl, rep.BareCrawl = summarise(hc, hce, hct), summarise(bc, bce, bct)
	fmt.Fprintf(w, "\ntools/list\n  host  %s\n  bare  %s\n  host/bare p50 %.3f  p99 %.3f  calls/s %.3f\n",
		rep.HostList, rep.BareList, ratio(rep.HostList.P50, rep.BareList.P50), ratio(rep.HostList.P99, rep.BareList.P99), rep.HostList.PerSecond/rep.BareList.PerSecond)
	fmt.Fprintf(w, "\nweb-crawl.crawl of one page (each client's calls alternate host and bare)\n  host  %s\n  bare  %s\n  host/bare p50 %.3f (target ≤ 1.10)  p99 %.3f  calls/s %.3f\n",
		rep.HostCrawl, rep.BareCrawl, ratio(rep.HostCrawl.P50, rep.BareCrawl.P50), ratio(rep.HostCrawl.P99, rep.BareCrawl.P99), rep.HostCrawl.PerSecond/rep.BareCrawl.PerSecond)

	// A cached license check, measured directly.
	ch := h.Checker()
	ch.Check(ctx, "bench-key")
	const n = 200000
	start := time.Now()
	for i := 0; i < n; i++ {
		ch.Check(ctx, "bench-key")
	}
	rep.CachedCheck = time.Since(start) / n
	fmt.Fprintf(w, "\ncached license check: %s per check (target ≤ 20µs)\n", rep.CachedCheck)

	return nil
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// drive runs opts.Clients clients, each with its own session, making
// opts.Calls calls (tools/list when tool is "") after a warm-up.
func drive(ctx context.Context, endpoint, tool string, args func() map[string]any, check func(*mcp.CallToolResult) error, opts Options) ([]time.Duration, int, time.Duration, error) {
	sessions := make([]*mcp.ClientSession, opts.Clients)
	for i := range sessions {
		cs, err := mcpdial.Connect(ctx, endpoint, "bench-key", nil, nil, nil)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("connecting to %s: %w", endpoint, err)
		}
		sessions[i] = cs
		defer cs.Close()
	}
	// tools/list goes as a plain POST, the same for host and bare: the SDK
	// client would answer repeats from its own list cache (the host sends a
	// cache lifetime), measuring nothing.
	lister := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: opts.Clients}}
	defer lister.CloseIdleConnections()
	one := func(cs *mcp.ClientSession) error {
		if tool == "" {
			return listTools(ctx, lister, endpoint)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args()})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		if err == nil && check != nil {
			err = check(res)
		}
		return err
	}
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < opts.Warmup; i++ {
				_ = one(cs)
			}
		}()
	}
	wg.Wait()
	var mu sync.Mutex
	lat := make([]time.Duration, 0, opts.Clients*opts.Calls)
	var errs atomic.Int64
	start := time.Now()
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, opts.Calls)
			for i := 0; i < opts.Calls; i++ {
				t0 := time.Now()
				if err := one(cs); err != nil {
					errs.Add(1)
					continue
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return lat, int(errs.Load()), time.Since(start), ctx.Err()
}

// benchCrawl is web-crawl with its politeness bounds (pages per host, in
// flight, the pause between a host's pages) lifted, for host and bare
// alike: every call of the bench goes to one local site, and those bounds
// would measure web-crawl's queue rather than the call.
func benchCrawl(env scrapers.Env) (scrapers.Plugin, error) {
	s := webcrawl.DefaultSettings()
	s.AllowPrivate, s.Upstream = env.AllowPrivateNetworks, env.Upstream
	s.PerHost, s.PerCall, s.MaxInFlight, s.PerHostDelay = 1024, 4, 1024, 0
	return webcrawl.NewWithSettings(s), nil
}

// listTools makes one tools/list request as a light client would (no
// session, no initialize: the servers are stateless) and reads the answer.
func listTools(ctx context.Context, c *http.Client, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "License bench-key")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
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
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"tools"`) {
		return fmt.Errorf("tools/list answered %s: %.200s", resp.Status, b)
	}
	return nil
}

// uniquePages gives a crawl of page with a query of its own each time, so
// that no call is answered by the host's result cache (which would measure
// the cache, not the call): host and bare fetch every page.
func uniquePages(page string) func() map[string]any {
	var n atomic.Int64
	return func() map[string]any {
		return map[string]any{"start_urls": []string{page + "?n=" + strconv.FormatInt(n.Add(1), 10)}}
	}
}

// bareHandler serves web-crawl's crawl tool on a bare SDK server: no
// license, no call registry, no progress or result bookkeeping. It lists the
// same tools as the host's server (listed, as the host lists them), so that
// tools/list answers are the same size; only crawl does any work.
func bareHandler(listed []*mcp.Tool) http.Handler {
	p, _ := benchCrawl(scrapers.Env{AllowPrivateNetworks: true})
	t := p.Tools[0]
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	for _, tool := range listed {
		if tool.Name != t.Name {
			srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not served by the bare server"}}}, nil
			})
			continue
		}
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			call := scrapers.NewCall(nil)
			if err := t.Run(ctx, call, req.Params.Arguments); err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			out := call.Snapshot()
			b, _ := json.Marshal(map[string]any{"items": out.Items})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
		})
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// hostTools lists the host's tools for endpoint.
func hostTools(ctx context.Context, endpoint string) ([]*mcp.Tool, error) {
	cs, err := mcpdial.Connect(ctx, endpoint, "bench-key", nil, nil, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// site is the stand-in web site: /page answers at once, /slow holds the
// request until released.
type site struct {
	*httptest.Server
	held    atomic.Int64
	release chan struct{}
}

func newSite() *site {
	s := &site{release: make(chan struct{})}
	body := `<!doctype html><html lang="en"><head><title>Bench page</title><meta name="description" content="A page for the bench"></head><body><article><h1>Bench</h1>` +
		strings.Repeat(`<p>A paragraph of text that the extractor keeps as the page's main content, with a <a href="/next">link</a>.</p>`, 20) + `</article></body></html>`
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			s.held.Add(1)
			defer s.held.Add(-1)
			select {
			case <-s.release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	}))
	s.Server.Config.MaxHeaderBytes = 1 << 16
	s.Start()
	return s
}

// inFlight holds n crawl calls in flight against the slow page and reads the
// host's resident memory: the host subprocess's when HostCommand is set, else
// this whole process's (clients included).
func inFlight(ctx context.Context, opts Options, h *host.Host, endpoint string, s *site, rep *Report, w io.Writer) error {
	n := opts.InFlight
	readRSS := func() uint64 { return rss("self") }
	where := "this process (host and clients together)"
	inflight := func() int { return h.InFlight() }
	figures := func() string { return "" }
	goroutines := func() float64 { return float64(runtime.NumGoroutine()) }
	var profile func(path string) error
	if len(opts.HostCommand) > 0 {
		sub, err := startHost(ctx, opts.HostCommand)
		if err != nil {
			return err
		}
		defer sub.stop()
		endpoint = sub.url + "/web-crawl/mcp"
		pid := strconv.Itoa(sub.cmd.Process.Pid)
		readRSS = func() uint64 { return rss(pid) }
		where = "the host's own process"
		inflight = func() int { return int(sub.metric("pluginhost_tool_calls_in_flight")) }
		figures = sub.runtimeFigures
		goroutines = func() float64 { return sub.metric("go_goroutines") }
		profile = sub.saveProfiles
	}
	runtime.GC()
	rep.BaselineRSS = readRSS()
	baseG := goroutines()
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := mcpdial.Connect(ctx, endpoint, "bench-"+strconv.Itoa(i%50), nil, nil, tr)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			// A page of its own: identical calls would share one run.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{s.URL + "/slow?n=" + strconv.Itoa(i)}}}); err != nil {
				errs <- err
			}
		}()
	}
	// Every call is in flight in the host once it counts n; web-crawl's
	// own bounds (pages in flight per host and in all) let only a few of
	// them reach the site, the rest wait their turn inside the crawl.
	deadline := time.Now().Add(2 * time.Minute)
	for inflight() < n && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the last calls reach their wait
	rep.InFlight, rep.InFlightWhere = inflight(), where
	rep.InFlightRSS = readRSS()
	if rep.InFlight > 0 {
		rep.InFlightGoroutines = (goroutines() - baseG) / float64(rep.InFlight)
	}
	fmt.Fprintf(w, "\n%d crawl calls in flight against a slow site (%d of them fetching, the rest held by web-crawl's bounds): RSS of %s %.1f MB (before: %.1f MB; target ≤ 120 MB)\n",
		rep.InFlight, s.held.Load(), where, float64(rep.InFlightRSS)/(1<<20), float64(rep.BaselineRSS)/(1<<20))
	if rep.InFlight > 0 {
		fmt.Fprintf(w, "  per call in flight: %.0f KB of RSS above the baseline\n", float64(int64(rep.InFlightRSS)-int64(rep.BaselineRSS))/float64(rep.InFlight)/1024)
	}
	if f := figures(); f != "" {
		fmt.Fprintf(w, "  host process: %s\n", f)
	}
	if dir := os.Getenv("PLUGINHOST_BENCH_PROFILES"); dir != "" && profile != nil {
		if err := profile(dir); err != nil {
			fmt.Fprintf(w, "  profiles not saved: %v\n", err)
		} else {
			fmt.Fprintf(w, "  heap and goroutine profiles of the host with the calls held: %s\n", dir)
		}
	}
	close(s.release)
	wg.Wait()
	close(errs)
	failed := 0
	var firstErr error
	for err := range errs {
		if firstErr == nil {
			firstErr = err
		}
		failed++
	}
	if failed > 0 {
		fmt.Fprintf(w, "  %d of the held calls failed (the first: %v)\n", failed, firstErr)
	}
	return nil
}

// rss is a process's resident set size in bytes (Linux), 0 elsewhere.
func rss(pid string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// sum is the total of the latencies.
func sum(lat []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range lat {
		t += d
	}
	return t
}
