package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// site is a stand-in web site on 127.0.0.1 that counts its robots.txt
// fetches.
type site struct {
	*httptest.Server
	robots atomic.Int64 // GET /robots.txt answered
	hits   atomic.Int64 // every request
}

// newSite serves robots with handle (for /robots.txt and anything else it
// wants); other paths answer 200 "page".
func newSite(t *testing.T, handle func(s *site, w http.ResponseWriter, r *http.Request) bool) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if r.URL.Path == "/robots.txt" {
			s.robots.Add(1)
		}
		if !handle(s, w, r) {
			io.WriteString(w, "page")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// heldSite answers robots.txt (privateRobots) only once release is closed.
func heldSite(t *testing.T) (*site, chan struct{}) {
	release := make(chan struct{})
	return newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			return false
		}
		<-release
		io.WriteString(w, privateRobots)
		return true
	}), release
}

// textSite serves body as robots.txt.
func textSite(t *testing.T, body string) *site {
	return newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			return false
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
		return true
	})
}

// statusSite answers robots.txt with code.
func statusSite(t *testing.T, code int) *site {
	return newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			return false
		}
		w.WriteHeader(code)
		return true
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// memCache is a fleet cache in memory that records what is set.
type memCache struct {
	mu   sync.Mutex
	m    map[string][]byte
	ttls map[string]time.Duration
	gets atomic.Int64
}

func newMemCache() *memCache {
	return &memCache{m: map[string][]byte{}, ttls: map[string]time.Duration{}}
}

func (c *memCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.gets.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return bytes.Clone(v), ok, nil
}

func (c *memCache) Set(_ context.Context, key string, val []byte, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key], c.ttls[key] = bytes.Clone(val), ttl
	return nil
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)} }
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const privateRobots = "User-agent: *\nDisallow: /private/\nSitemap: https://example.com/sitemap.xml\n"

func TestDisallowedURLIsRefusedWithItsReason(t *testing.T) {
	s := textSite(t, privateRobots)
	c := New(Config{})
	ctx := context.Background()
	v := c.Check(ctx, mustURL(t, s.URL+"/private/x?y=1"))
	host := strings.TrimPrefix(s.URL, "http://")
	want := "robots.txt of " + host + " disallows /private/x?y=1"
	if v.Allowed || v.Err == nil || v.Err.Error() != want {
		t.Fatalf("verdict %+v, want refused with %q", v, want)
	}
	var de *DisallowedError
	if !errors.As(v.Err, &de) || de.Rule != "Disallow: /private/" || !errors.Is(v.Err, ErrDisallowed) {
		t.Errorf("error %#v: want a *DisallowedError naming its rule", v.Err)
	}
	if v := c.Check(ctx, mustURL(t, s.URL+"/public")); !v.Allowed || v.Err != nil {
		t.Errorf("/public: %+v", v)
	}
	if len(v.Sitemaps) != 1 || v.Sitemaps[0] != "https://example.com/sitemap.xml" {
		t.Errorf("sitemaps %q", v.Sitemaps)
	}
	if n := s.robots.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
}

