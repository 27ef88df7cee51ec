package scrapers

// FIRST VERSION: the API that every site codes against. The fetching-layer
// work (colly, retries with backoff, proxy rotation, politeness, block retry
// through another proxy) replaces the body of Fetcher.Do without changing
// these signatures.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers/netguard"
)

// Site describes one site a plugin scrapes.
type Site struct {
	// ID is the plugin id; <ID>_BASE_URL and <ID>_PROXY_URLS are read from it.
	ID string
	// Name is how errors name the site ("Amazon", "Google").
	Name string
	// Origin is the site's real origin, e.g. https://www.amazon.com.
	Origin string
	// Domains are the registrable domains that belong to the site (amazon.com,
	// amazon.co.jp, …; a leading dot-less suffix like "amazon." matches every
	// TLD). With <ID>_BASE_URL set, a request to any of them goes to the base
	// URL instead, keeping path and query.
	Domains []string
	// Cookies sent with every request (consent cookies).
	Cookies []*http.Cookie
	// Header added to every request after the browser headers.
	Header http.Header
	// DetectBlock looks at a response and says whether it is a block page.
	// Nil detects nothing.
	DetectBlock func(r *Response) *BlockedError
	// MaxBytes caps a response body (default 8 MiB).
	MaxBytes int64
	// MinInterval is the politeness delay between requests to the site from
	// one fetcher (default none).
	MinInterval time.Duration
}

// Request is one upstream request.
type Request struct {
	Method string // GET when empty
	URL    string
	Header http.Header
	Body   []byte
}

// Response is an upstream answer, body read whole (up to the cap).
type Response struct {
	Request    *Request
	URL        *url.URL // the final URL after redirects
	StatusCode int
	Header     http.Header
	Body       []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Fetcher fetches pages of one site for one plugin. It is safe for concurrent
// use; a plugin makes one at construction and shares it across calls.
type Fetcher struct {
	site    Site
	base    *url.URL // <ID>_BASE_URL, nil when unset
	client  *http.Client
	allow   bool
	maxBody int64
}

// NewFetcher makes the fetcher for site from env.
func NewFetcher(env Env, site Site) (*Fetcher, error) {
	f := &Fetcher{site: site, allow: env.AllowPrivateNetworks, maxBody: site.MaxBytes}
	if f.maxBody <= 0 {
		f.maxBody = 8 << 20
	}
	if b := env.Get(EnvName(site.ID, "BASE_URL")); b != "" {
		u, err := url.Parse(b)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("%s: %q is not an http(s) origin", EnvName(site.ID, "BASE_URL"), b)
		}
		f.base = u
	}
	tr := &http.Transport{DialContext: netguard.DialContext(f.allow), TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 30 * time.Second, MaxIdleConnsPerHost: 8}
	f.client = &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		return netguard.CheckURL(req.URL, f.allow)
	}}
	return f, nil
}

// Site returns the site the fetcher was made for.
func (f *Fetcher) Site() Site { return f.site }

// Rewrite returns u with the site's base URL applied when u is on one of the
// site's domains (or is relative), keeping path and query.
func (f *Fetcher) Rewrite(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if !u.IsAbs() {
		origin, err := url.Parse(f.site.Origin)
		if err != nil {
			return nil, err
		}
		u = origin.ResolveReference(u)
	}
	if f.base != nil && f.OnSite(u) {
		u.Scheme, u.Host = f.base.Scheme, f.base.Host
	}
	return u, nil
}

// OnSite reports whether u's host is one of the site's domains.
func (f *Fetcher) OnSite(u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if f.base != nil && strings.EqualFold(u.Host, f.base.Host) {
		return true
	}
	for _, d := range append([]string{hostOf(f.site.Origin)}, f.site.Domains...) {
		d = strings.ToLower(d)
		if d == "" {
			continue
		}
		if strings.HasSuffix(d, ".") { // "amazon." matches amazon.<any tld>
			if strings.HasPrefix(host, d) || strings.Contains(host, "."+d) {
				return true
			}
			continue
		}
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func hostOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// Get fetches one URL with GET.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Response, error) {
	return f.Do(ctx, &Request{URL: rawURL})
}

// PostJSON posts body as JSON.
func (f *Fetcher) PostJSON(ctx context.Context, rawURL string, body any) (*Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return f.Do(ctx, &Request{Method: http.MethodPost, URL: rawURL, Body: b, Header: http.Header{"Content-Type": {"application/json"}}})
}

// Do performs req. A block page is a *BlockedError, an HTTP error status a
// *SiteError carrying the status (the response is still returned), a network
// failure a *SiteError; a forbidden address wraps netguard.ErrForbiddenAddress.
func (f *Fetcher) Do(ctx context.Context, req *Request) (*Response, error) {
	u, err := f.Rewrite(req.URL)
	if err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	if err := netguard.CheckURL(u, f.allow); err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	hr.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
	hr.Header.Set("Accept-Language", "en-US,en;q=0.9")
	for k, vs := range f.site.Header {
		hr.Header[k] = vs
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	for _, c := range f.site.Cookies {
		hr.AddCookie(c)
	}
	resp, err := f.client.Do(hr)
	if err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBody+1))
	if err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	if int64(len(b)) > f.maxBody {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: fmt.Errorf("the page is larger than %d bytes", f.maxBody)}
	}
	r := &Response{Request: req, URL: resp.Request.URL, StatusCode: resp.StatusCode, Header: resp.Header, Body: b}
	if f.site.DetectBlock != nil {
		if be := f.site.DetectBlock(r); be != nil {
			if be.Site == "" {
				be.Site = f.site.Name
			}
			return r, be
		}
	}
	if resp.StatusCode >= 400 {
		return r, &SiteError{Site: f.site.Name, URL: req.URL, Status: resp.StatusCode}
	}
	return r, nil
}
