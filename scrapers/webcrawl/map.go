package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/sitemap"
)

// The map tool lists a site's URLs from what the site itself lists: the
// sitemaps its robots.txt names and /sitemap.xml (sitemap indexes followed
// to mapMaxDepth, gzipped sitemaps inflated under a bound), the RSS and
// Atom feeds its home page links, and the home page's own links. It fetches
// with the crawler's client (the address guard, after redirects too) and
// per-host gate, never lists a URL robots.txt disallows, and is bounded in
// URLs, requests, bytes and time; a bound that cuts the map is named in its
// notes.

// Limits of the map tool.
const (
	DefaultMapLimit = 1000
	MaxMapLimit     = 10_000
	maxSearchLength = 200

	// mapMaxRequests bounds the requests of one map: robots.txt, the home
	// page, feeds and sitemaps.
	mapMaxRequests = 40
	// mapMaxBytes bounds the bytes one map reads and inflates in all,
	// whatever its fetches in flight (mapper.reserve).
	mapMaxBytes = 12 << 20
	// mapDocBytes bounds one document, read or inflated.
	mapDocBytes = 6 << 20
	// mapMaxDepth is how deep sitemap indexes are followed: an index
	// naming an index naming a sitemap is depth 2.
	mapMaxDepth = 3
	mapMaxFeeds = 4
	// mapPageLinks bounds the links read from the home page.
	mapPageLinks = 5000
	// mapMaxHosts bounds the hosts whose robots.txt a map with subdomains
	// reads; URLs on further hosts are left out.
	mapMaxHosts = 8
	// mapTimeout bounds one map, inside the call's deadline.
	mapTimeout = 60 * time.Second
	// mapWorkers is how many documents one map fetches at once (the
	// per-host gate still holds).
	mapWorkers = 4
	// mapGrace is how long what was read is still judged and kept once the
	// map's time is up (the host waits 2 s for a tool that ran out of time).
	mapGrace = time.Second
)

// Sources of a map's URLs.
const (
	SourceSitemap = "sitemap"
	SourceFeed    = "feed"
	SourcePage    = "page"
)

// mapArgs are the map tool's arguments.
type mapArgs struct {
	URL        string `json:"url" jsonschema:"the site to map: its home page or any page on it (http or https; a bare host name means https)"`
	Search     string `json:"search,omitempty" jsonschema:"only URLs whose address or title holds every word of this (case does not matter)"`
	Limit      *int   `json:"limit,omitempty" jsonschema:"the most URLs returned (1 to 10000; default 1000); when the site has more, the result says so in map.more_urls"`
	Subdomains bool   `json:"subdomains,omitempty" jsonschema:"also list URLs on the site's subdomains (blog.example.com for example.com); default false: the site's own host, with or without www."`

	limit int
	u     *url.URL
	site  string
	words []string
}

func mapSchema(s *jsonschema.Schema) {
	s.Required = []string{"url"}
	scrapers.IntRange(s, "limit", 1, MaxMapLimit, DefaultMapLimit)
	scrapers.SetDefault(s, "subdomains", false)
	if p := s.Properties["search"]; p != nil {
		p.MaxLength = jsonschema.Ptr(maxSearchLength)
	}
}