func TestOneFetchForManyConcurrentChecks(t *testing.T) {
	s, release := heldSite(t)
	c := New(Config{})
	const n = 64
	var wg sync.WaitGroup
	var refused atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := "/public/"
			if i%2 == 0 {
				p = "/private/"
			}
			if v := c.Check(context.Background(), mustURL(t, fmt.Sprintf("%s%s%d", s.URL, p, i))); !v.Allowed {
				refused.Add(1)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the checks pile up on the one fetch
	close(release)
	wg.Wait()
	if got := s.robots.Load(); got != 1 {
		t.Errorf("%d concurrent checks fetched robots.txt %d times, want 1", n, got)
	}
	if got := refused.Load(); got != n/2 {
		t.Errorf("%d refused, want %d", got, n/2)
	}
}

func TestFleetCacheSharesOneFetch(t *testing.T) {
	s := textSite(t, privateRobots)
	cache := newMemCache()
	clk := newClock()
	a := New(Config{Cache: cache, Now: clk.Now})
	var fromCache []Event
	b := New(Config{Cache: cache, Now: clk.Now, Observe: func(ev Event) { fromCache = append(fromCache, ev) }}) // another replica
	u := mustURL(t, s.URL+"/private/1")
	if v := a.Check(context.Background(), u); v.Allowed {
		t.Fatal("replica a allowed a disallowed URL")
	}
	if v := b.Check(context.Background(), u); v.Allowed || !errors.Is(v.Err, ErrDisallowed) {
		t.Fatalf("replica b: %+v", v)
	}
	if got := s.robots.Load(); got != 1 {
		t.Errorf("two replicas fetched robots.txt %d times, want 1", got)
	}
	if len(fromCache) != 1 || fromCache[0].Source != "cache" || fromCache[0].Origin != strings.ToLower(s.URL) {
		t.Errorf("replica b's events %+v: want one from the cache", fromCache)
	}
	key := a.cacheKey(strings.ToLower(s.URL))
	if ttl := cache.ttls[key]; ttl != DefaultTTL {
		t.Errorf("kept for %v in the fleet cache, want %v", ttl, DefaultTTL)
	}
	if v := cache.m[key]; !bytes.HasPrefix(v, []byte(header)) || len(v) > 200 {
		t.Errorf("cache entry %q: want a short versioned entry", v)
	}

	// After the TTL both replicas ask again, once between them.
	clk.Add(DefaultTTL + time.Second)
	a.Check(context.Background(), u)
	b.Check(context.Background(), u)
	if got := s.robots.Load(); got != 2 {
		t.Errorf("after the TTL robots.txt was fetched %d times in all, want 2", got)
	}
	// Just before it, nobody asks.
	clk.Add(DefaultTTL - time.Minute)
	c := New(Config{Cache: cache, Now: clk.Now})
	c.Check(context.Background(), u)
	if got := s.robots.Load(); got != 2 {
		t.Errorf("a third replica within the TTL fetched: %d fetches in all, want 2", got)
	}
}

func TestCorruptCacheEntryIsRefetched(t *testing.T) {
	s := textSite(t, privateRobots)
	for _, junk := range []string{"", "garbage", header, header + "rules x y\n", header + "unreachable 17 HTTP 503\nextra", "surfsense-robots/9\nrules 1 \n"} {
		cache := newMemCache()
		c := New(Config{Cache: cache})
		key := c.cacheKey(strings.ToLower(s.URL))
		cache.m[key] = []byte(junk)
		before := s.robots.Load()
		if v := c.Check(context.Background(), mustURL(t, s.URL+"/private/")); v.Allowed {
			t.Errorf("entry %q: allowed a disallowed URL", junk)
		}
		if s.robots.Load() != before+1 {
			t.Errorf("entry %q: robots.txt not fetched again", junk)
		}
		if !bytes.HasPrefix(cache.m[key], []byte(header+"rules ")) {
			t.Errorf("entry %q not replaced: %q", junk, cache.m[key])
		}
	}
}

func TestServerErrorDisallowsBriefly(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	s := newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			return false
		}
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		io.WriteString(w, "User-agent: *\nAllow: /\n")
		return true
	})
	cache := newMemCache()
	clk := newClock()
	c := New(Config{Cache: cache, Now: clk.Now})
	u := mustURL(t, s.URL+"/page")
	v := c.Check(context.Background(), u)
	if v.Allowed || !errors.Is(v.Err, ErrUnreachable) || !strings.Contains(v.Err.Error(), "HTTP 503") {
		t.Fatalf("503: %+v, want refused as unreachable", v)
	}
	if ttl := cache.ttls[c.cacheKey(strings.ToLower(s.URL))]; ttl != DefaultUnavailableTTL {
		t.Errorf("a 503 is kept %v, want %v", ttl, DefaultUnavailableTTL)
	}
	c.Check(context.Background(), u)
	if got := s.robots.Load(); got != 1 {
		t.Errorf("fetched %d times within the short TTL, want 1", got)
	}
	fail.Store(false)
	clk.Add(DefaultUnavailableTTL + time.Second)
	if v := c.Check(context.Background(), u); !v.Allowed {
		t.Errorf("after the site recovered: %+v", v)
	}
	if got := s.robots.Load(); got != 2 {
		t.Errorf("fetched %d times, want 2", got)
	}
}

