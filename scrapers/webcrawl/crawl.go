// Package webcrawl is the web-crawl plugin: it crawls from start URLs, within
// depth and page limits and URL patterns, and returns each page as Markdown
// with its title, byline, description, language and links. Every connection
// goes through the SSRF guard (internal/netguard), after redirects too.
//
// What one page may cost is bounded before extraction (elements, nesting
// depth, text, links: see Limits), and so are the pages in flight: per call,
// per host across calls, and in all (fetched or being extracted), so that
// memory grows with these bounds and not with the pages asked for. A page cut
// at a bound says so in its truncated reasons.
package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/render"
	"github.com/surfsense/pluginhost/scrapers/robots"
)

// ID is the plugin's id.
const ID = "web-crawl"

// Settings bound the crawler; DefaultSettings are used by New.
type Settings struct {
	PageTimeout  time.Duration // one page, headers and body (default 20 s)
	MaxPageBytes int           // a page's size cap (default 5 MiB); larger pages are cut and marked truncated
	PerCall      int           // pages in flight per call (default 4)
	PerHost      int           // pages in flight per host, across all calls and, with Politeness from Redis, all replicas (default 2)
	PerHostDelay time.Duration // pause after each page before the host's next one (default 100 ms)
	// Politeness keeps PerHost, PerHostDelay, robots.txt's Crawl-delay and
	// the holds a host's 429 or 503 asks for (Env.Politeness: with REDIS_URL,
	// for every replica). Nil keeps them for this plugin alone.
	Politeness scrapers.Politeness
	// Robots answers whether a URL may be fetched (robots.txt, RFC 9309,
	// for the product token robots.DefaultAgent, "SurfSense"); nil builds
	// one with the crawler's client, sharing copies through Shared.
	Robots *robots.Checker
	// RobotsIgnore sets robots.txt aside (ROBOTS_TXT=ignore), for sites
	// the operator owns.
	RobotsIgnore bool
	// Shared is the replicas' cache (Env.Shared) where robots.txt copies
	// are kept for the fleet; nil keeps them in this process.
	Shared scrapers.SharedCache
	// Pages bounds the pages fetched or extracted at once across all calls
	// (and every other plugin of the process): Env.Pages, by count and by
	// the bytes they hold (see PageBudget in limits.go). Nil makes one of
	// MaxInFlight pages and MaxInFlightBytes bytes for this plugin alone.
	Pages            *scrapers.PageBudget
	MaxInFlight      int    // when Pages is nil (default scrapers.DefaultMaxPagesInFlight)
	MaxInFlightBytes int64  // when Pages is nil (default scrapers.DefaultPageMemory)
	Extracting       int    // pages extracted at once across all calls (default GOMAXPROCS)
	MaxRedirects     int    // default 10
	Limits           Limits // per page, before extraction (DefaultLimits)
	AllowPrivate     bool   // ALLOW_PRIVATE_NETWORKS
	UserAgent        string
	Transport        http.RoundTripper // nil builds the guarded transport
	// Upstream hears of every upstream attempt (Env.Upstream).
	Upstream func(context.Context, scrapers.Upstream)
	// Renderer renders pages in a browser (RENDERER_URL, CHROMIUM_BIN);
	// nil: the render argument is never.
	Renderer *render.Renderer
	// Documents bound PDFs, CSV, feeds and other files (document.go).
	Documents DocumentSettings
}

// DefaultSettings are the crawler's defaults.
func DefaultSettings() Settings {
	return Settings{PageTimeout: 20 * time.Second, MaxPageBytes: 5 << 20, PerCall: 4, PerHost: 2, PerHostDelay: 100 * time.Millisecond,
		MaxInFlight: scrapers.DefaultMaxPagesInFlight, Extracting: runtime.GOMAXPROCS(0), MaxRedirects: 10, Limits: DefaultLimits(),
		UserAgent: "Mozilla/5.0 (compatible; SurfSenseCrawler/1.0; +https://plugins.surfsense.com)"}
}

