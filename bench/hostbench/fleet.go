package hostbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// Fleet is the politeness a few sites see from three replicas together:
// Calls single-page web-crawl.crawl calls, InFlight at once, spread round
// robin over three hosts in this process and over five stand-in sites on
// loopback, each counting its pages in flight and the starts of its pages.
// It runs twice in one run: "alone", each replica keeping its own
// politeness (as before REDIS_URL shared it), and "fleet", the three on one
// Redis. The sites: two plain ones, one whose robots.txt asks Crawl-delay:
// 1, one whose robots.txt disallows /private/ (a quarter of its calls ask
// there), and one that answers its first page 429 with Retry-After: 3.
type Fleet struct {
	Calls    int           // single-page calls [96]
	InFlight int           // calls in flight [48]
	Latency  time.Duration // each page's [150ms]
}

// FleetSite is what one stand-in site saw in one run.
type FleetSite struct {
	Name        string
	LimitFlight int     // pages in flight one replica allows
	LimitRate   float64 // pages a second one replica allows
	Peak        int     // most pages in flight at once
	Rate        float64 // most pages started in any one second
	Robots      int     // robots.txt fetches
	Refused     int     // fetches of paths robots.txt disallows
	DuringHold  int     // pages asked while its Retry-After held (the 429 site)
	Pages       int     // pages served
}

// FleetReport is the two runs.
type FleetReport struct {
	Alone, Fleet []FleetSite
	Failed       [2]int // calls whose page failed for another reason than robots.txt or a hold
}

type fleetSite struct {
	*httptest.Server
	name    string
	robots  string
	latency time.Duration
	retry   bool

	mu       sync.Mutex
	cur      int
	peak     int
	starts   []time.Time
	robotsN  int
	refused  int
	heldTill time.Time
	inHold   int
}

func newFleetSite(name, robots string, latency time.Duration, retry bool) *fleetSite {
	s := &fleetSite{name: name, robots: robots, latency: latency, retry: retry}
	page := standInPage(8 << 10)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.mu.Lock()
			s.robotsN++
			s.mu.Unlock()
			if s.robots == "" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, s.robots)
			return
		}
		now := time.Now()
		s.mu.Lock()
		if strings.HasPrefix(r.URL.Path, "/private/") {
			s.refused++
		}
		if now.Before(s.heldTill) {
			s.inHold++
		}
		first := s.retry && len(s.starts) == 0
		s.starts = append(s.starts, now)
		s.cur++
		s.peak = max(s.peak, s.cur)
		if first {
			s.heldTill = now.Add(3 * time.Second)
		}
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.cur--; s.mu.Unlock() }()
		if first {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		time.Sleep(s.latency)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	}))
	return s
}

// report is what the site saw; limitRate is what one replica allows.
func (s *fleetSite) report(limitFlight int, limitRate float64) FleetSite {
	s.mu.Lock()
	defer s.mu.Unlock()
	starts := slices.Clone(s.starts)
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	best := 0
	for i, j := 0, 0; i < len(starts); i++ {
		// 950 ms: a page a second apart, as Crawl-delay: 1 asks, is not two
		// in a second for a few milliseconds of clocks.
		for j < len(starts) && starts[j].Sub(starts[i]) < 950*time.Millisecond {
			j++
		}
		best = max(best, j-i)
	}
	return FleetSite{Name: s.name, LimitFlight: limitFlight, LimitRate: limitRate, Peak: s.peak, Rate: float64(best),
		Robots: s.robotsN, Refused: s.refused, DuringHold: s.inHold, Pages: len(s.starts)}
}