func TestStatusClasses(t *testing.T) {
	for _, c := range []struct {
		code    int
		allowed bool
	}{{404, true}, {401, true}, {403, true}, {410, true}, {429, false}, {500, false}, {502, false}, {599, false}} {
		s := statusSite(t, c.code)
		v := New(Config{}).Check(context.Background(), mustURL(t, s.URL+"/x"))
		if v.Allowed != c.allowed {
			t.Errorf("HTTP %d: allowed=%v, want %v (%v)", c.code, v.Allowed, c.allowed, v.Err)
		}
		if !c.allowed && !errors.Is(v.Err, ErrUnreachable) {
			t.Errorf("HTTP %d: err %v, want ErrUnreachable", c.code, v.Err)
		}
	}
}

func TestUnreachableSiteDisallows(t *testing.T) {
	s := textSite(t, "")
	dead := s.URL
	s.Close() // nothing listens there now
	v := New(Config{FetchTimeout: 2 * time.Second}).Check(context.Background(), mustURL(t, dead+"/x"))
	if v.Allowed || !errors.Is(v.Err, ErrUnreachable) {
		t.Errorf("a site that refuses connections: %+v", v)
	}
}

func TestRedirects(t *testing.T) {
	// An endless loop: followed 5 times, then the file is unavailable (4xx).
	loop := newSite(t, func(s *site, w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/robots") || strings.HasPrefix(r.URL.Path, "/hop") {
			http.Redirect(w, r, fmt.Sprintf("/hop%d", s.hits.Load()), http.StatusFound)
			return true
		}
		return false
	})
	v := New(Config{}).Check(context.Background(), mustURL(t, loop.URL+"/x"))
	if !v.Allowed {
		t.Errorf("a redirect loop: %+v, want allowed (unavailable robots.txt)", v)
	}
	if got := loop.hits.Load(); got != 1+maxRedirects {
		t.Errorf("the loop was asked %d times, want %d", got, 1+maxRedirects)
	}

	// Five hops to a real file are followed.
	chain := newSite(t, func(s *site, w http.ResponseWriter, r *http.Request) bool {
		var n int
		fmt.Sscanf(r.URL.Path, "/hop%d", &n)
		switch {
		case r.URL.Path == "/robots.txt":
			http.Redirect(w, r, "/hop1", http.StatusMovedPermanently)
		case n == 5:
			io.WriteString(w, privateRobots)
		case n > 0:
			http.Redirect(w, r, fmt.Sprintf("/hop%d", n+1), http.StatusFound)
		default:
			return false
		}
		return true
	})
	if v := New(Config{}).Check(context.Background(), mustURL(t, chain.URL+"/private/a")); v.Allowed {
		t.Errorf("robots.txt after five redirects was not obeyed: %+v", v)
	}
}

// The crawler's guarded client keeps its own redirect check.
func TestClientRedirectCheckIsKept(t *testing.T) {
	s := newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "http://10.0.0.1/robots.txt", http.StatusFound)
			return true
		}
		return false
	})
	guard := errors.New("the guard refuses 10.0.0.1")
	var asked atomic.Bool
	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		asked.Store(true)
		if req.URL.Hostname() == "10.0.0.1" {
			return guard
		}
		return nil
	}}
	v := New(Config{Client: client}).Check(context.Background(), mustURL(t, s.URL+"/x"))
	if !asked.Load() || v.Allowed || !strings.Contains(fmt.Sprint(v.Err), "the guard refuses") {
		t.Errorf("guarded redirect: asked=%v verdict %+v", asked.Load(), v)
	}
}

