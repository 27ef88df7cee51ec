package indeed

import (
	"context"
	"errors"
	"fmt"
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
	var sources []scrapers.Source
	for _, srch := range a.searches {
		sources = append(sources, scrapers.Source{URL: searchURL(srch, 0), Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.search(ctx, r, srch, a)
		}})
	}
	for _, u := range a.jobURLs {
		sources = append(sources, scrapers.Source{URL: u, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			j, err := s.jobPage(ctx, u)
			if err != nil {
				return err
			}
			if a.ParseCompanyDetails {
				j = j.withCompanyDetails()
			}
			r.Add(j)
			return nil
		}})
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
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
func (s *scraper) search(ctx context.Context, r *scrapers.SerialJob, srch search, a scrapeArgs) error {
	seen := map[string]bool{}
	added := 0
	for page := 0; added < a.maxItems && page < maxSearchPages; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
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
					return scrapers.ContextError(ctx)
				} else {
					j.DetailsError = detailsErr.Error()
					r.Call().MarkPartial("the pages of some jobs could not be read; they have only their search card")
				}
			}
			if a.ParseCompanyDetails {
				j = j.withCompanyDetails()
			}
			r.Add(j)
			var be *scrapers.BlockedError
			if errors.As(r.RateLimited(detailsErr), &be) {
				return r.RateLimited(detailsErr)
			}
		}
		r.Call().Progress(fmt.Sprintf("found %d jobs for %q", added, srch.q+" "+srch.l), added, a.maxItems)
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
