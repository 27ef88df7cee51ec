package render

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"

	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surfsense/pluginhost/scrapers"
)

// chromium finds Debian's chromium (or CHROMIUM_BIN), or skips.
func chromium(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("CHROMIUM_BIN"); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on this machine (apt-get install chromium, or set CHROMIUM_BIN): the renderer's browser tests are skipped")
	return ""
}

// site is a test origin on loopback that only its own renderer may reach.
type site struct {
	*httptest.Server
	mux *http.ServeMux
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{mux: http.NewServeMux()}
	s.Server = httptest.NewServer(s.mux)
	t.Cleanup(s.Close)
	return s
}

func (s *site) page(path, html string) {
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	})
}

// addr is the site's ip:port, for the allow-list.
func (s *site) addr() netip.AddrPort {
	return netip.MustParseAddrPort(s.Listener.Addr().String())
}

// newRenderer makes a renderer allowed to reach only allowed, on the
// browser the package's tests share (starting a Chromium is most of a
// test's time): tests that crash, stop or count a browser use ownRenderer.
func newRenderer(t testing.TB, cfg Config, allowed ...netip.AddrPort) *Renderer {
	t.Helper()
	r := ownRenderer(t, cfg, allowed...)
	b := sharedBrowser(t, r.cfg.Bin)
	r.mu.Lock()
	r.cur = b
	r.mu.Unlock()
	// Cleanups run last first: this one, before ownRenderer's Close, keeps
	// the shared browser out of that Close.
	t.Cleanup(func() {
		r.mu.Lock()
		if r.cur == b {
			r.cur = nil
		}
		r.mu.Unlock()
	})
	return r
}

// ownRenderer makes a renderer that starts a browser of its own.
func ownRenderer(t testing.TB, cfg Config, allowed ...netip.AddrPort) *Renderer {
	t.Helper()
	cfg.Bin = chromium(t)
	cfg.AllowAddrs = map[netip.AddrPort]bool{}
	for _, a := range allowed {
		cfg.AllowAddrs[a] = true
	}
	if cfg.PageTimeout == 0 {
		cfg.PageTimeout = 10 * time.Second
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

var shared struct {
	once sync.Once
	b    *browserProc
	err  error
}

// sharedBrowser is the browser of newRenderer's renderers, started once.
func sharedBrowser(t testing.TB, bin string) *browserProc {
	t.Helper()
	shared.once.Do(func() {
		r := &Renderer{cfg: Config{Bin: bin}}
		shared.b, shared.err = r.start(0)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	if shared.b.ctx.Err() != nil {
		t.Fatal("the shared test browser died; a test that breaks its browser must use ownRenderer")
	}
	return shared.b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		shared.b.stop()
	}
	os.Exit(code)
}

// canary is a set of loopback listeners on one port that count every
// connection: a page must never reach them.
type canary struct {
	port  int
	hits  atomic.Int64
	addrs []string
	lns   []net.Listener
}

func newCanary(t testing.TB) *canary {
	t.Helper()
	c := &canary{}
	first, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = first.Addr().(*net.TCPAddr).Port
	c.lns = append(c.lns, first)
	c.addrs = append(c.addrs, "127.0.0.1")
	for _, h := range []string{"127.0.0.2", "::1"} {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, fmt.Sprint(c.port)))
		if err != nil {
			t.Logf("canary: cannot listen on %s:%d (%v); that address is not checked", h, c.port, err)
			continue
		}
		c.lns = append(c.lns, ln)
		c.addrs = append(c.addrs, h)
	}
	for _, ln := range c.lns {
		go func(ln net.Listener) {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				c.hits.Add(1)
				_ = conn.Close()
			}
		}(ln)
	}
	t.Cleanup(func() {
		for _, ln := range c.lns {
			_ = ln.Close()
		}
	})
	return c
}

