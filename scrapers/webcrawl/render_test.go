package webcrawl

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers/render"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// spaShell is a page as a single-page app serves it: no text, a root the
// script fills.
const spaShell = `<!doctype html><html lang="en"><head><title>App</title><script src="/bundle.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`

const spaBundle = `document.addEventListener("DOMContentLoaded", () => {
  const next = location.pathname === "/" ? '<a href="/spa/next">the next page</a>' : "";
  document.getElementById("root").innerHTML = "<article><h1>Rendered " + location.pathname + "</h1><p>" +
    "This paragraph exists only after the script ran, and it is long enough to be the main content of the page. " + next + "</p></article>";
});`

const articlePage = `<!doctype html><html lang="en"><head><title>Plain</title></head><body><article><h1>Plain</h1>
<p>` + "A page served whole, whose text is there without any script: nothing to render here. " + `</p>
<p>` + "It has enough words in it to be far from thin, so auto leaves it as fetched and the browser never sees it. " + `</p>
<p>` + "One more paragraph to be sure, about the weather, the sea, and the price of bread in the old town market. " + `</p>
<p>` + "And another, because five hundred characters of text is the line between a shell and a page worth reading." + `</p>
</article></body></html>`

func TestNeedsRendering(t *testing.T) {
	long := strings.Repeat("Plenty of words in a real article. ", 40)
	for _, tc := range []struct {
		name, html string
		want       bool
	}{
		{"app shell", spaShell, true},
		{"empty root, inline boot", `<html><body><div id="__next"></div><script>self.__next_f=[]</script></body></html>`, true},
		{"heavy inline script", `<html><body><p>Loading</p><script>` + strings.Repeat("var a=1;", 400) + `</script></body></html>`, true},
		{"noscript asks for JavaScript", `<html><body><p>Hello</p><noscript>This site requires JavaScript.</noscript></body></html>`, true},
		{"article", articlePage, false},
		{"article with scripts", `<html><head><script src="/a.js"></script><script src="/b.js"></script></head><body><p>` + long + `</p></body></html>`, false},
		{"thin page without scripts", `<html><body><p>Short note.</p></body></html>`, false},
		{"filled root", `<html><body><div id="root"><p>Server-rendered text</p></div><script src="/x.js"></script></body></html>`, true}, // thin and heavy all the same
		{"empty", ``, false},
	} {
		why, got := needsRendering([]byte(tc.html))
		if got != tc.want {
			t.Errorf("%s: needsRendering = %v (%q), want %v", tc.name, got, why, tc.want)
		}
		if got && why == "" {
			t.Errorf("%s: no reason given", tc.name)
		}
	}
}

func FuzzNeedsRendering(f *testing.F) {
	f.Add([]byte(spaShell))
	f.Add([]byte(articlePage))
	f.Add([]byte(`<div id="root"><script src=x></div></noscript><noscript>enable javascript`))
	f.Fuzz(func(t *testing.T, b []byte) {
		why, need := needsRendering(b)
		if need && why == "" {
			t.Fatal("rendering asked for without a reason")
		}
	})
}

func TestRenderArgument(t *testing.T) {
	s := newSite(t)
	// No renderer: always is a tool error naming the argument; auto and
	// never fetch.
	_, err, _ := run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}, "render": "always"})
	scrapertest.CheckArgError(t, err, "render", "always without a renderer")
	if !strings.Contains(err.Error(), "RENDERER_URL or CHROMIUM_BIN") {
		t.Errorf("the error does not say how to get a renderer: %v", err)
	}
	_, err, _ = run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}, "render": "sometimes"})
	scrapertest.CheckArgError(t, err, "render", "a bad value")
	items, err, _ := run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}, "render": "auto"})
	if err != nil || len(items) != 1 || items[0]["rendered"] != false {
		t.Fatalf("auto without a renderer: %v %v", err, items)
	}
	schema := NewWithSettings(testSettings()).Tools[0].InputSchema.Properties["render"]
	if schema == nil || len(schema.Enum) != 3 {
		t.Fatalf("render's schema: %+v", schema)
	}
}

func chromiumOrSkip(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("CHROMIUM_BIN"); b != "" {
		return b
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Skip("no chromium on this machine (apt-get install chromium, or set CHROMIUM_BIN): web-crawl's rendering tests are skipped")
	return ""
}

// spaSite serves an app shell at / and /spa/next, and an article at /plain.
func spaSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var bundles atomic.Int64
	mux := http.NewServeMux()
	shell := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/spa/next" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, spaShell)
	}
	mux.HandleFunc("/", shell)
	mux.HandleFunc("/bundle.js", func(w http.ResponseWriter, r *http.Request) {
		bundles.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, spaBundle)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articlePage)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &bundles
}