// New builds the web-crawl plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	s := DefaultSettings()
	var err error
	s.AllowPrivate = env.AllowPrivateNetworks
	s.Upstream = env.Upstream
	s.Pages = env.PageBudget()
	s.Politeness = env.Polite()
	s.Shared = env.Shared
	if s.RobotsIgnore, err = robots.ParseMode(env.Get("ROBOTS_TXT")); err != nil {
		return scrapers.Plugin{}, fmt.Errorf("ROBOTS_TXT: %w", err)
	}
	docs, err := documentSettings(env)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("web-crawl's documents: %w", err)
	}
	s.Documents = docs
	if env.PageTimeout > 0 {
		s.PageTimeout = env.PageTimeout
	}
	rc, ok, err := render.FromEnv(env, ID)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("web-crawl's renderer: %w", err)
	}
	if ok {
		rc.UserAgent, rc.PageTimeout, rc.MaxHTMLChars = s.UserAgent, s.PageTimeout, s.MaxPageBytes
		if s.Renderer, err = render.New(rc); err != nil {
			return scrapers.Plugin{}, fmt.Errorf("web-crawl's renderer: %w", err)
		}
	}
	p := NewWithSettings(s)
	if s.Renderer != nil { // started here, so stopped with the plugin
		p.Close = s.Renderer.Close
	}
	return p, nil
}

// NewWithSettings builds the plugin with explicit settings (tests, bench).
func NewWithSettings(s Settings) scrapers.Plugin {
	d := DefaultSettings()
	if s.PerCall <= 0 {
		s.PerCall = d.PerCall
	}
	if s.PerHost <= 0 {
		s.PerHost = d.PerHost
	}
	if s.Pages == nil {
		s.Pages = scrapers.NewPageBudget(s.MaxInFlight, s.MaxInFlightBytes)
	}
	if s.Politeness == nil {
		s.Politeness = &scrapers.LocalPoliteness{}
	}
	if s.Extracting <= 0 {
		s.Extracting = d.Extracting
	}
	if s.MaxPageBytes <= 0 {
		s.MaxPageBytes = d.MaxPageBytes
	}
	if s.MaxRedirects <= 0 {
		s.MaxRedirects = d.MaxRedirects
	}
	s.Limits = s.Limits.withDefaults()
	if s.Transport == nil {
		s.Transport = &http.Transport{
			Proxy:                 nil, // direct: the SSRF guard judges the real peer
			DialContext:           netguard.DialContext(s.AllowPrivate),
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: s.PageTimeout,
			MaxIdleConnsPerHost:   s.PerHost,
			IdleConnTimeout:       30 * time.Second,
		}
	}
	cr := &crawler{s: s, extracting: make(gate, s.Extracting)}
	transport := &reporting{next: s.Transport, report: s.Upstream, polite: s.Politeness}
	guard := func(req *http.Request, via []*http.Request) error {
		if len(via) >= s.MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", s.MaxRedirects)
		}
		return netguard.CheckURL(req.URL, s.AllowPrivate)
	}
	// A page's redirect is asked of robots.txt too, of the host it leads to
	// (which may be another); robots.txt's own fetches follow theirs
	// unasked (RFC 9309 §2.3.1.2), so that reading one never waits on
	// reading another.
	cr.client = &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if err := guard(req, via); err != nil {
			return err
		}
		return cr.redirectAllowed(req)
	}}
	if cr.s.Robots == nil {
		robotsClient := &http.Client{Transport: transport, CheckRedirect: guard}
		cr.s.Robots = robots.New(robots.Config{Client: robotsClient, UserAgent: s.UserAgent, Ignore: s.RobotsIgnore, Cache: s.Shared})
	}
	return scrapers.Plugin{
		ID:   ID,
		Name: "Web Crawl",
		Tools: []scrapers.Tool{scrapers.NewTool("crawl", "Crawl web pages",
			"Fetches web pages and returns each as Markdown with its title, byline, description, language and links. "+
				"Starts from start_urls and follows links on the same site up to max_crawl_depth, at most max_crawl_pages pages in all; "+
				"include_url_patterns and exclude_url_patterns (regular expressions) choose which links are followed. "+
				"A page that fails is reported with its error; the others are still returned. "+
				"A page cut at a limit (max_length, page size, elements, nesting, text, links) lists what was cut in truncated. "+
				"render (never, always, auto) renders pages that need JavaScript in a headless browser; each page says whether it was rendered. "+
				"screenshot: true also returns each web page as a PNG screenshot (an image content after the text, 1280 px wide), its item saying what was taken or why not.",
			schema, cr.crawl).WithItems(scrapers.ItemSchema[Page]()), mapTool(cr)},
		Vars:   pluginVars,
		Status: rendererStatus(s.Renderer),
	}
}