func TestRenderScriptWrittenText(t *testing.T) {
	s := newSite(t)
	s.page("/", `<!doctype html><html><head><title>shell</title></head><body><div id="app"></div>
<script>document.getElementById("app").innerHTML = "<h1>Written by a script</h1><p>" + ["alpha", "beta"].join(" and ") + "</p>";</script></body></html>`)
	r := newRenderer(t, Config{}, s.addr())
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, "<h1>Written by a script</h1><p>alpha and beta</p>") {
		t.Fatalf("rendered HTML lacks the script's text: %s", p.HTML)
	}
	if p.Status != 200 || p.URL != s.URL+"/" || p.Slow {
		t.Fatalf("page: status %d url %q slow %v notes %v", p.Status, p.URL, p.Slow, p.Notes)
	}
	t.Logf("rendered in %s, %d requests", p.Took, p.Requests)
}

func TestRenderFetchAfterDelay(t *testing.T) {
	s := newSite(t)
	s.page("/", `<!doctype html><html><body><main id="m">loading…</main>
<script>setTimeout(() => fetch("/data").then(r => r.json()).then(d => { document.getElementById("m").textContent = d.text; }), 800);</script></body></html>`)
	s.mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"text":"fetched after a delay"}`)
	})
	r := newRenderer(t, Config{}, s.addr())
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, `<main id="m">fetched after a delay</main>`) {
		t.Fatalf("the delayed fetch's text is missing: %s", p.HTML)
	}
	if p.Slow {
		t.Fatalf("the page was quiet long before its time: %v", p.Notes)
	}
}

// TestRenderCannotReachOtherLoopback: the test page's own origin is allowed,
// and every other loopback address, by every spelling and channel, is not.
func TestRenderCannotReachOtherLoopback(t *testing.T) {
	s := newSite(t)
	c := newCanary(t)
	var targets []string
	for _, h := range []string{"127.0.0.1", "127.0.0.2", "localhost", "[::1]", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]"} {
		targets = append(targets, fmt.Sprintf("%s:%d", h, c.port))
	}
	hostsJSON, _ := json.Marshal(targets)
	js := `const hosts = ` + string(hostsJSON) + `;