func renderSettings(t *testing.T, srv *httptest.Server) Settings {
	t.Helper()
	s := testSettings()
	s.PageTimeout = 10 * time.Second
	r, err := render.New(render.Config{Bin: chromiumOrSkip(t), Site: ID, PageTimeout: s.PageTimeout, MaxHTMLChars: s.MaxPageBytes,
		AllowAddrs: map[netip.AddrPort]bool{netip.MustParseAddrPort(srv.Listener.Addr().String()): true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	s.Renderer = r
	return s
}

func TestCrawlRendersPagesThatNeedJavaScript(t *testing.T) {
	srv, bundles := spaSite(t)
	s := renderSettings(t, srv)

	// auto: the shell is rendered (and the link its script wrote is
	// followed and rendered too); the article is left as fetched.
	items, err, out := run(t, s, map[string]any{"start_urls": []string{srv.URL + "/", srv.URL + "/plain"}, "max_crawl_depth": 1})
	if err != nil {
		t.Fatal(err)
	}
	got := byURL(items)
	home, plain, next := got[srv.URL+"/"], got[srv.URL+"/plain"], got[srv.URL+"/spa/next"]
	if home == nil || plain == nil || next == nil {
		t.Fatalf("pages: %v (partial %v %v)", items, out.Partial, out.Reasons)
	}
	for name, p := range map[string]map[string]any{"/": home, "/spa/next": next} {
		if p["rendered"] != true || !strings.Contains(p["markdown"].(string), "exists only after the script ran") {
			t.Errorf("%s was not rendered: %v", name, p)
		}
		notes, _ := p["render_notes"].([]any)
		if len(notes) == 0 || !strings.Contains(fmt.Sprint(notes[0]), "characters of text") {
			t.Errorf("%s does not say why it was rendered: %v", name, notes)
		}
	}
	if !strings.Contains(home["markdown"].(string), "Rendered /") {
		t.Errorf("home's markdown: %q", home["markdown"])
	}
	if plain["rendered"] != false || plain["render_notes"] != nil {
		t.Errorf("the article was rendered: %v", plain)
	}
	if n := bundles.Load(); n != 2 {
		t.Errorf("the bundle was loaded %d times, want 2 (two pages rendered)", n)
	}

	// never: the shell stays a shell.
	items, err, _ = run(t, s, map[string]any{"start_urls": []string{srv.URL + "/"}, "render": "never"})
	if err != nil || len(items) != 1 || items[0]["rendered"] != false || strings.Contains(items[0]["markdown"].(string), "after the script ran") {
		t.Fatalf("render never: %v %v", err, items)
	}

	// always: even the article goes through the browser, and comes out the same.
	items, err, _ = run(t, s, map[string]any{"start_urls": []string{srv.URL + "/plain"}, "render": "always"})
	if err != nil || len(items) != 1 || items[0]["rendered"] != true || !strings.Contains(items[0]["markdown"].(string), "price of bread") {
		t.Fatalf("render always: %v %v", err, items)
	}
	if items[0]["status"] != float64(200) || items[0]["title"] != "Plain" {
		t.Errorf("rendered page: status %v title %v", items[0]["status"], items[0]["title"])
	}

	// A rendered page goes through the same bounds: max_length cuts it.
	items, err, _ = run(t, s, map[string]any{"start_urls": []string{srv.URL + "/"}, "render": "always", "max_length": 100})
	if err != nil || len(items) != 1 || len([]rune(items[0]["markdown"].(string))) > 100 || items[0]["truncated"] == nil {
		t.Fatalf("max_length on a rendered page: %v %v", err, items)
	}
}

// TestCrawlRenderRefusesPrivateRedirects: a page whose redirect leads to
// an address outside the allow-list fails, saying it was refused.
func TestCrawlRenderRefusesPrivateRedirects(t *testing.T) {
	srv, _ := spaSite(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the private server was reached: %s", r.URL)
	}))
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/admin", http.StatusFound)
	})
	redirector := httptest.NewServer(mux)
	t.Cleanup(redirector.Close)
	s := renderSettings(t, srv)
	r, err := render.New(render.Config{Bin: chromiumOrSkip(t), Site: ID, PageTimeout: 10 * time.Second,
		AllowAddrs: map[netip.AddrPort]bool{netip.MustParseAddrPort(redirector.Listener.Addr().String()): true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	s.Renderer = r
	items, err, _ := run(t, s, map[string]any{"start_urls": []string{redirector.URL + "/"}, "render": "always"})
	if err != nil || len(items) != 1 {
		t.Fatalf("%v %v", err, items)
	}
	if e, _ := items[0]["error"].(string); !strings.Contains(e, "refused") || !strings.Contains(e, "loopback") {
		t.Fatalf("the failure does not say the redirect was refused: %v", items[0])
	}
}