type crawler struct {
	s          Settings
	client     *http.Client
	extracting gate
}

type job struct {
	u     *url.URL
	depth int
}

// crawl runs one crawl: breadth first, at most PerCall pages at once.
func (cr *crawler) crawl(ctx context.Context, call *scrapers.Call, args crawlArgs) error {
	if err := args.check(cr.s.AllowPrivate); err != nil {
		return err
	}
	var err error
	if args.render, err = args.renderMode(cr.s.Renderer != nil); err != nil {
		return err
	}
	hosts := map[string]bool{}
	for _, u := range args.starts {
		hosts[siteHost(u.Hostname())] = true
	}
	var (
		mu        sync.Mutex
		cond      = sync.NewCond(&mu)
		pending   []job
		seen      = map[string]bool{}
		scheduled int
		active    int
		done      int
	)
	push := func(u *url.URL, depth int) { // under mu
		if scheduled >= args.pages {
			return
		}
		k := visitKey(u)
		if seen[k] {
			return
		}
		seen[k] = true
		scheduled++
		pending = append(pending, job{u: u, depth: depth})
	}
	for _, u := range args.starts {
		push(u, 0)
	}
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer stop()
	// Workers start as pages wait for one (at most PerCall), the call's own
	// goroutine first: a call of one page holds no goroutine of its own
	// while it waits.
	var wg sync.WaitGroup
	workers := 0
	var worker func()
	spawn := func() { // under mu
		for workers < cr.s.PerCall && workers-active < len(pending) {
			workers++
			wg.Add(1)
			go worker()
		}
	}
	worker = func() {
		defer wg.Done()
		for {
			mu.Lock()
			for len(pending) == 0 && active > 0 && ctx.Err() == nil {
				cond.Wait()
			}
			if len(pending) == 0 || ctx.Err() != nil {
				cond.Broadcast()
				mu.Unlock()
				return
			}
			j := pending[0]
			pending = pending[1:]
			active++
			mu.Unlock()

			next, final := cr.visit(ctx, call, args, j, hosts)

			mu.Lock()
			active--
			done++
			n := done
			if final != nil {
				seen[visitKey(final)] = true
			}
			for _, u := range next {
				push(u, j.depth+1)
			}
			spawn()
			cond.Broadcast()
			mu.Unlock()
			call.Progress(fmt.Sprintf("crawled %d pages", n), n, args.pages)
		}
	}
	// This goroutine is the first worker.
	mu.Lock()
	workers++
	wg.Add(1)
	spawn()
	mu.Unlock()
	worker()
	wg.Wait()
	return ctx.Err()
}

// redirectAllowed says why a redirect may not be followed: robots.txt of
// the host it leads to refuses its URL, or cannot be read; nil when it may.
// A page's fetch then takes the slot of that host (hostlease.go).
func (cr *crawler) redirectAllowed(req *http.Request) error {
	v := cr.s.Robots.Check(req.Context(), req.URL)
	if !v.Allowed {
		if v.Err == nil {
			v.Err = fmt.Errorf("robots.txt of %s could not be read", req.URL.Host)
		}
		return fmt.Errorf("the page redirects to %s, which is not fetched: %w", req.URL.Redacted(), v.Err)
	}
	if l := hostLeaseFrom(req.Context()); l != nil {
		return l.move(req.Context(), req.URL, v.CrawlDelay)
	}
	return nil
}

