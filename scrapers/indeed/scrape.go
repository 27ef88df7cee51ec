package indeed

import (
	"bytes"
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
	one := len(a.searches) == 1 && len(a.jobURLs) == 0
	for _, srch := range a.searches {
		sources = append(sources, scrapers.Source{URL: searchURL(srch, 0), Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.search(ctx, r, srch, a, one)
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

// A search's cursor names the page it stopped in by Indeed's start and how
// many of that page's cards were returned: Indeed's pages overlap (15 cards,
// start moving by 10), so a later call reads that page again, passes over
// the cards it returned (remembering them), and goes on from there without
// repeating any.

// search adds up to a.maxItems jobs of one search, paging with start=, from
// the cursor argument on. When one is set (the call's only source), it sets
// next_cursor when the search has more.
func (s *scraper) search(ctx context.Context, r *scrapers.SerialJob, srch search, a scrapeArgs, one bool) error {
	seen := map[string]bool{}
	added, base, firstPage, skip := 0, 0, 0, 0
	if c := a.cursor; c.Token != "" {
		start, _ := strconv.Atoi(c.Token)
		firstPage, skip, base = start/searchPageStep, c.Skip, c.Done
	}
	next := scrapers.Cursor{Listing: srch.key()}
	if one {
		defer func() { r.Call().SetNextCursor(next) }()
	}
	for page := firstPage; added < a.maxItems && page < firstPage+maxSearchPages; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		start := page * searchPageStep
		resp, err := s.f.Get(ctx, searchURL(srch, start))
		if err != nil {
			return err
		}
		cards, err := parseSearchPage(resp.Body, srch.host)
		if err != nil {
			if page > firstPage && errors.Is(err, errNoJobCards) {
				next = scrapers.Cursor{}
				break // past the last page
			}
			return err
		}
		more := hasNextPage(resp.Body)
		fresh := 0
		for i, j := range cards {
			if added >= a.maxItems {
				// Cards of this page are left: the next call starts here.
				next = scrapers.Cursor{Listing: srch.key(), Token: strconv.Itoa(start), Skip: i, Done: base + added}
				return nil
			}
			if i < skip {
				seen[j.JobKey] = true // returned by an earlier call
				continue
			}
			if seen[j.JobKey] {
				continue
			}
			seen[j.JobKey] = true
			added++
			fresh++
			j.Rank, j.SearchQuery, j.SearchLocation = base+added, srch.q, srch.l
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
				next = scrapers.Cursor{Listing: srch.key(), Token: strconv.Itoa(start), Skip: i + 1, Done: base + added}
				return r.RateLimited(detailsErr)
			}
		}
		r.Call().Progress(fmt.Sprintf("found %d jobs for %q", added, srch.q+" "+srch.l), added, a.maxItems)
		resumed := page == firstPage && a.cursor.Token != ""
		if (fresh == 0 && !resumed) || more == noNextPage {
			next = scrapers.Cursor{} // Indeed repeats its last page past the end, or said it was the last
			break
		}
		// The whole page was returned: a later call goes on past it.
		next = scrapers.Cursor{Listing: srch.key(), Token: strconv.Itoa(start), Skip: len(cards), Done: base + added}
		skip = 0
	}
	return nil
}

// Whether a search page says another follows.
const (
	unknownNextPage = iota // the page shows no pager
	hasNextPageLink
	noNextPage // a pager without a next link: the last page
)

// hasNextPage reads a search page's pager: Indeed's pagination nav, whose
// last link is data-testid="pagination-page-next" while pages follow.
func hasNextPage(body []byte) int {
	switch {
	case bytes.Contains(body, []byte(`data-testid="pagination-page-next"`)):
		return hasNextPageLink
	case bytes.Contains(body, []byte(`aria-label="pagination"`)):
		return noNextPage
	}
	return unknownNextPage
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
