package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/scrapers"
)

// Defaults and bounds of the configuration.
const (
	DefaultConcurrency = 2
	MaxConcurrency     = 32
	DefaultPageTimeout = 20 * time.Second
)

// Config configures a Renderer. Exactly one of URL and Bin is set.
type Config struct {
	// URL is RENDERER_URL: the DevTools endpoint of a browser beside the host
	// (http://127.0.0.1:9222, or its ws:// address). The browser must share
	// the host's network namespace (a sidecar container of the same app),
	// because every browser context is sent through a proxy that listens on
	// the host's loopback.
	URL string
	// Bin is CHROMIUM_BIN: a local Chromium the renderer starts itself,
	// headless, on a pipe (no DevTools port), with a fresh profile.
	Bin string
	// Concurrency is RENDER_CONCURRENCY: pages rendered at once (tabs).
	Concurrency int
	// PageTimeout bounds one page, inside the call's deadline.
	PageTimeout time.Duration
	// Quiet is how long a page must be quiet (no network, no DOM change, no
	// short timer pending) to count as rendered.
	Quiet time.Duration
	// MaxHTMLChars caps the rendered HTML taken from the page.
	MaxHTMLChars int
	// Limits bound the requests and bytes of one page.
	Limits Limits
	// AllowPrivate lifts the address guard (ALLOW_PRIVATE_NETWORKS).
	AllowPrivate bool
	// AllowAddrs, when set (RENDER_ALLOW_ADDRS, tests only), are the only
	// private ip:port pairs the browser may reach; AllowPrivate is then
	// ignored.
	AllowAddrs map[netip.AddrPort]bool
	// UserAgent, when set, replaces the browser's.
	UserAgent string
	// Site names the plugin in Upstream reports (web-crawl).
	Site string
	// Logger receives the renderer's logs; nil discards them.
	Logger *slog.Logger
	// Upstream hears every request the browser makes through the proxy.
	Upstream func(context.Context, scrapers.Upstream)
	// Metrics, when set, gets pluginhost_renders_total.
	Metrics prometheus.Registerer
}

// Variables the renderer reads, for Plugin.Vars.
var Vars = []scrapers.Var{
	{Name: "RENDERER_URL", Default: "unset", Meaning: "DevTools endpoint of a headless Chromium beside the host (same network namespace), for web-crawl's render"},
	{Name: "CHROMIUM_BIN", Default: "unset", Meaning: "a local Chromium the host starts itself for rendering, when RENDERER_URL is unset"},
	{Name: "RENDER_CONCURRENCY", Default: strconv.Itoa(DefaultConcurrency), Meaning: "pages rendered at once per replica (tabs, 1 to 32)"},
	{Name: "RENDER_ALLOW_ADDRS", Default: "unset", Meaning: "tests only: the private ip:port pairs the renderer may reach; when set, ALLOW_PRIVATE_NETWORKS does not apply to rendering"},
}

// FromEnv reads RENDERER_URL, CHROMIUM_BIN, RENDER_CONCURRENCY and
// RENDER_ALLOW_ADDRS. ok is false when neither renderer is configured.
func FromEnv(env scrapers.Env, site string) (cfg Config, ok bool, err error) {
	cfg = Config{URL: env.Get("RENDERER_URL"), Bin: env.Get("CHROMIUM_BIN"), AllowPrivate: env.AllowPrivateNetworks,
		Site: site, Logger: env.Logger, Upstream: env.Upstream, Metrics: env.Metrics}
	var errs []error
	if v := env.Get("RENDER_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxConcurrency {
			errs = append(errs, fmt.Errorf("RENDER_CONCURRENCY=%q must be a whole number from 1 to %d", v, MaxConcurrency))
		}
		cfg.Concurrency = n
	}
	if v := env.Get("RENDER_ALLOW_ADDRS"); v != "" {
		m, err := ParseAllowAddrs(v)
		if err != nil {
			errs = append(errs, err)
		}
		cfg.AllowAddrs = m
	}
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "ws") {
			errs = append(errs, fmt.Errorf("RENDERER_URL=%q must be the browser's DevTools endpoint, such as http://127.0.0.1:9222 or ws://127.0.0.1:9222/devtools/browser/<id>", cfg.URL))
		}
		if cfg.Bin != "" {
			env.Log().Info("RENDERER_URL is set, so CHROMIUM_BIN is not used")
			cfg.Bin = ""
		}
	} else if cfg.Bin != "" {
		if st, err := os.Stat(cfg.Bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			errs = append(errs, fmt.Errorf("CHROMIUM_BIN=%q is not an executable file: install Chromium (Debian: apt-get install chromium, then CHROMIUM_BIN=/usr/bin/chromium) or unset CHROMIUM_BIN", cfg.Bin))
		}
	}
	if len(errs) > 0 {
		return cfg, false, errors.Join(errs...)
	}
	return cfg, cfg.URL != "" || cfg.Bin != "", nil
}

func (c *Config) fill() {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Concurrency > MaxConcurrency {
		c.Concurrency = MaxConcurrency
	}
	if c.PageTimeout <= 0 {
		c.PageTimeout = DefaultPageTimeout
	}
	if c.Quiet <= 0 {
		c.Quiet = 500 * time.Millisecond
	}
	if c.MaxHTMLChars <= 0 {
		c.MaxHTMLChars = 5 << 20
	}
	if c.Limits.MaxRequests <= 0 {
		c.Limits.MaxRequests = 300
	}
	if c.Limits.MaxBytes <= 0 {
		c.Limits.MaxBytes = 50 << 20
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
