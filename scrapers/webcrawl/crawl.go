// Package webcrawl is the web-crawl plugin: it crawls from start URLs, within
// depth and page limits and URL patterns, and returns each page as Markdown
// with its title, description, language and links. Every connection goes
// through the SSRF guard (internal/netguard), after redirects too.
package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "web-crawl"

// Settings bound the crawler; DefaultSettings are used by New.
type Settings struct {
	PageTimeout  time.Duration // one page, headers and body (default 20 s)
	MaxPageBytes int           // a page's size cap (default 5 MiB); larger pages are cut and marked truncated
	PerHost      int           // concurrent requests per host (default 2)
	PerHostDelay time.Duration // delay between requests to one host (default 100 ms)
	MaxRedirects int           // default 10
	AllowPrivate bool          // ALLOW_PRIVATE_NETWORKS
	UserAgent    string
	Transport    http.RoundTripper // nil builds the guarded transport
}

// DefaultSettings are the crawler's defaults.
func DefaultSettings() Settings {
	return Settings{PageTimeout: 20 * time.Second, MaxPageBytes: 5 << 20, PerHost: 2, PerHostDelay: 100 * time.Millisecond, MaxRedirects: 10,
		UserAgent: "Mozilla/5.0 (compatible; SurfSenseCrawler/1.0; +https://plugins.surfsense.com)"}
}

// New builds the web-crawl plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	s := DefaultSettings()
	s.AllowPrivate = env.AllowPrivateNetworks
	return NewWithSettings(s), nil
}

// NewWithSettings builds the plugin with explicit settings (tests, bench).
func NewWithSettings(s Settings) scrapers.Plugin {
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
	cr := &crawler{s: s}
	return scrapers.Plugin{
		ID:   ID,
		Name: "Web Crawl",
		Tools: []scrapers.Tool{scrapers.NewTool("crawl", "Crawl web pages",
			"Fetches web pages and returns each as Markdown with its title, description, language and links. "+
				"Starts from start_urls and follows links on the same site up to max_crawl_depth, at most max_crawl_pages pages in all; "+
				"include_url_patterns and exclude_url_patterns (regular expressions) choose which links are followed. "+
				"A page that fails is reported with its error; the others are still returned.",
			schema, cr.crawl)},
	}
}

type crawler struct{ s Settings }

// crawl runs one crawl.
func (cr *crawler) crawl(ctx context.Context, call *scrapers.Call, args crawlArgs) error {
	if err := args.check(cr.s.AllowPrivate); err != nil {
		return err
	}
	c := colly.NewCollector(
		colly.Async(true),
		colly.MaxDepth(args.depth+1), // colly counts start pages as depth 1
		colly.MaxBodySize(cr.s.MaxPageBytes),
		colly.UserAgent(cr.s.UserAgent),
		colly.StdlibContext(ctx),
	)
	c.ParseHTTPErrorResponse = true
	c.DetectCharset = true
	c.SetRequestTimeout(cr.s.PageTimeout)
	c.WithTransport(cr.s.Transport)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: cr.s.PerHost, Delay: cr.s.PerHostDelay}); err != nil {
		return err
	}
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if len(via) >= cr.s.MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", cr.s.MaxRedirects)
		}
		return netguard.CheckURL(req.URL, cr.s.AllowPrivate)
	})

	hosts := map[string]bool{}
	for _, u := range args.starts {
		hosts[siteHost(u.Hostname())] = true
	}
	var (
		requested atomic.Int64
		done      atomic.Int64
		mu        sync.Mutex
		failed    = map[string]bool{}
		origins   = map[uint32]string{} // request id → the URL asked for, before redirects
	)
	fail := func(u string, err error) {
		mu.Lock()
		dup := failed[u]
		failed[u] = true
		mu.Unlock()
		if !dup {
			call.Fail(u, err)
		}
	}
	c.OnRequest(func(r *colly.Request) {
		if ctx.Err() != nil || requested.Add(1) > int64(args.pages) {
			r.Abort()
			return
		}
		mu.Lock()
		origins[r.ID] = r.URL.String()
		mu.Unlock()
		r.Headers.Set("Accept", "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5")
		r.Headers.Set("Accept-Language", "en-US,en;q=0.8")
	})
	c.OnResponse(func(r *colly.Response) {
		n := done.Add(1)
		defer call.Progress(fmt.Sprintf("crawled %d pages", n), int(n), args.pages)
		orig := originOf(&mu, origins, r.Request)
		if r.StatusCode >= 400 {
			fail(orig, fmt.Errorf("the site answered HTTP %d", r.StatusCode))
			return
		}
		ct := r.Headers.Get("Content-Type")
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "" && mt != "text/html" && mt != "application/xhtml+xml" && mt != "text/plain" {
			fail(orig, fmt.Errorf("not a web page (content type %s)", mt))
			return
		}
		var page Page
		if mt == "text/plain" {
			text := strings.ToValidUTF8(string(r.Body), "\uFFFD")
			page = Page{URL: r.Request.URL.String(), Markdown: text, Links: []string{}}
			if len([]rune(text)) > args.maxLen {
				page.Markdown, page.Truncated = truncateRunes(text, args.maxLen), true
			}
		} else {
			var err error
			page, err = Extract(r.Body, r.Request.URL, args.maxLen)
			if err != nil {
				fail(orig, fmt.Errorf("the page could not be parsed: %v", err))
				return
			}
		}
		page.URL = orig
		if final := r.Request.URL.String(); final != orig {
			page.LoadedURL = final
		}
		page.Depth = r.Request.Depth - 1
		page.Status = r.StatusCode
		if len(r.Body) >= cr.s.MaxPageBytes {
			page.Truncated = true
		}
		call.Add(page)
		if page.Depth >= args.depth {
			return
		}
		for _, link := range page.Links {
			if !args.follow(link, hosts) {
				continue
			}
			lu, err := url.Parse(link)
			if err != nil || netguard.CheckURL(lu, cr.s.AllowPrivate) != nil {
				continue
			}
			if requested.Load() >= int64(args.pages) || ctx.Err() != nil {
				return
			}
			_ = r.Request.Visit(link)
		}
	})
	c.OnError(func(r *colly.Response, err error) {
		if ctx.Err() != nil {
			return
		}
		u := originOf(&mu, origins, r.Request)
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			err = fmt.Errorf("refused: %w", err)
		}
		fail(u, err)
	})
	for _, u := range args.starts {
		if ctx.Err() != nil {
			break
		}
		var dup *colly.AlreadyVisitedError
		if err := c.Visit(u.String()); err != nil && !errors.As(err, &dup) && ctx.Err() == nil {
			fail(u.String(), err)
		}
	}
	c.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

func originOf(mu *sync.Mutex, origins map[uint32]string, r *colly.Request) string {
	mu.Lock()
	defer mu.Unlock()
	if o, ok := origins[r.ID]; ok {
		return o
	}
	return r.URL.String()
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