func (a *mapArgs) check(allowPrivate bool) error {
	var err error
	if a.limit, err = scrapers.IntArg("limit", a.Limit, 1, MaxMapLimit, DefaultMapLimit); err != nil {
		return err
	}
	raw := strings.TrimSpace(a.URL)
	if raw == "" {
		return scrapers.Argf("url", "is required: the site to map, such as https://example.com/")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	if a.u, err = sitemap.Canonical(raw, nil); err != nil {
		return scrapers.Argf("url", "is not a web address to map: %v", err)
	}
	if err := netguard.CheckURL(a.u, allowPrivate); err != nil {
		return scrapers.Argf("url", "%q is refused: %v", a.URL, err)
	}
	if len(a.Search) > maxSearchLength {
		return scrapers.Argf("search", "must be at most %d characters", maxSearchLength)
	}
	a.words = strings.Fields(strings.ToLower(a.Search))
	a.site = sitemap.SiteHost(a.u.Hostname())
	return nil
}

// MapURL is one URL of a site's map.
type MapURL struct {
	URL     string `json:"url" jsonschema:"the URL, in one spelling (scheme and host lower case, no default port, no fragment)"`
	Title   string `json:"title,omitempty" jsonschema:"its title, when the sitemap (a news, image or video title), a feed item or a link's text gives one"`
	LastMod string `json:"lastmod,omitempty" jsonschema:"when it last changed, as the sitemap or feed says (W3C date or RFC 3339)"`
	Source  string `json:"source" jsonschema:"where it was found first: sitemap, feed or page (the home page's links)"`
}

// MapSummary is the map's result-level field: what was read, what was cut.
type MapSummary struct {
	Site string `json:"site" jsonschema:"the site mapped (its host without www.)"`
	// MoreURLs is set when the site lists more URLs (matching search) than
	// limit: the items are the first limit of them.
	MoreURLs   bool     `json:"more_urls" jsonschema:"true when the site lists more URLs than limit (matching search); the items are the first limit of them"`
	Sitemaps   []string `json:"sitemaps" jsonschema:"the sitemaps read"`
	Feeds      []string `json:"feeds" jsonschema:"the feeds read"`
	Requests   int      `json:"requests" jsonschema:"the requests the map made"`
	Bytes      int64    `json:"bytes" jsonschema:"the bytes it read and inflated"`
	Disallowed int      `json:"disallowed,omitempty" jsonschema:"URLs left out because robots.txt disallows them"`
	Notes      []string `json:"notes,omitempty" jsonschema:"what was cut or failed, in words: a bound reached, a sitemap that failed or was hostile"`
}

func mapTool(cr *crawler) scrapers.Tool {
	return scrapers.NewTool("map", "Map a site's URLs",
		"Lists a site's URLs without crawling it: from the sitemaps its robots.txt names and /sitemap.xml (sitemap indexes and gzipped sitemaps too), "+
			"the RSS and Atom feeds its home page links, and the home page's own links. "+
			"Each URL comes once, with lastmod and a title when the sitemap, a feed or the link's text gives one. "+
			"Same site only (www. or not); subdomains: true adds the site's subdomains. URLs that robots.txt disallows are never listed. "+
			"search keeps the URLs whose address or title holds every word of it. At most limit URLs (default 1000, at most 10000): "+
			"map.more_urls says when the site has more; a long list pages on with get_result (result_id, next_offset). "+
			"A map makes at most a few dozen requests; a bound that cut it (huge or hostile sitemaps, endless indexes) is named in map.notes. "+
			"Use it to find which page of a site covers something, then read that page with crawl.",
		mapSchema, cr.siteMap).WithItems(scrapers.ItemSchema[MapURL]()).WithMeta("map", scrapers.ItemSchema[MapSummary]())
}

// mapper is one map in progress.
type mapper struct {
	cr   *crawler
	args *mapArgs
	call *scrapers.Call

	requests atomic.Int32
	bytes    atomic.Int64

	mu         sync.Mutex
	out        []MapURL
	index      map[string]int // URL → its place in out
	more       bool
	notes      []string
	sitemaps   []string
	feeds      []string
	disallowed int
	hosts      map[string]bool // hosts whose robots.txt is read (subdomains)
	hostsCut   bool
	// What the request and byte budgets cut: documents not read, and
	// documents cut when the bytes ran out.
	unread      int
	firstUnread string
	bytesCut    []string
}

// siteMap runs one map.
func (cr *crawler) siteMap(ctx context.Context, call *scrapers.Call, args mapArgs) error {
	if err := args.check(cr.s.AllowPrivate); err != nil {
		return err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, mapTimeout)
	defer cancel()
	m := &mapper{cr: cr, args: &args, call: call, index: map[string]int{}, hosts: map[string]bool{}}
	// Once the map's time is up, what was read is still judged (robots.txt
	// already read answers at once) for a moment, inside the host's grace.
	grace, endGrace := context.WithCancel(context.WithoutCancel(ctx))
	defer endGrace()
	context.AfterFunc(ctx, func() { time.AfterFunc(mapGrace, endGrace) })
	keep := func() context.Context {
		if ctx.Err() != nil {
			return grace
		}
		return ctx
	}
	home := &url.URL{Scheme: args.u.Scheme, Host: args.u.Host, Path: "/"}

	// robots.txt and the home page come first: they name the rest.
	var (
		wg        sync.WaitGroup
		robotsMap []string
		page      sitemap.PageLinks
		pageOK    bool
		homeOK    bool
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		robotsMap = m.robotsSitemaps(ctx, home)
	}()
	go func() {
		defer wg.Done()
		page, homeOK = m.readHome(ctx, home)
		pageOK = homeOK
		if args.u.String() != home.String() {
			// The page asked for is read too: its links, and feeds.
			if more, ok := m.readHome(ctx, args.u); ok {
				page.Links = append(page.Links, more.Links...)
				page.Feeds = append(page.Feeds, more.Feeds...)
				page.Sitemaps = append(page.Sitemaps, more.Sitemaps...)
				page.Cut = page.Cut || more.Cut
				pageOK = true
			}
		}
	}()
	wg.Wait()
	call.Progress("read robots.txt and the home page", m.count(), 0)

	// Sitemaps, level by level, and the feeds beside the first level.
	type doc struct {
		u     *url.URL
		named bool // named by robots.txt: fetched though robots.txt may disallow its path
	}
	var level []doc
	seen := map[string]bool{}
	addSitemap := func(raw string, named bool, base *url.URL) {
		u, err := sitemap.Canonical(raw, base)
		if err != nil || seen[u.String()] || !sitemap.SameSite(u.Hostname(), args.site, true) || netguard.CheckURL(u, cr.s.AllowPrivate) != nil {
			return
		}
		seen[u.String()] = true
		level = append(level, doc{u: u, named: named})
	}
	for _, s := range robotsMap {
		addSitemap(s, true, home)
	}
	addSitemap("/sitemap.xml", false, home)
	for _, s := range page.Sitemaps {
		addSitemap(s, false, nil)
	}
	feeds := slices.Compact(page.Feeds)
	if len(feeds) > mapMaxFeeds {
		m.note(fmt.Sprintf("the home page links %d feeds; the first %d were read", len(feeds), mapMaxFeeds))
		feeds = feeds[:mapMaxFeeds]
	}

	results := map[string]*sitemap.Doc{}
	var rmu sync.Mutex
	fetchAll := func(docs []doc, feedURLs []string) {
		jobs := make(chan func(), len(docs)+len(feedURLs))
		for _, d := range docs {
			jobs <- func() {
				if doc := m.readDoc(ctx, d.u, d.named, "sitemap"); doc != nil {
					rmu.Lock()
					results[d.u.String()] = doc
					rmu.Unlock()
				}
			}
		}
		for _, f := range feedURLs {
			jobs <- func() {
				u, err := sitemap.Canonical(f, nil)
				if err != nil {
					return
				}
				if doc := m.readDoc(ctx, u, false, "feed"); doc != nil {
					rmu.Lock()
					results["feed "+f] = doc
					rmu.Unlock()
				}
			}
		}
		close(jobs)
		var wg sync.WaitGroup
		for range min(mapWorkers, len(docs)+len(feedURLs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for job := range jobs {
					if ctx.Err() != nil {
						return
					}
					job()
				}
			}()
		}
		wg.Wait()
	}
	feedDocs := feeds
	for depth := 0; len(level) > 0 || len(feedDocs) > 0; depth++ {
		if ctx.Err() != nil {
			break
		}
		fetchAll(level, feedDocs)
		var next []doc
		cur := level
		level = nil
		for _, d := range cur {
			doc := results[d.u.String()]
			if doc == nil {
				continue
			}
			if doc.Kind == sitemap.KindIndex {
				if depth+1 > mapMaxDepth {
					m.note(fmt.Sprintf("%s is a sitemap index nested %d deep; deeper indexes are not followed", d.u, depth+1))
					continue
				}
				for _, s := range doc.Sitemaps {
					addSitemap(s.URL, false, d.u)
				}
				continue
			}
			m.addAll(keep(), doc.Entries, d.u, SourceSitemap)
		}
		next, level = level, nil
		for _, f := range feedDocs {
			if doc := results["feed "+f]; doc != nil {
				fu, _ := url.Parse(f)
				m.addAll(keep(), doc.Entries, fu, SourceFeed)
			}
		}
		feedDocs = nil
		if m.full() && len(next) > 0 {
			m.note(fmt.Sprintf("%d more sitemaps were not read: the map already holds more than limit (%d) URLs", len(next), args.limit))
			break
		}
		level = next
		call.Progress(fmt.Sprintf("read %d sitemaps and feeds", len(results)), m.count(), 0)
	}
	// The home page: its own address, then its links.
	if homeOK {
		m.addAll(keep(), []sitemap.Entry{{URL: home.String(), Title: page.Title}}, nil, SourcePage)
	}
	if pageOK {
		m.addAll(keep(), page.Links, nil, SourcePage)
		if page.Cut {
			m.note(fmt.Sprintf("the home page has more than %d links; the first were read", mapPageLinks))
		}
	}
	// What was gathered is added however the map ended: at the call's
	// deadline the host returns it, marked partial.
	if parent.Err() == nil && ctx.Err() != nil {
		m.note(fmt.Sprintf("the map stopped at its time bound (%s); it holds what was read by then", mapTimeout))
		call.MarkPartial("the map's time bound passed")
	}
	err := m.finish()
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	return err
}

// count is the requests made so far.
func (m *mapper) count() int { return int(m.requests.Load()) }

func (m *mapper) note(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.notes) < 50 && !slices.Contains(m.notes, s) {
		m.notes = append(m.notes, s)
	}
}