const out = [];
for (const h of hosts) {
  out.push(fetch("http://" + h + "/f").then(() => "fetch " + h + " reached", () => "fetch " + h + " refused"));
  out.push(fetch("https://" + h + "/s").then(() => "https " + h + " reached", () => "https " + h + " refused"));
  const x = new XMLHttpRequest(); x.open("GET", "http://" + h + "/x"); x.send();
  try { new WebSocket("ws://" + h + "/w"); } catch (e) {}
  try { new EventSource("http://" + h + "/e"); } catch (e) {}
  try { navigator.sendBeacon("http://" + h + "/b", "x"); } catch (e) {}
  const img = new Image(); img.src = "http://" + h + "/i.png"; document.body.appendChild(img);
  const f = document.createElement("iframe"); f.src = "http://" + h + "/frame"; document.body.appendChild(f);
}
out.push(fetch("/own").then(r => r.text()).then(t => "own origin: " + t));
Promise.all(out).then(r => { document.getElementById("log").textContent = r.join("\n"); });`
	s.page("/", `<!doctype html><html><body><pre id="log"></pre><link rel="stylesheet" href="http://127.0.0.2:`+fmt.Sprint(c.port)+`/s.css"><script>`+js+`</script></body></html>`)
	s.mux.HandleFunc("/own", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") })
	r := newRenderer(t, Config{}, s.addr())
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// The control: the page's own origin works through the same proxy.
	if !strings.Contains(p.HTML, "own origin: reached") {
		t.Fatalf("the page could not reach its own origin, so the test proves nothing: %s", p.HTML)
	}
	if strings.Contains(p.HTML, " reached\n") || strings.Contains(p.HTML, "reached\nown") {
		t.Fatalf("a forbidden fetch succeeded: %s", p.HTML)
	}
	time.Sleep(300 * time.Millisecond) // late beacons and sockets
	if n := c.hits.Load(); n != 0 {
		t.Fatalf("the other loopback listener (%v, port %d) saw %d connections", c.addrs, c.port, n)
	}
	if p.Refused == 0 {
		t.Fatalf("the guard refused nothing: %+v", p)
	}
	t.Logf("refused %d of %d requests; notes %v", p.Refused, p.Requests, p.Notes)
}

func TestRenderRedirectChainToPrivate(t *testing.T) {
	s := newSite(t)
	c := newCanary(t)
	s.mux.HandleFunc("/r1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/r2", http.StatusFound) })
	s.mux.HandleFunc("/r2", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.2:%d/secret", c.port), http.StatusMovedPermanently)
	})
	s.mux.HandleFunc("/r3", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("https://localhost:%d/secret", c.port), http.StatusTemporaryRedirect)
	})
	r := newRenderer(t, Config{}, s.addr())
	for _, start := range []string{"/r1", "/r3"} {
		_, err := r.Render(context.Background(), s.URL+start)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("%s: got %v, want a refusal", start, err)
		}
		if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: the refusal does not say why: %v", start, err)
		}
		t.Logf("%s: %v", start, err)
	}
	if n := c.hits.Load(); n != 0 {
		t.Fatalf("the private listener saw %d connections", n)
	}
}

// TestCanaryCatchesAnUnguardedBrowser is the control of the test above: with
// the guard lifted, the same kind of page does reach the listener.
func TestCanaryCatchesAnUnguardedBrowser(t *testing.T) {
	s := newSite(t)
	c := newCanary(t)
	s.page("/", fmt.Sprintf(`<!doctype html><body><script>fetch("http://127.0.0.2:%d/f").catch(() => {});</script>`, c.port))
	r := newRenderer(t, Config{AllowPrivate: true})
	r.cfg.AllowAddrs, r.g.allowAddrs = nil, nil
	if _, err := r.Render(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if c.hits.Load() == 0 {
		t.Fatal("with the guard lifted the listener saw nothing: the canary cannot tell a guarded browser from a broken one")
	}
}

func TestRenderPageThatNeverFinishesLoading(t *testing.T) {
	s := newSite(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.page("/", `<!doctype html><html><body><p id="t">the text is here</p><img src="/never.png">
<script>document.getElementById("t").textContent += " and written";</script></body></html>`)
	s.mux.HandleFunc("/never.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select { // never ends the body
		case <-release:
		case <-r.Context().Done():
		}
	})
	r := newRenderer(t, Config{PageTimeout: 6 * time.Second}, s.addr())
	began := time.Now()
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, "the text is here and written") {
		t.Fatalf("text missing: %s", p.HTML)
	}
	if !p.Slow || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "still loading") {
		t.Fatalf("the answer does not say the page was still loading: slow %v notes %v", p.Slow, p.Notes)
	}
	// The image never ends: the render ends at its time limit (plus the
	// moments a busy machine needs to close the tab), not with the image.
	if took := time.Since(began); took > 15*time.Second {
		t.Fatalf("took %s with a 6s page timeout", took)
	}
	// A main document that never answers is a timeout, not a hang.
	s.mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	_, err = r.Render(context.Background(), s.URL+"/silent")
	if !errors.Is(err, errPageTimeout) {
		t.Fatalf("a silent page: got %v, want a timeout", err)
	}
	t.Logf("silent page: %v", err)

	// A script that never yields holds the page, not the renderer.
	s.page("/busy", `<!doctype html><body><p>before</p><script>setTimeout(() => { for (;;) {} }, 10)</script>`)
	s.page("/after", `<!doctype html><body><p>after the busy page</p>`)
	if _, err := r.Render(context.Background(), s.URL+"/busy"); !errors.Is(err, errPageTimeout) {
		t.Fatalf("a busy page: got %v, want a timeout", err)
	}
	r2 := newRenderer(t, Config{}, s.addr()) // the busy page's renderer process may still spin a moment
	if p, err := r2.Render(context.Background(), s.URL+"/after"); err != nil || !strings.Contains(p.HTML, "after the busy page") {
		t.Fatalf("the render after a busy page: %v", err)
	}
}

func TestRenderHundredPopups(t *testing.T) {
	s := newSite(t)
	var popupHits atomic.Int64
	s.mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) { popupHits.Add(1); fmt.Fprint(w, "popup") })
	s.page("/", `<!doctype html><html><body><p>main page</p><a id="a" href="/popup" target="_blank">x</a>
