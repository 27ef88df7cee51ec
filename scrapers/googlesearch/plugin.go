// Package googlesearch is the google-search plugin: Google results (organic
// results, related queries, "People also ask", total results) for up to 20
// queries, page by page, with SearXNG (SEARXNG_URL) as a fallback when
// Google blocks or fails. Each item says which provider answered it.
package googlesearch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

const pluginID = "google-search"

// provider is one source of results pages.
type provider interface {
	name() string
	// search reads page (from 1) of q's results, which Google starts at
	// offset start.
	search(ctx context.Context, a *searchArgs, q string, page, start int) (*pageResult, error)
	// searchURL is the URL that page's item names.
	searchURL(a *searchArgs, q string, page, start int) string
}

type pageResult struct {
	url  string // the page's search URL
	serp *SERP
}

// plugin holds the providers in the order GOOGLE_SEARCH_PROVIDERS gives.
type plugin struct {
	providers []provider
}

// New builds the google-search plugin from env: GOOGLE_SEARCH_BASE_URL,
// GOOGLE_SEARCH_PROXY_URLS or PROXY_URLS, SEARXNG_URL and
// GOOGLE_SEARCH_PROVIDERS (default "google,searxng" with SEARXNG_URL set,
// else "google").
func New(env scrapers.Env) (scrapers.Plugin, error) {
	p, err := newPlugin(env)
	if err != nil {
		return scrapers.Plugin{}, err
	}
	return scrapers.Plugin{
		ID:   pluginID,
		Name: "Google Search",
		Tools: []scrapers.Tool{
			scrapers.NewTool("search", "Search Google",
				"Searches Google for each query and returns, for every results page read, the organic results (position, title, url, "+
					"displayed_url, description, date when shown), related queries, \"People also ask\" questions and the total "+
					"results count when shown. One item per query and page; results_provider says whether Google or the SearXNG "+
					"fallback answered. Use site to search one site, country_code and language_code for local results. A call of one "+
					"query returns next_cursor when there are more pages; pass it back as cursor for the pages after.",
				schema, p.run).WithItems(scrapers.ItemSchema[pageItem]()).WithMeta("results_provider",
				&jsonschema.Schema{Type: "string", Description: "the providers that answered, comma-separated (google, searxng)"}).WithCursor(),
		},
		Vars: []scrapers.Var{
			{Name: "SEARXNG_URL", Default: "unset: no fallback", Meaning: "SearXNG origin with its JSON API enabled, google-search's fallback"},
			{Name: "GOOGLE_SEARCH_PROVIDERS", Default: "google,searxng with SEARXNG_URL, else google", Meaning: "The order google-search asks its providers in"},
		},
	}, nil
}

func newPlugin(env scrapers.Env) (*plugin, error) {
	searxURL := env.Get("SEARXNG_URL")
	order := env.Get(scrapers.EnvName(pluginID, "PROVIDERS"))
	if order == "" {
		order = "google"
		if searxURL != "" {
			order = "google,searxng"
		}
	}
	p := &plugin{}
	seen := map[string]bool{}
	for _, name := range strings.Split(order, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		switch name {
		case "google":
			f, err := scrapers.NewFetcher(env, googleSite())
			if err != nil {
				return nil, err
			}
			p.providers = append(p.providers, &googleProvider{fetch: f})
		case "searxng":
			if searxURL == "" {
				return nil, errors.New("GOOGLE_SEARCH_PROVIDERS names searxng but SEARXNG_URL is not set")
			}
			s, err := newSearxng(env, searxURL)
			if err != nil {
				return nil, err
			}
			p.providers = append(p.providers, s)
		default:
			return nil, fmt.Errorf("GOOGLE_SEARCH_PROVIDERS: unknown provider %q; use google and searxng", name)
		}
	}
	if len(p.providers) == 0 {
		return nil, errors.New("GOOGLE_SEARCH_PROVIDERS names no provider; use google, searxng or both")
	}
	return p, nil
}

// pageItem is one item: one results page of one query.
type pageItem struct {
	URL             string         `json:"url"`
	Query           string         `json:"query"`
	Page            int            `json:"page"`
	ResultsProvider string         `json:"results_provider"`
	OrganicResults  []Organic      `json:"organic_results"`
	RelatedQueries  []RelatedQuery `json:"related_queries"`
	PeopleAlsoAsk   []Question     `json:"people_also_ask"`
	TotalResults    *int64         `json:"total_results"`
}

// run is one call of the search tool.
func (p *plugin) run(ctx context.Context, call *scrapers.Call, a searchArgs) error {
	r := &runner{plugin: p, call: call, args: &a, blocked: map[string]error{}, total: len(a.Queries) * a.maxPages}
	workers := min(3, len(a.Queries))
	queries := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for q := range queries {
				r.query(ctx, q)
			}
		})
	}
feed:
	for _, q := range a.Queries {
		select {
		case queries <- q:
		case <-ctx.Done():
			break feed
		}
	}
	close(queries)
	wg.Wait()
	return r.result(ctx)
}

// runner is the state of one call: what succeeded, what failed, which
// providers blocked (a blocked provider is not asked again in this call).
type runner struct {
	*plugin
	call *scrapers.Call
	args *searchArgs

	mu        sync.Mutex
	done      int
	total     int
	succeeded int
	pending   []failure // failures held until something succeeds
	firstErr  error
	blockErr  error // the first failure that holds a *BlockedError
	blocked   map[string]error
	used      []string // providers that answered, in order of first use
}

