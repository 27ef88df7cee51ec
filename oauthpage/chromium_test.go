//go:build unix

package oauthpage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// The end-to-end tests drive Debian's chromium in headless mode as a
// subprocess (--dump-dom prints the DOM once the last navigation loaded;
// --screenshot writes a PNG). CHROMIUM_BIN names another binary.

// chromiumTimeout bounds one browser run.
const chromiumTimeout = 20 * time.Second

func chromiumBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_BIN"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping the browser test: no chromium binary on PATH (Debian: apt-get install -y chromium; or set CHROMIUM_BIN)")
	return ""
}

// runChromium runs headless chromium with a fresh profile and args, and
// returns its standard output.
func runChromium(t *testing.T, args ...string) string {
	t.Helper()
	bin := chromiumBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	// Chromium starts helper processes; on a timeout the whole group goes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("chromium %s took %v", args[0], time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("chromium did not finish within %v; stderr:\n%s", chromiumTimeout, tail(stderr.String()))
	}
	if err != nil {
		t.Fatalf("chromium: %v; stderr:\n%s", err, tail(stderr.String()))
	}
	return stdout.String()
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// hit is one request a stand-in server received.
type hit struct {
	Path, RawQuery, Referer string
}

// recorder records requests and answers with a small page saying who it is.
type recorder struct {
	name string
	mu   sync.Mutex
	hits []hit
}

func (rec *recorder) record(r *http.Request) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.hits = append(rec.hits, hit{r.URL.Path, r.URL.RawQuery, r.Header.Get("Referer")})
}

func (rec *recorder) got(path string) []hit {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []hit
	for _, h := range rec.hits {
		if h.Path == path {
			out = append(out, h)
		}
	}
	return out
}

// e2e is the host with the pages mounted, and a stand-in for the app's API
// on 127.0.0.1:<appPort>.
type e2e struct {
	host    *httptest.Server
	hostRec *recorder
	app     *recorder
	appPort int
}

const appMarker = "stand-in app received the sign-in"

func newE2E(t *testing.T) *e2e {
	t.Helper()
	chromiumBinary(t) // skip before starting servers
	e := &e2e{hostRec: &recorder{name: "host"}, app: &recorder{name: "app"}}

	pages, _, _ := newTestPages(t, nil)
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			e.hostRec.record(req)
			next.ServeHTTP(w, req)
		})
	})
	pages.Mount(r)
	e.host = httptest.NewServer(r)
	t.Cleanup(e.host.Close)

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.appPort = ln.Addr().(*net.TCPAddr).Port
	if e.appPort < MinPort {
		t.Fatalf("the stand-in app got port %d, below %d", e.appPort, MinPort)
	}
	app := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		e.app.record(req)
		if req.URL.Path != AppCallbackPath {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>SurfSense</title><p id=result>%s</p>", appMarker)
	})}
	go app.Serve(ln)
	t.Cleanup(func() { app.Close() })
	return e
}

func (e *e2e) callbackURL(rawQuery string) string {
	return e.host.URL + CallbackPath + "?" + rawQuery
}

// TestChromiumForwardsToApp: a provider's page sends the browser to the
// host's callback, and the app's stand-in receives the query byte for byte,
// without a Referer.
func TestChromiumForwardsToApp(t *testing.T) {
	e := newE2E(t)
	state := fmt.Sprintf("%d.bW9ja19ub25jZV9mcm9tX3Rva2VuX3VybHNhZmUtMzI", e.appPort)
	query := "code=SplxlOBeZQQYbYS6WxSbIA-_.~%2F%2B%3D+x!$*,:@/?&state=" + state + "&iss=https%3A%2F%2Fauth.example.com"

	// The provider's consent page navigates by script, as after a click,
	// so the browser sends a Referer to the host.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target, _ := json.Marshal(e.callbackURL(query))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Provider</title><p>Signing you in…</p><script>location.href = %s;</script>", target)
	}))
	defer provider.Close()

	dom := runChromium(t, "--dump-dom", provider.URL+"/consent")

	hostHits := e.hostRec.got(CallbackPath)
	if len(hostHits) != 1 {
		t.Fatalf("the host's callback was asked %d times: %+v", len(hostHits), hostHits)
	}
	if hostHits[0].RawQuery != query {
		t.Fatalf("chromium changed the query on its way to the host:\n got %q\nwant %q", hostHits[0].RawQuery, query)
	}
	if hostHits[0].Referer == "" {
		t.Fatal("the provider's navigation sent no Referer, so the app's lack of one would prove nothing")
	}
	appHits := e.app.got(AppCallbackPath)
	if len(appHits) != 1 {
		t.Fatalf("the app's callback was asked %d times (all: %+v)", len(appHits), e.app.hits)
	}
	if appHits[0].RawQuery != query {
		t.Errorf("the app received another query:\n got %q\nwant %q", appHits[0].RawQuery, query)
	}
	if appHits[0].Referer != "" {
		t.Errorf("the app received Referer %q; the forward must send none", appHits[0].Referer)
	}
	if !strings.Contains(dom, appMarker) {
		t.Errorf("the browser did not end on the app's page; DOM:\n%s", dom)
	}
}