<script>
for (let i = 0; i < 100; i++) { try { window.open("/popup?" + i, "_blank"); } catch (e) {} }
const f = document.createElement("iframe"); document.body.appendChild(f);
try { for (let i = 0; i < 10; i++) f.contentWindow.open("/popup?frame" + i); } catch (e) {}
for (let i = 0; i < 10; i++) document.getElementById("a").click();
alert("a dialog"); confirm("another");
document.body.insertAdjacentHTML("beforeend", "<p>after the popups</p>");
</script></body></html>`)
	r := newRenderer(t, Config{}, s.addr())
	b, err := r.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := pageTargets(t, b)
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, "after the popups") {
		t.Fatalf("the page did not run to its end: %s", p.HTML)
	}
	if n := popupHits.Load(); n != 0 {
		t.Fatalf("%d popups loaded", n)
	}
	time.Sleep(200 * time.Millisecond)
	if after := pageTargets(t, b); after != before {
		t.Fatalf("the browser has %d page targets after the render, %d before", after, before)
	}
	t.Logf("notes %v", p.Notes)
}

func pageTargets(t *testing.T, b *browserProc) int {
	t.Helper()
	infos, err := chromedp.Targets(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, i := range infos {
		if i.Type == "page" {
			n++
		}
	}
	return n
}

// TestRenderBrowserCrashMidRender: the browser is killed while a page
// renders; that render is tried again on a new browser, and the next
// renders work.
func TestRenderBrowserCrashMidRender(t *testing.T) {
	t.Parallel() // a browser of its own
	s := newSite(t)
	arrived := make(chan struct{}, 4)
	s.page("/", `<!doctype html><html><body><main id="m">wait</main>
