package indeed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/surfsense/pluginhost/scrapers"
)

// searchPageStep is how far Indeed's start parameter moves per page.
const searchPageStep = 10

// maxSearchPages bounds the pages read per search.
const maxSearchPages = 15

type scraper struct {
	f *scrapers.Fetcher
}

// scrape runs the scrape tool: each search, then each job URL.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	type job struct {
		source string
		run    func(ctx context.Context, r *run) error
	}
	var jobs []job
	for _, srch := range a.searches {
		jobs = append(jobs, job{source: searchURL(srch, 0), run: func(ctx context.Context, r *run) error {
			return s.search(ctx, r, srch, a)
		}})
	}
	for _, u := range a.jobURLs {
		jobs = append(jobs, job{source: u, run: func(ctx context.Context, r *run) error {
			j, err := s.jobPage(ctx, u)
			if err != nil {
				return err
			}
			if a.ParseCompanyDetails {
				j = j.withCompanyDetails()
			}
			r.add(j)
			return nil
		}})
	}
	r := &run{call: call}
	for i, j := range jobs {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		err := j.run(ctx, r)
		if stop, ret := r.failed(ctx, j.source, err); stop {
			return ret
		}
		call.Progress(fmt.Sprintf("read %d of %d Indeed sources", i+1, len(jobs)), i+1, len(jobs))
	}
	return r.finish()
}

// searchURL is the page of a search that starts at result start.
func searchURL(s search, start int) string {
	v := url.Values{}
	for k, vs := range s.params {
		v[k] = vs
	}
	v.Set("q", s.q)
	v.Set("l", s.l)
	if start > 0 {
		v.Set("start", strconv.Itoa(start))
	}
	return "https://" + s.host + "/jobs?" + v.Encode()
}

// search adds up to a.maxItems jobs of one search, paging with start=.
func (s *scraper) search(ctx context.Context, r *run, srch search, a scrapeArgs) error {
	seen := map[string]bool{}
	added := 0
	for page := 0; added < a.maxItems && page < maxSearchPages; page++ {
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		resp, err := s.f.Get(ctx, searchURL(srch, page*searchPageStep))
		if err != nil {
			return err
		}
		cards, err := parseSearchPage(resp.Body, srch.host)
		if err != nil {
			if page > 0 && errors.Is(err, errNoJobCards) {
				break // past the last page
			}
			return err
		}
		fresh := 0
		for _, j := range cards {
			if seen[j.JobKey] || added >= a.maxItems {
				continue
			}
			seen[j.JobKey] = true
			added++
			fresh++
			j.Rank, j.SearchQuery, j.SearchLocation = added, srch.q, srch.l
			var detailsErr error
			if a.IncludeDetails {
				var pg Job
				if pg, detailsErr = s.jobPage(ctx, j.URL); detailsErr == nil {
					j.merge(pg)
				} else if ctx.Err() != nil {
					return stopped(ctx)
				} else {
					j.DetailsError = detailsErr.Error()
					r.call.MarkPartial("the pages of some jobs could not be read; they have only their search card")
				}
			}
			if a.ParseCompanyDetails {
				j = j.withCompanyDetails()
			}
			r.add(j)
			var be *scrapers.BlockedError
			if errors.As(rateLimited(detailsErr), &be) {
				return rateLimited(detailsErr)
			}
		}
		r.call.Progress(fmt.Sprintf("found %d jobs for %q", added, srch.q+" "+srch.l), added, a.maxItems)
		if fresh == 0 {
			break // Indeed repeats its last page past the end
		}
	}
	return nil
}

// jobPage reads one job page.
func (s *scraper) jobPage(ctx context.Context, raw string) (Job, error) {
	resp, err := s.f.Get(ctx, raw)
	if err != nil {
		return Job{}, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Job{}, err
	}
	j, err := parseJobPage(resp.Body, u.Host)
	if err != nil {
		return Job{}, err
	}
	if j.URL == "" {
		j.URL = raw
		j.JobKey = u.Query().Get("jk")
	}
	return j, nil
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
// when Indeed blocked before anything was gathered.
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
		r.call.MarkPartial("Indeed started blocking requests; the remaining sources were not read")
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
			return fmt.Errorf("all %d Indeed sources failed; the first: %w", r.failures, r.firstErr)
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
		return &scrapers.BlockedError{Site: "Indeed", Kind: scrapers.BlockRateLimited, URL: se.URL}
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