// TestChromiumProviderErrorAndReplay: a provider's error reaches the app
// unchanged, and opening the same link again shows the 400 page.
func TestChromiumProviderErrorAndReplay(t *testing.T) {
	e := newE2E(t)
	query := fmt.Sprintf("error=access_denied&error_description=The%%20user%%20said%%20no%%20%%E2%%80%%94%%20twice&state=%d.Nonce-2_x", e.appPort)

	dom := runChromium(t, "--dump-dom", e.callbackURL(query))
	appHits := e.app.got(AppCallbackPath)
	if len(appHits) != 1 || appHits[0].RawQuery != query {
		t.Fatalf("the app received %+v, want one callback with %q", appHits, query)
	}
	if !strings.Contains(dom, appMarker) {
		t.Errorf("the browser did not end on the app's page; DOM:\n%s", dom)
	}

	dom = runChromium(t, "--dump-dom", e.callbackURL(query))
	if n := len(e.app.got(AppCallbackPath)); n != 1 {
		t.Errorf("a replayed link reached the app (%d callbacks)", n)
	}
	for _, want := range []string{brokenHeading, brokenAdvice, "already used"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the replay's page lacks %q; DOM:\n%s", want, dom)
		}
	}
}

// TestChromiumBrokenPage renders the 400 page for malformed states: the text
// says what happened and what to do, input stays text, and the page's style
// sheet is applied under its CSP (the background is the style's, not white).
func TestChromiumBrokenPage(t *testing.T) {
	e := newE2E(t)
	query := fmt.Sprintf("code=abc&state=%d.%%3Cscript%%3Edocument.title%%3D%%27pwned%%27%%3C%%2Fscript%%3E", e.appPort)
	dom := runChromium(t, "--dump-dom", e.callbackURL(query))
	for _, want := range []string{brokenHeading, brokenAdvice, "You can close this tab"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q; DOM:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, "pwned") || strings.Contains(dom, "<script") {
		t.Errorf("the page holds the input; DOM:\n%s", dom)
	}

	shot := filepath.Join(t.TempDir(), "broken.png")
	runChromium(t, "--screenshot="+shot, "--window-size=800,600", "--hide-scrollbars", e.callbackURL("code=abc&state=80.abc"))
	if dir := os.Getenv("OAUTHPAGE_SCREENSHOT_DIR"); dir != "" {
		if b, err := os.ReadFile(shot); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "broken.png"), b, 0o644)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 800 || b.Dy() != 600 {
		t.Errorf("screenshot is %dx%d, want 800x600", b.Dx(), b.Dy())
	}
	// The corner is the body's background, #f5f7fa, when the style applies.
	r, g, bl, _ := img.At(2, 2).RGBA()
	if r>>8 != 0xf5 || g>>8 != 0xf7 || bl>>8 != 0xfa {
		t.Errorf("background at (2,2) is #%02x%02x%02x, want #f5f7fa: the style sheet was not applied", r>>8, g>>8, bl>>8)
	}
	// Text is drawn: some pixels are dark.
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r>>8)+(g>>8)+(bl>>8) < 3*100 {
				dark++
			}
		}
	}
	if dark < 200 {
		t.Errorf("the screenshot has %d dark pixels: no text was drawn", dark)
	}
	if n := len(e.app.got(AppCallbackPath)); n != 0 {
		t.Errorf("a malformed state reached the app (%d callbacks)", n)
	}
}