// RunFleet runs the fleet measure on the Redis at redisURL.
func RunFleet(ctx context.Context, f Fleet, redisURL string, w io.Writer) (FleetReport, error) {
	if f.Calls <= 0 {
		f.Calls = 96
	}
	if f.InFlight <= 0 {
		f.InFlight = 48
	}
	if f.Latency <= 0 {
		f.Latency = 150 * time.Millisecond
	}
	var rep FleetReport
	d := webcrawl.DefaultSettings()
	pageRate := float64(d.PerHost) / (f.Latency + d.PerHostDelay).Seconds()
	for run, shared := range []bool{false, true} {
		sites := []*fleetSite{
			newFleetSite("plain-a", "", f.Latency, false),
			newFleetSite("plain-b", "", f.Latency, false),
			newFleetSite("crawl-delay-1", "User-agent: *\nCrawl-delay: 1\n", f.Latency, false),
			newFleetSite("robots-private", "User-agent: *\nDisallow: /private/\n", f.Latency, false),
			newFleetSite("retry-after-3", "", f.Latency, true),
		}
		prefix := "surfsense:ph:bench-fleet:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		var urls []string
		var closers []func()
		for range 3 {
			var stores host.Stores
			if shared {
				var faults faultCount
				st, s, err := redisStores(ctx, redisURL, prefix, &faults)
				if err != nil {
					return rep, err
				}
				closers = append(closers, func() { _ = st.Close() })
				stores = s
				stores.Politeness, stores.Shared = st.Politeness(), st.SharedCache()
			}
			srv, err := fleetHost(stores)
			if err != nil {
				return rep, err
			}
			closers = append(closers, srv.Close)
			urls = append(urls, srv.URL+"/web-crawl/mcp")
		}
		sessions := make([]*mcp.ClientSession, len(urls))
		for i, u := range urls {
			cs, err := mcpdial.Connect(ctx, u, "bench-fleet", nil, nil, nil)
			if err != nil {
				return rep, err
			}
			closers = append(closers, func() { _ = cs.Close() })
			sessions[i] = cs
		}
		// The calls: a page per call, the Crawl-delay and 429 sites asked
		// less (their limit is a second or more a page).
		var pages []string
		for i := 0; len(pages) < f.Calls; i++ {
			switch k := i % 16; {
			case k < 5:
				pages = append(pages, sites[0].URL+"/p/"+strconv.Itoa(i))
			case k < 10:
				pages = append(pages, sites[1].URL+"/p/"+strconv.Itoa(i))
			case k == 10:
				pages = append(pages, sites[2].URL+"/p/"+strconv.Itoa(i))
			case k == 11:
				pages = append(pages, sites[3].URL+"/private/"+strconv.Itoa(i))
			case k < 15:
				pages = append(pages, sites[3].URL+"/p/"+strconv.Itoa(i))
			default:
				pages = append(pages, sites[4].URL+"/p/"+strconv.Itoa(i))
			}
		}
		var mu sync.Mutex
		failed := 0
		sem := make(chan struct{}, f.InFlight)
		var wg sync.WaitGroup
		for i, p := range pages {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				res, err := sessions[i%3].CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{p}}})
				text := ""
				if err == nil {
					text = resultText(res)
				}
				if err != nil || (strings.Contains(text, `"error"`) && !strings.Contains(text, "robots.txt of") && !strings.Contains(text, "held off") && !strings.Contains(text, "HTTP 429")) {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for _, c := range closers {
			c()
		}
		var out []FleetSite
		for _, s := range sites {
			rate := pageRate
			if s.name == "crawl-delay-1" {
				rate = 1
			}
			out = append(out, s.report(d.PerHost, rate))
			s.Close()
		}
		rep.Failed[run] = failed
		if shared {
			rep.Fleet = out
		} else {
			rep.Alone = out
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	fmt.Fprintf(w, "\nfleet: %d single-page web-crawl.crawl calls at %d in flight over three replicas, five stand-in sites, pages of %s; alone: each replica its own politeness; fleet: the three on one Redis\n",
		f.Calls, f.InFlight, f.Latency)
	fmt.Fprintf(w, "  %-15s %6s %7s | %-34s | %-34s\n", "site", "limit", "pages/s", "alone: peak, pages/s, robots, refused fetched, asked in hold", "fleet: the same")
	for i := range rep.Alone {
		a, b := rep.Alone[i], rep.Fleet[i]
		fmt.Fprintf(w, "  %-15s %6d %7.1f | %4d %7.0f %6d %7d %6d           | %4d %7.0f %6d %7d %6d\n", a.Name, a.LimitFlight, a.LimitRate,
			a.Peak, a.Rate, a.Robots, a.Refused, a.DuringHold, b.Peak, b.Rate, b.Robots, b.Refused, b.DuringHold)
	}
	fmt.Fprintf(w, "  calls failed otherwise: alone %d, fleet %d\n", rep.Failed[0], rep.Failed[1])
	return rep, nil
}

// fleetHost starts a host with web-crawl as deployed (its politeness and
// robots.txt) on stores.
func fleetHost(stores host.Stores) (*httptest.Server, error) {
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	cfg.RateLimitPerMinute, cfg.MaxConcurrentCalls = 0, 0
	cfg.ResultCacheTTL = 0
	cfg.Getenv = func(string) string { return "" }
	h, err := host.New(cfg, host.Options{Logger: quietLogger(), Plugins: []scrapers.Constructor{webcrawl.New}, Stores: stores})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(h.Handler()), nil
}
