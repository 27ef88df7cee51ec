package render

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// TestProxyGuards drives the per-render proxy with a plain Go client, as the
// browser uses it: absolute http URLs forwarded, CONNECT tunnels, every dial
// judged by the guard, refusals marked, the request bound kept and counted,
// and everything cut when the render ends. It needs no browser.
func TestProxyGuards(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Connection") != "" || r.Header.Get("Proxy-Authorization") != "" {
			t.Errorf("proxy headers reached the origin: %v", r.Header)
		}
		fmt.Fprint(w, "origin says hello")
	}))
	defer origin.Close()
	tlsOrigin := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls hello") }))
	defer tlsOrigin.Close()
	c := newCanary(t)

	var mu sync.Mutex
	var reports []scrapers.Upstream
	g := guard{allowAddrs: map[netip.AddrPort]bool{
		netip.MustParseAddrPort(origin.Listener.Addr().String()):    true,
		netip.MustParseAddrPort(tlsOrigin.Listener.Addr().String()): true,
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	px, err := startProxy(ctx, g, Limits{MaxRequests: 8, MaxBytes: 1 << 20}, "web-crawl", func(_ context.Context, u scrapers.Upstream) {
		mu.Lock()
		reports = append(reports, u)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	pu, _ := url.Parse(px.URL())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}

	get := func(u string) (*http.Response, string, error) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Proxy-Authorization", "Basic eDp5")
		resp, err := client.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b), nil
	}
	if resp, body, err := get(origin.URL + "/x"); err != nil || resp.StatusCode != 200 || body != "origin says hello" {
		t.Fatalf("the allowed origin through the proxy: %v %v %q", err, resp, body)
	}
	if resp, body, err := get(tlsOrigin.URL + "/x"); err != nil || resp.StatusCode != 200 || body != "tls hello" {
		t.Fatalf("the allowed TLS origin through a tunnel: %v %v %q", err, resp, body)
	}
	for _, h := range []string{"127.0.0.1", "127.0.0.2", "localhost"} {
		target := fmt.Sprintf("http://%s:%d/secret", h, c.port)
		resp, body, err := get(target)
		if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get(guardHeader) == "" || !strings.Contains(body, "loopback") {
			t.Errorf("%s: %v %v %q, want the guard's 403", target, err, resp, body)
		}
		if _, _, err := get(fmt.Sprintf("https://%s:%d/secret", h, c.port)); err == nil {
			t.Errorf("a tunnel to %s was opened", h)
		}
	}
	if n := c.hits.Load(); n != 0 {
		t.Fatalf("the canary saw %d connections", n)
	}
	if px.refused.Load() != 6 || px.refusalFor(fmt.Sprintf("127.0.0.2:%d", c.port)) == "" {
		t.Errorf("refusals: %d %v", px.refused.Load(), px.refusals)
	}
	// The bound: 8 requests in all; the next is refused and noted.
	resp, _, err := get(origin.URL + "/over")
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || !px.overReqs.Load() {
		t.Errorf("over the request bound: %v %v", err, resp)
	}
	// The render ends: the proxy answers no more.
	cancel()
	px.close()
	if _, _, err := get(origin.URL + "/after"); err == nil {
		t.Error("the proxy still answered after the render ended")
	}
	// The tunnel is reported when it closes (here, at the render's end).
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	var ok, refused int
	for _, u := range reports {
		if u.Site != "web-crawl" {
			t.Errorf("report without the site: %+v", u)
		}
		switch u.Outcome {
		case scrapers.OutcomeOK:
			ok++
		case scrapers.OutcomeGuardRefused:
			refused++
		}
	}
	mu.Unlock()
	if ok != 2 || refused != 6 {
		t.Errorf("reports: %d ok, %d refused, want 2 and 6", ok, refused)
	}
}

func FuzzParseAllowAddrs(f *testing.F) {
	f.Add("127.0.0.1:8080,[::1]:8080")
	f.Add(" , 10.0.0.1:1,")
	f.Add("[::ffff:127.0.0.1]:80")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseAllowAddrs(s)
		if err != nil {
			return
		}
		for ap := range m {
			if !ap.IsValid() || ap.Addr().Is4In6() || ap.Addr().Zone() != "" {
				t.Fatalf("%q gave %v", s, ap)
			}
		}
	})
}