// full says whether the map holds more URLs than it returns.
func (m *mapper) full() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.more
}

// addAll adds entries found in a document at base (nil: already absolute
// and canonical): the site's own, matching search, allowed by robots.txt,
// each once. A later source fills a title or lastmod the first lacked.
func (m *mapper) addAll(ctx context.Context, entries []sitemap.Entry, base *url.URL, source string) {
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		u, err := sitemap.Canonical(e.URL, base)
		if err != nil || !sitemap.SameSite(u.Hostname(), m.args.site, m.args.Subdomains) || netguard.CheckURL(u, m.cr.s.AllowPrivate) != nil {
			continue
		}
		k := dedupKey(u)
		m.mu.Lock()
		if i, ok := m.index[k]; ok {
			if m.out[i].Title == "" {
				m.out[i].Title = e.Title
			}
			if m.out[i].LastMod == "" {
				m.out[i].LastMod = e.LastMod
			}
			m.mu.Unlock()
			continue
		}
		full := len(m.out) >= m.args.limit
		m.mu.Unlock()
		if !matches(m.args.words, u, e.Title) {
			continue
		}
		if !m.allowed(ctx, u) {
			continue
		}
		m.mu.Lock()
		if full || len(m.out) >= m.args.limit {
			m.more = true
		} else {
			m.index[k] = len(m.out)
			m.out = append(m.out, MapURL{URL: u.String(), Title: e.Title, LastMod: e.LastMod, Source: source})
		}
		m.mu.Unlock()
	}
}