type failure struct {
	url string
	err error
}

// query reads up to maxPages pages of q, stopping at a page without results.
// Each page starts where the previous page's "Next" link says, or one page
// size further when it has none. A call of one query sets next_cursor to
// the page after the last one read, when the site shows there is one.
func (r *runner) query(ctx context.Context, q string) {
	start := r.args.start
	next := scrapers.Cursor{Listing: r.args.listingKey(q)}
	if len(r.args.Queries) == 1 {
		defer func() { r.call.SetNextCursor(next) }()
	}
	for page := 1; page <= r.args.maxPages; page++ {
		if ctx.Err() != nil {
			return
		}
		res, prov, err := r.page(ctx, q, page, start)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.fail(r.providers[0].searchURL(r.args, q, page, start), err)
			r.progress(q, page, r.args.maxPages-page+1)
			// A later call can try this page again.
			next.Token, next.Done = strconv.Itoa(start), r.args.pagesBefore+page-1
			return
		}
		r.add(pageItem{
			URL: res.url, Query: q, Page: r.args.pagesBefore + page, ResultsProvider: prov,
			OrganicResults: offset(res.serp.Organic, start),
			RelatedQueries: res.serp.Related, PeopleAlsoAsk: res.serp.PeopleAlsoAsk, TotalResults: res.serp.TotalResults,
		})
		next.Token = ""
		if len(res.serp.Organic) == 0 {
			r.progress(q, page, r.args.maxPages-page+1)
			return
		}
		r.progress(q, page, 1)
		// Google's page says whether another follows (its Next link);
		// SearXNG's answer does not, so a page with results is taken to
		// have one after it.
		hasNext := res.serp.NextStart > start || prov == "searxng"
		if res.serp.NextStart > start {
			start = res.serp.NextStart
		} else {
			start += r.args.perPage
		}
		resume := start
		if prov == "searxng" {
			// SearXNG pages by number, ten results to a page whatever
			// results_per_page says: the cursor names the page after.
			resume = r.args.start + page*10
		}
		if hasNext && resume <= maxStart {
			next.Token, next.Done = strconv.Itoa(resume), r.args.pagesBefore+page
		}
	}
}

// page asks the providers in order; one that blocks or fails falls through
// to the next. When all fail the error holds each one's reason.
func (r *runner) page(ctx context.Context, q string, page, start int) (*pageResult, string, error) {
	var errs []error
	for _, p := range r.providers {
		if err := r.blockedBy(p.name()); err != nil {
			errs = append(errs, err)
			continue
		}
		res, err := p.search(ctx, r.args, q, page, start)
		if err == nil {
			return res, p.name(), nil
		}
		if ctx.Err() != nil {
			return nil, "", err
		}
		var be *scrapers.BlockedError
		if errors.As(err, &be) {
			r.markBlocked(p.name(), err)
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return nil, "", errs[0]
	}
	return nil, "", errors.Join(errs...)
}

func (r *runner) blockedBy(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blocked[name]
}

func (r *runner) markBlocked(name string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blocked[name] == nil {
		r.blocked[name] = err
	}
}

// offset numbers results by their rank across pages.
func offset(list []Organic, start int) []Organic {
	for i := range list {
		list[i].Position = start + i + 1
	}
	return list
}

func (r *runner) add(it pageItem) {
	r.call.Add(it)
	r.mu.Lock()
	r.succeeded++
	pending := r.pending
	r.pending = nil
	known := false
	for _, u := range r.used {
		known = known || u == it.ResultsProvider
	}
	if !known {
		r.used = append(r.used, it.ResultsProvider)
	}
	meta := strings.Join(r.used, ",")
	r.mu.Unlock()
	r.call.SetMeta("results_provider", meta)
	for _, f := range pending {
		r.call.Fail(f.url, f.err)
	}
}

// fail records a failed query page: at once when something has already
// succeeded, else held, since a call where nothing succeeds ends with the
// error itself.
func (r *runner) fail(u string, err error) {
	r.mu.Lock()
	var be *scrapers.BlockedError
	if errors.As(err, &be) && r.blockErr == nil {
		r.blockErr = err
	}
	if r.firstErr == nil {
		r.firstErr = err
	}
	now := r.succeeded > 0
	if !now {
		r.pending = append(r.pending, failure{u, err})
	}
	r.mu.Unlock()
	if now {
		r.call.Fail(u, err)
	}
}

func (r *runner) progress(q string, page, pages int) {
	r.mu.Lock()
	r.done += pages
	done, total := r.done, r.total
	r.mu.Unlock()
	r.call.Progress(fmt.Sprintf("searched %q page %d", q, page), done, total)
}

// result is the call's error: the stop when ctx ended, the block (or first
// failure) when no page succeeded, else nil.
func (r *runner) result(ctx context.Context) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, ctx.Err()) {
			return fmt.Errorf("the search stopped: %w (%w)", cause, ctx.Err())
		}
		return fmt.Errorf("the search stopped: %w", ctx.Err())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.succeeded > 0 {
		return nil
	}
	if r.blockErr != nil {
		return r.blockErr
	}
	return r.firstErr
}