<script>fetch("/slow").then(r => r.text()).then(t => { document.getElementById("m").textContent = t; });</script></body></html>`)
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		time.Sleep(700 * time.Millisecond)
		fmt.Fprint(w, "survived the crash")
	})
	r := ownRenderer(t, Config{}, s.addr())
	b, err := r.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b.pid == 0 {
		t.Fatal("no browser pid")
	}
	go func() {
		<-arrived
		_ = syscall.Kill(b.pid, syscall.SIGKILL)
	}()
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatalf("the render the crash broke was not retried: %v", err)
	}
	if !strings.Contains(p.HTML, "survived the crash") {
		t.Fatalf("slow %v after %s, notes %v: html %s", p.Slow, p.Took, p.Notes, p.HTML)
	}
	nb, err := r.browser(context.Background())
	if err != nil || nb == b || nb.pid == b.pid {
		t.Fatalf("no new browser after the crash: %v", err)
	}
	// The killed browser's profile goes with it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(b.dir); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crashed browser's profile %s is still there", b.dir)
		}
	}
	if st := r.Status(); !strings.Contains(st, "restarted 1 times") && !strings.Contains(st, "degraded") {
		t.Fatalf("status does not name the restart: %s", st)
	}
	t.Logf("status after the crash: %s", r.Status())
}

// TestRenderHungBrowser: a browser that stops answering (SIGSTOP) is
// replaced, and the render is tried on the new one.
func TestRenderHungBrowser(t *testing.T) {
	t.Parallel() // a browser of its own
	s := newSite(t)
	s.page("/", `<!doctype html><body><p>after the hang</p>`)
	r := ownRenderer(t, Config{PageTimeout: 5 * time.Second}, s.addr())
	b, err := r.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(b.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(b.pid, syscall.SIGKILL) })
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	p, err := r.Render(ctx, s.URL+"/")
	if err != nil {
		t.Fatalf("the hung browser was not replaced: %v (status %s)", err, r.Status())
	}
	if nb, err := r.browser(ctx); err != nil || nb == b {
		t.Fatalf("the hung browser is still the renderer's: %v", err)
	}
	if !strings.Contains(p.HTML, "after the hang") {
		t.Fatalf("html: %s", p.HTML)
	}
}

// TestRenderCancelClosesTheTab: cancelling the call ends the render at once,
// cuts the page's connections and closes its tab.
func TestRenderCancelClosesTheTab(t *testing.T) {
	s := newSite(t)
	started := make(chan struct{}, 1)
	cut := make(chan struct{}, 1)
	s.page("/", `<!doctype html><body><script>fetch("/forever")</script>`)
	s.mux.HandleFunc("/forever", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
		cut <- struct{}{}
	})
	r := newRenderer(t, Config{PageTimeout: 20 * time.Second}, s.addr())
	b, err := r.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := pageTargets(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	began := time.Now()
	_, err = r.Render(ctx, s.URL+"/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want cancelled", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("cancel took %s", took)
	}
	select {
	case <-cut:
	case <-time.After(2 * time.Second):
		t.Fatal("the page's request was not cut when the call ended")
	}
	// The close went out at once; the browser takes a moment to drop it.
	for deadline := time.Now().Add(3 * time.Second); pageTargets(t, b) != before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d page targets 3s after the cancel, %d before", pageTargets(t, b), before)
		}
	}
}

// TestRenderIsolatesPages: what one render leaves (cookies, storage, a
// service worker, the cache) is gone for the next, and file:, data: and
// credentialed URLs are refused before the browser sees them.
func TestRenderIsolatesPages(t *testing.T) {
	s := newSite(t)
	var cookieSeen atomic.Value
	cookieSeen.Store("")
	var swFetched, cached atomic.Int64
	s.mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "licensee-a", Path: "/", MaxAge: 3600})
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><body><img src="/cached.png"><script>
localStorage.setItem("k", "from-a"); sessionStorage.setItem("k", "from-a");
document.cookie = "js=from-a; path=/; max-age=3600";
indexedDB.open("db-a");
try { navigator.serviceWorker && navigator.serviceWorker.register("/sw.js"); } catch (e) {}
document.body.insertAdjacentHTML("beforeend", "<p id=sw>" + (typeof navigator.serviceWorker) + "</p>");
</script>`)
	})
	s.mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		swFetched.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `self.addEventListener("fetch", e => e.respondWith(new Response("from the worker")));`)
	})
	s.mux.HandleFunc("/cached.png", func(w http.ResponseWriter, r *http.Request) {
		cached.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("Content-Type", "image/png")
	})
	s.mux.HandleFunc("/get", func(w http.ResponseWriter, r *http.Request) {
		cookieSeen.Store(r.Header.Get("Cookie"))
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><body><img src="/cached.png"><p id="out"></p><script>
document.getElementById("out").textContent = JSON.stringify({cookie: document.cookie, local: localStorage.getItem("k"), session: sessionStorage.getItem("k")});
</script>`)
	})
	r := newRenderer(t, Config{}, s.addr())
	p, err := r.Render(context.Background(), s.URL+"/set")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, `<p id="sw">undefined</p>`) {
		t.Errorf("a page could reach navigator.serviceWorker: %s", p.HTML)
	}
	p, err = r.Render(context.Background(), s.URL+"/get")
	if err != nil {
		t.Fatal(err)
	}
	if c := cookieSeen.Load().(string); c != "" {
		t.Errorf("the second render sent the first one's cookies: %q", c)
	}
	if !strings.Contains(p.HTML, `{"cookie":"","local":null,"session":null}`) {
		t.Errorf("the second render sees the first one's state: %s", p.HTML)
	}
	if n := swFetched.Load(); n != 0 {
		t.Errorf("the service worker script was fetched %d times", n)
	}
	if n := cached.Load(); n != 2 {
		t.Errorf("the cacheable image was fetched %d times over two renders, want 2 (no cache outlives a page)", n)
	}
	for _, bad := range []string{"file:///etc/passwd", "data:text/html,<p>x</p>", "javascript:alert(1)", "chrome://version", "http://user:pw@" + s.Listener.Addr().String() + "/get"} {
		if _, err := r.Render(context.Background(), bad); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: got %v, want a refusal", bad, err)
		}
	}
	// A page that sends itself to a file: URL stays a web page (the
	// browser refuses the navigation) or is refused.
	s.page("/tofile", `<!doctype html><body><p>web page</p><script>location.href = "file:///etc/passwd";</script>`)
	p, err = r.Render(context.Background(), s.URL+"/tofile")
	if err == nil && (strings.Contains(p.HTML, "root:") || !strings.HasPrefix(p.URL, "http")) {
		t.Fatalf("the page reached a file: %s %s", p.URL, p.HTML)
	}
}

// TestRenderReportsUpstream: every request the browser makes is reported
// through Config.Upstream, as the fetchers report theirs.
func TestRenderReportsUpstream(t *testing.T) {
	s := newSite(t)
	s.page("/", `<!doctype html><body><script>fetch("/a"); fetch("/b")</script>`)
	s.mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "aaaa") })
	s.mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusNotFound) })
	var mu sync.Mutex
	got := map[string]scrapers.Upstream{}
	r := newRenderer(t, Config{Site: "web-crawl", Upstream: func(_ context.Context, u scrapers.Upstream) {
		mu.Lock()
		got[u.Path] = u
		mu.Unlock()
	}}, s.addr())
	if _, err := r.Render(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if u := got["/"]; u.Site != "web-crawl" || u.Status != 200 || u.Outcome != scrapers.OutcomeOK || u.Bytes == 0 {
		t.Errorf("the page: %+v", u)
	}
	if u := got["/a"]; u.Status != 200 || u.Bytes != 4 {
		t.Errorf("/a: %+v", u)
	}
	if u := got["/b"]; u.Status != 404 || u.Outcome != scrapers.OutcomeClientError {
		t.Errorf("/b: %+v", u)
	}
}

// startRemoteChromium runs a Chromium the way the browser container does
// (a DevTools port, GuardFlags), for the RENDERER_URL path.
func startRemoteChromium(t *testing.T) string {
	t.Helper()
	// A profile of its own, removed once the whole process group is gone
	// (t.TempDir would race the browser's children still writing to it).
	dir, err := os.MkdirTemp("", "render-remote-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir=" + dir}, GuardFlags...)
	cmd := exec.Command(chromium(t), append(args, "about:blank")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		for range 20 {
			if os.RemoveAll(dir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, ws, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				found <- ws
			}
		}
	}()
	select {
	case ws := <-found:
		u, err := url.Parse(ws)
		if err != nil {
			t.Fatal(err)
		}
		return "http://" + u.Host // as RENDERER_URL is written
	case <-time.After(30 * time.Second):
		t.Fatal("the remote Chromium did not start")
	}
	return ""
}

// TestRenderRemoteBrowser: a browser beside the host (RENDERER_URL) renders
// behind the same guard, and an unreachable one is named in the status.
func TestRenderRemoteBrowser(t *testing.T) {
	s := newSite(t)
	c := newCanary(t)
	s.page("/", fmt.Sprintf(`<!doctype html><body><p id="t"></p><script>
fetch("http://127.0.0.2:%d/x").catch(() => {});
fetch("http://localhost:%d/x").catch(() => {});
document.getElementById("t").textContent = "rendered remotely";</script>`, c.port, c.port))
	endpoint := startRemoteChromium(t)
	r, err := New(Config{URL: endpoint, PageTimeout: 20 * time.Second, AllowAddrs: map[netip.AddrPort]bool{s.addr(): true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, `<p id="t">rendered remotely</p>`) {
		t.Fatalf("html: %s", p.HTML)
	}
	time.Sleep(200 * time.Millisecond)
	if n := c.hits.Load(); n != 0 || p.Refused == 0 {
		t.Fatalf("the remote browser's page reached the listener %d times (refused %d)", n, p.Refused)
	}
	if st := r.Status(); !strings.HasPrefix(st, "ok (") || !strings.Contains(st, "RENDERER_URL="+endpoint) {
		t.Fatalf("status: %s", st)
	}

	// Nothing listening: a clear error, and readiness says degraded.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	_ = ln.Close()
	r2, err := New(Config{URL: dead})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r2.Close)
	_, err = r2.Render(context.Background(), s.URL+"/")
	if err == nil || !strings.Contains(err.Error(), "RENDERER_URL") {
		t.Fatalf("an unreachable browser: %v", err)
	}
	if st := r2.Status(); !strings.HasPrefix(st, "degraded: ") || !strings.Contains(st, "cannot be reached") {
		t.Fatalf("status with an unreachable browser: %s", st)
	}
	t.Logf("unreachable: %v; status %s", err, r2.Status())
}

// TestRenderRefusesDownloadsAndPermissions: a download is refused (and
// nothing is written), and permission prompts are answered "denied".
func TestRenderRefusesDownloadsAndPermissions(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/file.zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", `attachment; filename="file.zip"`)
		fmt.Fprint(w, "PK\x03\x04 not really a zip")
	})
	s.page("/", `<!doctype html><body><pre id="out"></pre><script>
const out = [];
const note = x => { out.push(x); document.getElementById("out").textContent = out.sort().join(" "); };
navigator.geolocation.getCurrentPosition(() => note("geo:yes"), e => note("geo:" + e.code));
try { Notification.requestPermission().then(p => note("notify:" + p), e => note("notify:" + e)); } catch (e) { note("notify:" + e.name); }
navigator.permissions.query({name: "notifications"}).then(p => note("notifyquery:" + p.state), () => note("notifyquery:unknown"));
navigator.permissions.query({name: "camera"}).then(p => note("camera:" + p.state), () => note("camera:unknown"));
const a = document.createElement("a"); a.href = "/file.zip"; a.download = "file.zip"; document.body.appendChild(a); a.click();
</script>`)
	r := newRenderer(t, Config{}, s.addr())
	p, err := r.Render(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<pre id="out">([^<]*)</pre>`).FindStringSubmatch(p.HTML)
	if m == nil {
		t.Fatalf("no answers: %s", p.HTML)
	}
	// 1 is PERMISSION_DENIED.
	// Notification itself is absent (--disable-notifications); asked
	// through the Permissions API, every permission is denied, never
	// granted nor left to a prompt.
	if got := m[1]; !strings.Contains(got, "geo:1") || !strings.Contains(got, "notifyquery:denied") || !strings.Contains(got, "camera:denied") ||
		strings.Contains(got, "yes") || strings.Contains(got, "granted") || strings.Contains(got, "prompt") {
		t.Errorf("permission answers: %q", got)
	}
	t.Logf("permission answers: %q", m[1])
	if _, err := r.Render(context.Background(), s.URL+"/file.zip"); err == nil || !strings.Contains(err.Error(), "download") {
		t.Errorf("a download was not refused: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), "Downloads", "file*.zip")); len(m) > 0 {
		t.Errorf("a download was written: %v", m)
	}
}