// dedupKey is u as the map tells URLs apart: www. folded, so that a site
// spelling a page both ways lists it once (in the spelling met first).
func dedupKey(u *url.URL) string {
	if !strings.HasPrefix(strings.ToLower(u.Host), "www.") {
		return u.String()
	}
	c := *u
	c.Host = u.Host[4:]
	return c.String()
}

// matches says whether every word of the search is in the URL (its path
// unescaped) or its title.
func matches(words []string, u *url.URL, title string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(u.Host + " " + u.Path + " " + u.RawQuery + " " + title)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// finish adds the URLs and the summary to the call; a map of no URL is an
// error that says why.
func (m *mapper) finish() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.out) == 0 {
		why := "the site lists none"
		if len(m.args.words) > 0 {
			why = "none matches search"
		}
		if len(m.notes) > 0 {
			why += ": " + strings.Join(m.notes, "; ")
		}
		return fmt.Errorf("no URL of %s could be listed (%d requests); %s", m.args.site, m.count(), why)
	}
	if m.more {
		what := "URLs"
		if len(m.args.words) > 0 {
			what = "URLs matching search"
		}
		m.notes = append([]string{fmt.Sprintf("the site lists more than %d %s; these are the first %d (raise limit, at most %d, or narrow with search)", m.args.limit, what, m.args.limit, MaxMapLimit)}, m.notes...)
	}
	m.budgetNotes()
	if m.hostsCut {
		m.notes = append(m.notes, fmt.Sprintf("URLs on more than %d subdomains were found; those on the rest were left out (their robots.txt was not read)", mapMaxHosts))
	}
	for _, u := range m.out {
		m.call.Add(u)
	}
	m.call.SetMeta("map", MapSummary{Site: m.args.site, MoreURLs: m.more, Sitemaps: nonNil(m.sitemaps), Feeds: nonNil(m.feeds),
		Requests: m.count(), Bytes: m.bytes.Load(), Disallowed: m.disallowed, Notes: m.notes})
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// spend takes one request from the map's budget; false when it is spent
// (the requests or the bytes), and u is counted among those not read.
func (m *mapper) spend(u *url.URL) bool {
	if m.bytes.Load() < mapMaxBytes {
		if int(m.requests.Add(1)) <= mapMaxRequests {
			return true
		}
		m.requests.Add(-1)
	}
	m.mu.Lock()
	if m.unread == 0 {
		m.firstUnread = u.String()
	}
	m.unread++
	m.mu.Unlock()
	return false
}