func TestHugeFileIsReadOnlyToTheLimit(t *testing.T) {
	var body bytes.Buffer
	body.WriteString("User-agent: *\nDisallow: /early/\n")
	for body.Len() < 10<<20 {
		body.WriteString("# padding padding padding padding padding padding padding padding\n")
		if body.Len() > 600<<10 && body.Len() < 601<<10 {
			body.WriteString("Disallow: /late/\n")
		}
	}
	s := textSite(t, body.String())
	var events []Event
	c := New(Config{Observe: func(ev Event) { events = append(events, ev) }})
	if v := c.Check(context.Background(), mustURL(t, s.URL+"/early/x")); v.Allowed {
		t.Error("a rule at the start of a 10 MB file was not obeyed")
	}
	if v := c.Check(context.Background(), mustURL(t, s.URL+"/late/x")); !v.Allowed {
		t.Error("a rule past 500 KiB was read")
	}
	// The bound is said once, to the operator.
	if len(events) != 1 || events[0].Source != "site" || events[0].Outcome != "rules" || !strings.Contains(events[0].Note, "first 512000 bytes") {
		t.Errorf("events %+v: want one saying the file was read to the limit", events)
	}
}

// countingReader is an endless robots.txt that counts what is read of it.
type countingReader struct{ n int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	line := "Disallow: /a/very/long/path/that/goes/on\n"
	for i := range p {
		p[i] = line[(r.n+int64(i))%int64(len(line))]
	}
	r.n += int64(len(p))
	return len(p), nil
}

func TestReadAtMostBoundsTheRead(t *testing.T) {
	r := &countingReader{}
	body, truncated, err := readAtMost(r, DefaultMaxBytes)
	if err != nil || !truncated {
		t.Fatalf("err %v truncated %v", err, truncated)
	}
	if r.n > DefaultMaxBytes {
		t.Errorf("read %d bytes of an endless file, want at most %d", r.n, DefaultMaxBytes)
	}
	if len(body) > DefaultMaxBytes || !bytes.HasSuffix(body, []byte("\n")) {
		t.Errorf("kept %d bytes ending %q: want whole lines within the limit", len(body), body[len(body)-5:])
	}
	// A line cut by the limit is dropped, not read short: "Allow: /shop"
	// read as "Allow: /s" would allow far more.
	b, _, _ := readAtMost(strings.NewReader("Disallow: /\nAllow: /shop\n"), 20)
	if string(b) != "Disallow: /\n" {
		t.Errorf("cut file kept %q", b)
	}
	if b, cut, _ := readAtMost(strings.NewReader("Disallow: /\n"), 100); string(b) != "Disallow: /\n" || cut {
		t.Errorf("a short file: %q, cut=%v", b, cut)
	}
}

func TestCrawlDelayIsBounded(t *testing.T) {
	s := textSite(t, "User-agent: *\nCrawl-delay: 30\n")
	v := New(Config{}).Check(context.Background(), mustURL(t, s.URL+"/"))
	if !v.Allowed || v.CrawlDelay != DefaultMaxCrawlDelay || v.CrawlDelayAsked != 30*time.Second {
		t.Errorf("Crawl-delay 30: %+v, want 10s honoured and 30s reported", v)
	}
	if note := v.Note(); !strings.Contains(note, "30s") || !strings.Contains(note, "10s") || !strings.Contains(note, "robots.txt of 127.0.0.1:") {
		t.Errorf("note %q", note)
	}
	s2 := textSite(t, "User-agent: *\nCrawl-delay: 1.5\n")
	v = New(Config{}).Check(context.Background(), mustURL(t, s2.URL+"/"))
	if v.CrawlDelay != 1500*time.Millisecond || v.CrawlDelayAsked != 0 || v.Note() != "" {
		t.Errorf("Crawl-delay 1.5: %+v", v)
	}
}

