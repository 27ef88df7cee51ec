package googlemaps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

type scraper struct {
	f *scrapers.Fetcher
}

// job is one source of a call: a search or a place.
type job struct {
	source string // the URL that names it, for failures
	run    func(ctx context.Context, r *run) error
}

// scrape runs the scrape tool: each search, URL and place id in turn.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	var jobs []job
	search := func(q string, vp viewport) job {
		return job{
			source: "https://www.google.com/maps/search/" + url.PathEscape(q),
			run: func(ctx context.Context, r *run) error {
				return s.search(ctx, r, q, vp, a.Language, a.CountryCode, a.maxPlaces)
			},
		}
	}
	place := func(u string) job {
		return job{source: u, run: func(ctx context.Context, r *run) error {
			p, err := s.place(ctx, u, a.Language, a.CountryCode)
			if err == nil {
				r.add(p)
			}
			return err
		}}
	}
	for _, q := range a.SearchQueries {
		jobs = append(jobs, search(strings.TrimSpace(q), viewport{}))
	}
	for _, u := range a.urls {
		if isSearchURL(u) {
			vp, _ := viewportFromPath(u.Path)
			jobs = append(jobs, search(searchQueryOf(u), vp))
			continue
		}
		jobs = append(jobs, place(u.String()))
	}
	for _, id := range a.PlaceIDs {
		jobs = append(jobs, place(placeIDURL(strings.TrimSpace(id))))
	}
	return s.runJobs(ctx, call, jobs)
}

// reviews runs the reviews tool: each place in turn.
func (s *scraper) reviews(ctx context.Context, call *scrapers.Call, a reviewsArgs) error {
	var jobs []job
	add := func(src string) {
		jobs = append(jobs, job{source: src, run: func(ctx context.Context, r *run) error {
			return s.placeReviews(ctx, r, src, a)
		}})
	}
	for _, u := range a.urls {
		add(u.String())
	}
	for _, id := range a.PlaceIDs {
		add(placeIDURL(strings.TrimSpace(id)))
	}
	return s.runJobs(ctx, call, jobs)
}

func (s *scraper) runJobs(ctx context.Context, call *scrapers.Call, jobs []job) error {
	r := &run{call: call}
	for i, j := range jobs {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		err := j.run(ctx, r)
		if stop, ret := r.failed(ctx, j.source, err); stop {
			return ret
		}
		call.Progress(fmt.Sprintf("read %d of %d Google Maps sources", i+1, len(jobs)), i+1, len(jobs))
	}
	return r.finish()
}

// placeIDURL is the Maps link of a place id (ChIJ…) or feature id (0x…:0x…).
func placeIDURL(id string) string {
	if dataIDRE.MatchString(id) {
		return "https://www.google.com/maps?" + url.Values{"ftid": {id}}.Encode()
	}
	return "https://www.google.com/maps/place/?" + url.Values{"q": {"place_id:" + id}}.Encode()
}