// budgetNotes say which of the map's budgets cut it (under m.mu).
func (m *mapper) budgetNotes() {
	if len(m.bytesCut) > 0 {
		m.notes = append(m.notes, fmt.Sprintf("the map read its %d MiB in all; cut there: %s", mapMaxBytes>>20, strings.Join(m.bytesCut, ", ")))
	}
	if m.unread > 0 {
		why := fmt.Sprintf("the map made its %d requests", mapMaxRequests)
		if m.bytes.Load() >= mapMaxBytes {
			why = fmt.Sprintf("the map read its %d MiB", mapMaxBytes>>20)
		}
		m.notes = append(m.notes, fmt.Sprintf("%s; %d more sitemaps, feeds or pages were not read (the first: %s)", why, m.unread, m.firstUnread))
	}
}

// readHome fetches the page asked for and reads its links and feeds.
func (m *mapper) readHome(ctx context.Context, u *url.URL) (pl sitemap.PageLinks, ok bool) {
	if !m.allowed(ctx, u) {
		m.note(fmt.Sprintf("robots.txt disallows %s, so its links were not read", u))
		return pl, false
	}
	err := m.get(ctx, u, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5", MaxPageBytesForMap, func(f *fetched) {
		if f.status >= 400 {
			m.note(fmt.Sprintf("%s answered HTTP %d", u, f.status))
			return
		}
		if !isHTML(f.header) {
			return
		}
		text, _ := toUTF8(f.body, f.header.Get("Content-Type"))
		pl, ok = sitemap.ReadPage(text, f.final, mapPageLinks), true
	})
	if err != nil && ctx.Err() == nil {
		m.note(fmt.Sprintf("%s could not be read: %v", u, err))
	}
	return pl, ok
}

// MaxPageBytesForMap bounds the home page a map reads links from.
const MaxPageBytesForMap = 5 << 20

// readDoc fetches and parses one sitemap or feed; nil when it failed (noted).
func (m *mapper) readDoc(ctx context.Context, u *url.URL, named bool, what string) *sitemap.Doc {
	if !named && !m.allowed(ctx, u) {
		if what == "feed" {
			m.note(fmt.Sprintf("robots.txt disallows the feed %s", u))
		}
		return nil
	}
	limit := int(min(mapDocBytes, max(mapMaxBytes-m.bytes.Load(), 0)))
	var doc *sitemap.Doc
	err := m.get(ctx, u, "application/xml,text/xml;q=0.9,application/rss+xml,application/atom+xml,text/plain;q=0.8,*/*;q=0.5", limit, func(f *fetched) {
		doc = m.parseDoc(u, f, named, what, limit)
	})
	if err != nil && ctx.Err() == nil && !errors.Is(err, errMapBudget) {
		m.note(fmt.Sprintf("the %s %s could not be read: %v", what, u, err))
	}
	return doc
}