func TestContentSignalRefuses(t *testing.T) {
	s := textSite(t, "User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\nAllow: /\n")
	v := New(Config{}).Check(context.Background(), mustURL(t, s.URL+"/article"))
	if v.Allowed || !errors.Is(v.Err, ErrContentSignal) {
		t.Fatalf("ai-input=no: %+v", v)
	}
	if msg := v.Err.Error(); !strings.Contains(msg, "ai-input=no") || !strings.Contains(msg, "/article") {
		t.Errorf("message %q should name the signal and the path", msg)
	}
	s2 := textSite(t, "User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n")
	if v := New(Config{}).Check(context.Background(), mustURL(t, s2.URL+"/article")); !v.Allowed {
		t.Errorf("ai-input=yes, ai-train=no refused: %+v", v)
	}
}

func TestIgnoreModeFetchesNothing(t *testing.T) {
	s := textSite(t, "User-agent: *\nDisallow: /\nContent-Signal: ai-input=no\n")
	c := New(Config{Ignore: true})
	for _, p := range []string{"/", "/private/", "/a?b"} {
		if v := c.Check(context.Background(), mustURL(t, s.URL+p)); !v.Allowed || v.Err != nil {
			t.Errorf("%s in ignore mode: %+v", p, v)
		}
	}
	if n := s.robots.Load(); n != 0 {
		t.Errorf("ignore mode fetched robots.txt %d times", n)
	}
}

func TestRobotsTxtItselfIsAllowed(t *testing.T) {
	s := textSite(t, "User-agent: *\nDisallow: /\n")
	if v := New(Config{}).Check(context.Background(), mustURL(t, s.URL+"/robots.txt")); !v.Allowed {
		t.Errorf("/robots.txt: %+v", v)
	}
}

// A caller that gives up does not spoil the fetch for the others.
func TestCallerCancelDoesNotSpoilTheFetch(t *testing.T) {
	s, release := heldSite(t)
	c := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Verdict)
	go func() { done <- c.Check(ctx, mustURL(t, s.URL+"/private/1")) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if v := <-done; v.Allowed || !errors.Is(v.Err, context.Canceled) {
		t.Errorf("cancelled caller: %+v", v)
	}
	close(release)
	if v := c.Check(context.Background(), mustURL(t, s.URL+"/private/2")); v.Allowed || !errors.Is(v.Err, ErrDisallowed) {
		t.Errorf("the next caller: %+v", v)
	}
	if n := s.robots.Load(); n != 1 {
		t.Errorf("fetched %d times, want 1", n)
	}
}

func TestOriginsAreSeparate(t *testing.T) {
	s := textSite(t, privateRobots)
	c := New(Config{})
	u1 := mustURL(t, s.URL+"/private/")
	u2 := mustURL(t, strings.Replace(s.URL, "127.0.0.1", "localhost", 1)+"/private/")
	c.Check(context.Background(), u1)
	c.Check(context.Background(), u2)
	if n := s.robots.Load(); n != 2 {
		t.Errorf("two hosts, %d fetches; want 2", n)
	}
	for _, bad := range []string{"ftp://example.com/x", "/relative", "mailto:a@b.c"} {
		if v := c.Check(context.Background(), mustURL(t, bad)); v.Allowed || v.Err == nil {
			t.Errorf("%s: %+v", bad, v)
		}
	}
	if v := c.Check(context.Background(), nil); v.Allowed || v.Err == nil {
		t.Errorf("nil URL: %+v", v)
	}
}

func TestSitemaps(t *testing.T) {
	s := textSite(t, privateRobots+"Sitemap: https://example.com/news.xml\n")
	got, err := New(Config{Ignore: true}).Sitemaps(context.Background(), mustURL(t, s.URL+"/any"))
	if err != nil || len(got) != 2 || got[1] != "https://example.com/news.xml" {
		t.Errorf("sitemaps %q, %v", got, err)
	}
	s5 := statusSite(t, 503)
	if _, err := New(Config{}).Sitemaps(context.Background(), mustURL(t, s5.URL)); !errors.Is(err, ErrUnreachable) {
		t.Errorf("503: err %v", err)
	}
	s4 := statusSite(t, 404)
	if got, err := New(Config{}).Sitemaps(context.Background(), mustURL(t, s4.URL)); err != nil || len(got) != 0 {
		t.Errorf("404: %q, %v", got, err)
	}
}