// hostKey is the politeness key of u's host (with its port).
func hostKey(u *url.URL) string { return "host:" + strings.ToLower(u.Host) }

func visitKey(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// visit fetches and extracts one page, adds it (or its failure) to the call,
// and returns the links to follow and the page's address after redirects.
func (cr *crawler) visit(ctx context.Context, call *scrapers.Call, args crawlArgs, j job, hosts map[string]bool) ([]*url.URL, *url.URL) {
	orig := j.u.String()
	fail := func(err error) {
		if ctx.Err() == nil {
			call.Fail(orig, err)
		}
	}
	// robots.txt first: a refused URL is said, never fetched.
	verdict := cr.s.Robots.Check(ctx, j.u)
	if !verdict.Allowed {
		if verdict.Err == nil {
			verdict.Err = fmt.Errorf("robots.txt of %s could not be read", j.u.Host)
		}
		fail(verdict.Err)
		return nil, nil
	}
	lease, err := cr.s.Politeness.Acquire(ctx, scrapers.Slot{Key: hostKey(j.u), Exit: scrapers.ExitDirect, Limit: cr.s.PerHost, Interval: verdict.CrawlDelay})
	if err != nil {
		if errors.Is(err, scrapers.ErrHeld) {
			fail(err) // the host asked to be left alone: said, not fetched
		}
		return nil, nil
	}
	hold, err := cr.s.Pages.Acquire(ctx, firstPageGuess) // from fetch to the end of extraction
	if err != nil {
		lease.Release(0)
		return nil, nil
	}
	defer hold.Release()
	hl := &hostLease{cr: cr, key: hostKey(j.u), lease: lease} // moved by redirects to other hosts
	f, ri, err := cr.obtain(withHostLease(scrapers.WithPageHold(ctx, hold), hl), &args, j.u)
	hl.release(cr.s.PerHostDelay)
	if err != nil {
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			err = fmt.Errorf("refused: %w", err)
		}
		fail(err)
		return nil, nil
	}
	if f.status >= 400 {
		if d, ok := scrapers.ParseRetryAfter(f.header.Get("Retry-After"), time.Now()); ok && d > 0 && scrapers.AsksPause(f.status) {
			fail(fmt.Errorf("the site answered HTTP %d and asked for a pause of %s: every replica leaves %s alone until then",
				f.status, min(d, scrapers.MaxHold).Round(time.Second), j.u.Host))
			return nil, f.final
		}
		fail(fmt.Errorf("the site answered HTTP %d", f.status))
		return nil, f.final
	}
	mt, _, _ := mime.ParseMediaType(f.header.Get("Content-Type"))
	kind := documentKind(mt, f)
	if kind == "" && mt != "" && mt != "text/html" && mt != "application/xhtml+xml" && mt != "text/plain" {
		fail(fmt.Errorf("not a web page (content type %s)", mt))
		return nil, f.final
	}
	var page Page
	if kind != "" { // a PDF, CSV, feed, … (document.go)
		if page, err = cr.document(ctx, hold, f, kind, args); err != nil {
			fail(err)
			return nil, f.final
		}
	} else if mt == "text/plain" {
		text, _ := toUTF8(f.body, f.header.Get("Content-Type"))
		page = Page{Markdown: string(text), Links: []string{}}
		if len(page.Markdown) > args.maxLen { // bytes ≥ runes: only then can it be too long
			if cut := truncateRunes(page.Markdown, args.maxLen); len(cut) < len(page.Markdown) {
				page.Markdown, page.Truncated = cut, []string{cutMaxLength(args.maxLen)}
			}
		}
	} else {
		// Room for the parse before a place to parse: a page waiting for
		// room must not hold one (the oldest page always gets room).
		if err := hold.Grow(ctx, parseCost(len(f.body))); err != nil {
			return nil, nil
		}
		if err := cr.extracting.acquire(ctx); err != nil {
			return nil, nil
		}
		page, err = Extract(f.body, f.final, ExtractOptions{MaxLength: args.maxLen, Limits: cr.s.Limits,
			ContentType: f.header.Get("Content-Type"), ContentLanguage: f.header.Get("Content-Language")})
		cr.extracting.release()
		if err != nil {
			fail(fmt.Errorf("the page could not be parsed: %v", err))
			return nil, f.final
		}
	}
	f.body = nil
	page.URL = orig
	if final := f.final.String(); final != orig {
		page.LoadedURL = final
	}
	page.Depth = j.depth
	page.Status = f.status
	page.Rendered, page.RenderNotes = ri.rendered, ri.notes
	if note := verdict.Note(); note != "" {
		page.CrawlNotes = []string{note}
	}
	if f.cut {
		page.Truncated = append([]string{cutPageBytes(cr.s.MaxPageBytes)}, page.Truncated...)
	}
	args.addPage(call, page, ri) // with its screenshot (screenshot.go)
	if j.depth >= args.depth {
		return nil, f.final
	}
	var next []*url.URL
	for _, link := range page.Links {
		if !args.follow(link, hosts) {
			continue
		}
		lu, err := url.Parse(link)
		if err != nil || netguard.CheckURL(lu, cr.s.AllowPrivate) != nil {
			continue
		}
		next = append(next, lu)
	}
	return next, f.final
}