// parseDoc reads a fetched sitemap or feed, inflating it when gzipped.
func (m *mapper) parseDoc(u *url.URL, f *fetched, named bool, what string, limit int) *sitemap.Doc {
	if f.status >= 400 {
		if f.status != http.StatusNotFound || named {
			m.note(fmt.Sprintf("the %s %s answered HTTP %d", what, u, f.status))
		}
		return nil
	}
	body, cut := f.body, f.cut
	if f.cut && len(body) >= limit {
		m.note(fmt.Sprintf("the %s %s is larger than %d KiB; what came before was read", what, u, limit>>10))
	}
	if sitemap.IsGzip(body) {
		limit := m.reserve(mapDocBytes)
		out, zcut, err := sitemap.Gunzip(body, limit)
		m.bytes.Add(int64(len(out)) - limit)
		switch {
		case zcut && limit < mapDocBytes:
			m.mu.Lock()
			m.bytesCut = append(m.bytesCut, u.String())
			m.mu.Unlock()
		case zcut:
			m.note(fmt.Sprintf("the %s %s inflates past %d KiB (a gzip bomb, or too large); it was cut there", what, u, limit>>10))
		case err != nil && !cut:
			m.note(fmt.Sprintf("the %s %s: %v", what, u, err))
		}
		body, cut = out, cut || zcut
	}
	doc, err := sitemap.Parse(body, sitemap.Limits{})
	if err != nil {
		// /sitemap.xml is a guess: a page there instead is no news.
		if named || what == "feed" || u.Path != "/sitemap.xml" {
			m.note(fmt.Sprintf("the %s %s: %v", what, u, err))
		}
		return nil
	}
	for _, n := range doc.Notes {
		if cut && strings.Contains(n, "is broken") {
			continue // it was cut, which is noted
		}
		m.note(fmt.Sprintf("the %s %s: %s", what, u, n))
	}
	m.mu.Lock()
	if what == "feed" {
		m.feeds = append(m.feeds, u.String())
	} else {
		m.sitemaps = append(m.sitemaps, u.String())
	}
	m.mu.Unlock()
	return &doc
}

var (
	errMapBudget = errors.New("the map's request budget is spent")
	errMapBytes  = errors.New("the map's byte budget is spent")
)

// reserve takes up to n bytes from the map's byte budget, at once for all
// its fetches in flight, and returns how many it took (0: spent).
func (m *mapper) reserve(n int64) int64 {
	for {
		cur := m.bytes.Load()
		take := min(n, mapMaxBytes-cur)
		if take <= 0 {
			return 0
		}
		if m.bytes.CompareAndSwap(cur, cur+take) {
			return take
		}
	}
}

// budgetBody reads a response body within the map's byte budget.
type budgetBody struct {
	io.ReadCloser
	m *mapper
}

func (b *budgetBody) Read(p []byte) (int, error) {
	got := b.m.reserve(int64(len(p)))
	if got == 0 && len(p) > 0 {
		return 0, errMapBytes
	}
	n, err := b.ReadCloser.Read(p[:got])
	b.m.bytes.Add(int64(n) - got)
	return n, err
}

// get fetches u through the crawler's client (the address guard) and its
// per-host gate, and hands the answer to use while it holds its place in
// the page budget.
func (m *mapper) get(ctx context.Context, u *url.URL, accept string, limit int, use func(*fetched)) error {
	if !m.spend(u) {
		return errMapBudget
	}
	cr := m.cr
	// The host's politeness, for the fleet as a crawl keeps it: its pages
	// in flight, the pause after each, robots.txt's Crawl-delay between
	// starts, and a hold its 429 asked for.
	var interval time.Duration
	if d := m.delay(ctx, u); d > cr.s.PerHostDelay {
		interval = d
	}
	lease, err := cr.s.Politeness.Acquire(ctx, scrapers.Slot{Key: hostKey(u), Exit: scrapers.ExitDirect, Limit: cr.s.PerHost, Interval: interval})
	if err != nil {
		return err
	}
	defer lease.Release(cr.s.PerHostDelay)
	hold, err := cr.s.Pages.Acquire(ctx, firstPageGuess)
	if err != nil {
		return err
	}
	defer hold.Release()
	ctx, cancel := context.WithTimeout(scrapers.WithPageHold(ctx, hold), cr.s.PageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", cr.s.UserAgent)
	req.Header.Set("Accept", accept)
	resp, err := cr.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			err = fmt.Errorf("refused: %w", err)
		}
		return err
	}
	defer resp.Body.Close()
	f := &fetched{status: resp.StatusCode, final: resp.Request.URL, header: resp.Header}
	if resp.StatusCode < 400 {
		orig := resp.Body
		resp.Body = &budgetBody{ReadCloser: orig, m: m}
		f.body, err = readBody(resp, limit+1)
		resp.Body = orig
		switch {
		case len(f.body) > limit:
			f.body, f.cut = f.body[:limit], true
			markTooLarge(resp)
		case errors.Is(err, errMapBytes):
			m.mu.Lock()
			m.bytesCut = append(m.bytesCut, u.String())
			m.mu.Unlock()
			if len(f.body) == 0 {
				return errMapBudget
			}
			f.cut = true
		case err != nil:
			if len(f.body) == 0 {
				return err
			}
			f.cut = true
		}
	}
	use(f)
	return nil
}