func TestBinaryAndHTMLBodies(t *testing.T) {
	bin := make([]byte, 64<<10)
	for i := range bin {
		bin[i] = byte(i*7 + i>>8)
	}
	for name, body := range map[string]string{
		"binary": string(bin),
		"html":   "<!doctype html><html><body>User-agent: *<br>Disallow: /</body></html>",
		"nul":    "User-agent: *\x00\nDisallow: /\x00x\n",
	} {
		s := textSite(t, body)
		v := New(Config{}).Check(context.Background(), mustURL(t, s.URL+"/page"))
		if !v.Allowed {
			t.Errorf("%s body: %+v", name, v)
		}
	}
}

func TestMemoryIsBounded(t *testing.T) {
	s := textSite(t, privateRobots)
	c := New(Config{MaxMemoryBytes: 2000})
	for i := range 50 {
		// Each port-less origin name is distinct: 127.0.0.1 answers for all.
		u := mustURL(t, strings.Replace(s.URL, "127.0.0.1", fmt.Sprintf("127.0.0.%d", i+1), 1)+"/x")
		c.Check(context.Background(), u)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.memBytes > 2000 || len(c.mem) >= 50 || len(c.mem) != c.lru.Len() {
		t.Errorf("kept %d origins in %d bytes, bound 2000", len(c.mem), c.memBytes)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]bool{"": false, "obey": false, " OBEY ": false, "ignore": true, "Ignore": true} {
		got, err := ParseMode(in)
		if err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("off"); err == nil || !strings.Contains(err.Error(), `"obey"`) || !strings.Contains(err.Error(), `"ignore"`) {
		t.Errorf("off: %v", err)
	}
}

// slowCache never answers within its caller's deadline; brokenCache fails.
type slowCache struct{}

func (slowCache) Get(ctx context.Context, _ string) ([]byte, bool, error) {
	<-ctx.Done()
	return nil, false, ctx.Err()
}
func (slowCache) Set(ctx context.Context, _ string, _ []byte, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

type brokenCache struct{}

func (brokenCache) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("connection refused")
}
func (brokenCache) Set(context.Context, string, []byte, time.Duration) error {
	return errors.New("connection refused")
}

// A slow or broken fleet cache costs at most CacheTimeout per fetch; the
// check goes on with a fetch of its own.
func TestSlowOrBrokenCacheDegrades(t *testing.T) {
	s := textSite(t, privateRobots)
	for name, cache := range map[string]Cache{"slow": slowCache{}, "broken": brokenCache{}} {
		c := New(Config{Cache: cache, CacheTimeout: 50 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		v := c.Check(ctx, mustURL(t, s.URL+"/private/x"))
		cancel()
		if v.Allowed || !errors.Is(v.Err, ErrDisallowed) {
			t.Errorf("%s cache: %+v", name, v)
		}
	}
	if n := s.robots.Load(); n != 2 {
		t.Errorf("fetched %d times, want 2 (one per checker)", n)
	}
}

// A replica whose clock runs ahead writes entries "from the future"; the
// others use them (kept at most a TTL from their own now) rather than
// fetching again.
func TestEntryFromAReplicaWithAClockAhead(t *testing.T) {
	s := textSite(t, privateRobots)
	cache := newMemCache()
	ahead, behind := newClock(), newClock()
	ahead.Add(5 * time.Minute)
	u := mustURL(t, s.URL+"/private/x")
	New(Config{Cache: cache, Now: ahead.Now}).Check(context.Background(), u)
	b := New(Config{Cache: cache, Now: behind.Now})
	if v := b.Check(context.Background(), u); v.Allowed {
		t.Fatalf("%+v", v)
	}
	if n := s.robots.Load(); n != 1 {
		t.Errorf("fetched %d times, want 1", n)
	}
	behind.Add(DefaultTTL + 6*time.Minute) // past the entry's own expiry
	b2 := New(Config{Cache: cache, Now: behind.Now})
	b2.Check(context.Background(), u)
	if n := s.robots.Load(); n != 2 {
		t.Errorf("after the entry's TTL: fetched %d times, want 2", n)
	}
}

// A site that trickles robots.txt forever is cut off at FetchTimeout and
// counts as unreachable.
func TestTricklingSiteIsCutOff(t *testing.T) {
	s := newSite(t, func(_ *site, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			return false
		}
		io.WriteString(w, "User-agent: *\n")
		for {
			if _, err := io.WriteString(w, "#"); err != nil {
				return true
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return true
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	start := time.Now()
	v := New(Config{FetchTimeout: 300 * time.Millisecond}).Check(context.Background(), mustURL(t, s.URL+"/x"))
	if v.Allowed || !errors.Is(v.Err, ErrUnreachable) {
		t.Errorf("trickling site: %+v", v)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v with a 300ms FetchTimeout", el)
	}
}

func TestSplitNamesTheOrigin(t *testing.T) {
	for in, want := range map[string][3]string{
		"HTTPS://Example.COM:443/a/B?x=1": {"https://example.com", "example.com", "/a/B?x=1"},
		"http://example.com:80":           {"http://example.com", "example.com", "/"},
		"http://example.com:8080/p?":      {"http://example.com:8080", "example.com:8080", "/p?"},
		"https://example.com:80/%7Ea b":   {"https://example.com:80", "example.com:80", "/~a%20b"},
		"http://[::1]:8080/x":             {"http://[::1]:8080", "[::1]:8080", "/x"},
		"http://[::1]/x":                  {"http://[::1]", "[::1]", "/x"},
	} {
		origin, host, path, err := split(mustURL(t, in))
		if err != nil || origin != want[0] || host != want[1] || path != want[2] {
			t.Errorf("%s: %q %q %q %v; want %q", in, origin, host, path, err, want)
		}
	}
}

// leaseCache is a memCache that can also set a key only when absent.
type leaseCache struct{ *memCache }

func (c leaseCache) SetIfAbsent(_ context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return false, nil
	}
	c.m[key], c.ttls[key] = bytes.Clone(val), ttl
	return true, nil
}

// With a cache that can lease, three replicas missing the same robots.txt
// at the same moment fetch it once between them.
func TestLeaseMakesOneFetchForTheFleet(t *testing.T) {
	s, release := heldSite(t)
	cache := leaseCache{newMemCache()}
	var wg sync.WaitGroup
	var refused atomic.Int64
	for range 3 {
		c := New(Config{Cache: cache})
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if v := c.Check(context.Background(), mustURL(t, fmt.Sprintf("%s/private/%d", s.URL, i))); !v.Allowed && errors.Is(v.Err, ErrDisallowed) {
					refused.Add(1)
				}
			}()
		}
	}
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := s.robots.Load(); n != 1 {
		t.Errorf("three replicas fetched robots.txt %d times, want 1", n)
	}
	if n := refused.Load(); n != 12 {
		t.Errorf("%d of 12 checks refused, want 12", n)
	}
}

// A replica holding the lease that dies frees it when it runs out: the
// others fetch themselves after the lease's time, not never.
func TestDeadLeaseHolderDelaysOnlyUntilTheLeaseEnds(t *testing.T) {
	s := textSite(t, privateRobots)
	cache := leaseCache{newMemCache()}
	c := New(Config{Cache: cache, FetchTimeout: 200 * time.Millisecond, CacheTimeout: 50 * time.Millisecond})
	cache.m[c.cacheKey(strings.ToLower(s.URL))+":fetching"] = []byte("1") // taken by a replica that died
	if v := c.Check(context.Background(), mustURL(t, s.URL+"/private/x")); v.Allowed {
		t.Errorf("%+v", v)
	}
	if n := s.robots.Load(); n != 1 {
		t.Errorf("fetched %d times, want 1 once the lease ran out", n)
	}
}