// withLocale adds hl (and gl) to a Maps URL that does not set them.
func withLocale(raw, hl, gl string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	if q.Get("hl") == "" {
		q.Set("hl", hl)
	}
	if gl != "" && q.Get("gl") == "" {
		q.Set("gl", gl)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// place reads one place page.
func (s *scraper) place(ctx context.Context, raw, hl, gl string) (Place, error) {
	resp, err := s.f.Get(ctx, withLocale(raw, hl, gl))
	if err != nil {
		return Place{}, err
	}
	return parsePlace(resp.Body, raw)
}

// search adds up to max places Google finds for q, paging through its
// answers.
func (s *scraper) search(ctx context.Context, r *run, q string, vp viewport, hl, gl string, max int) error {
	seen := map[string]bool{}
	added := 0
	for offset := 0; added < max && offset < maxMaxPlaces+searchPageSize; offset += searchPageSize {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		resp, err := s.f.Get(ctx, searchURL(q, hl, gl, vp, offset))
		if err != nil {
			return err
		}
		places, err := parseSearch(resp.Body)
		if err != nil {
			return err
		}
		for _, p := range places {
			key := firstNonEmpty(p.DataID, p.PlaceID, p.Title+"|"+p.Address)
			if seen[key] || added >= max {
				continue
			}
			seen[key] = true
			added++
			p.SearchQuery, p.Rank = q, added
			if p.URL == "" {
				p.URL = "https://www.google.com/maps/search/" + url.PathEscape(q+" "+p.Title)
			}
			r.add(p)
		}
		r.call.Progress(fmt.Sprintf("found %d places for %q", added, q), added, max)
		if len(places) < searchPageSize {
			break // Google's last page
		}
	}
	return nil
}

// placeReviews adds up to a.maxReviews reviews of the place src names.
func (s *scraper) placeReviews(ctx context.Context, r *run, src string, a reviewsArgs) error {
	dataID, placeURL, title := dataIDFromURL(src), src, ""
	if dataID == "" {
		p, err := s.place(ctx, src, a.Language, "")
		if err != nil {
			return err
		}
		if p.DataID == "" {
			return fmt.Errorf("Google Maps gave no feature id for %q, so its reviews cannot be listed", p.Title)
		}
		dataID, placeURL, title = p.DataID, p.URL, p.Title
	} else if cid := cidOf(dataID); cid != "" && strings.Contains(src, "ftid=") {
		placeURL = "https://www.google.com/maps?cid=" + cid
	}
	session := newSession()
	token := ""
	seen := map[string]bool{}
	added := 0
	for page := 0; added < a.maxReviews && page < maxMaxReviews/reviewsPageSize+5; page++ {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		resp, err := s.f.Get(ctx, reviewsURL(dataID, token, session, a.SortBy, a.Language, ""))
		if err != nil {
			return err
		}
		pg, err := parseReviewsPage(resp.Body, placeURL, title)
		if err != nil {
			return err
		}
		fresh := 0
		for _, rv := range pg.Reviews {
			if seen[rv.ReviewID] || added >= a.maxReviews {
				continue
			}
			seen[rv.ReviewID] = true
			r.add(rv)
			added++
			fresh++
		}
		r.call.Progress(fmt.Sprintf("listed %d reviews of %s", added, firstNonEmpty(title, placeURL)), added, a.maxReviews)
		if pg.Next == "" || pg.Next == token || fresh == 0 {
			break
		}
		token = pg.Next
	}
	return nil
}

// run tracks one call: how many real items were added and the first failure.
type run struct {
	call     *scrapers.Call
	items    int
	firstErr error
	failures int
}

func (r *run) add(item any) {
	r.call.Add(item)
	r.items++
}

// failed records a source's error. It says whether the call must stop and
// what to return then: the context's error when the call ended, the block
// when Google blocked before anything was gathered.
func (r *run) failed(ctx context.Context, src string, err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	if ctx.Err() != nil {
		return true, stopped(ctx)
	}
	err = rateLimited(err)
	var be *scrapers.BlockedError
	if errors.As(err, &be) {
		if r.items == 0 {
			return true, err
		}
		r.call.Fail(src, err)
		r.call.MarkPartial("Google Maps started blocking requests; the remaining sources were not read")
		return true, nil
	}
	r.call.Fail(src, err)
	r.failures++
	if r.firstErr == nil {
		r.firstErr = err
	}
	return false, nil
}

// finish is the call's outcome once every source was tried: an error when
// nothing at all was gathered and something failed.
func (r *run) finish() error {
	if r.items == 0 && r.firstErr != nil {
		if r.failures > 1 {
			return fmt.Errorf("all %d Google Maps sources failed; the first: %w", r.failures, r.firstErr)
		}
		return r.firstErr
	}
	return nil
}

// rateLimited turns a 429 that outlasted the fetcher's retries into the
// rate-limit block it is.
func rateLimited(err error) error {
	var se *scrapers.SiteError
	if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
		return &scrapers.BlockedError{Site: "Google Maps", Kind: scrapers.BlockRateLimited, URL: se.URL}
	}
	return err
}

// stopped is the error of a call whose context ended (deadline or cancel),
// carrying the cause when there is one.
func stopped(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