// fetched is one page's answer.
type fetched struct {
	status int
	final  *url.URL
	header http.Header
	body   []byte
	cut    bool // the body passed MaxPageBytes and was cut there
}

func (cr *crawler) fetch(ctx context.Context, u *url.URL) (*fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, cr.s.PageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", cr.s.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	resp, err := cr.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	f := &fetched{status: resp.StatusCode, final: resp.Request.URL, header: resp.Header}
	if resp.StatusCode >= 400 {
		return f, nil
	}
	limit := cr.bodyLimit(resp) // a document's cap or a page's (document.go)
	f.body, err = readBody(resp, limit+1)
	if len(f.body) > limit {
		f.body, f.cut = f.body[:limit], true
		markTooLarge(resp)
	} else if err != nil {
		if ctx.Err() != nil && len(f.body) > 0 {
			// The page timed out mid-body: keep what came, marked cut.
			f.cut = true
			return f, nil
		}
		return nil, err
	}
	return f, nil
}

// readBody reads at most limit bytes of a response into one buffer sized
// from Content-Length, so that a large page is not copied as it grows.
func readBody(resp *http.Response, limit int) ([]byte, error) {
	size := 64 << 10
	if cl := resp.ContentLength; cl >= 0 {
		size = int(min(cl+1, int64(limit)))
	}
	ctx := resp.Request.Context()
	hold := scrapers.PageHoldFrom(ctx) // the page's place in the budget grows with its buffer
	if err := hold.Grow(ctx, int64(max(size, 512))); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, max(size, 512))
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
			if err := hold.Grow(ctx, int64(cap(buf))); err != nil {
				return buf, err
			}
		}
		n, err := resp.Body.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// follow says whether the crawl follows link: an exclude pattern never; with
// include patterns, a link matching one; without, a link on a start page's site.
func (a *crawlArgs) follow(link string, hosts map[string]bool) bool {
	for _, re := range a.exclude {
		if re.MatchString(link) {
			return false
		}
	}
	if len(a.include) > 0 {
		for _, re := range a.include {
			if re.MatchString(link) {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(link)
	return err == nil && hosts[siteHost(u.Hostname())]
}

// siteHost folds www. so that example.com and www.example.com are one site.
func siteHost(h string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(h, ".")), "www.")
}
