package googlemaps

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

type scraper struct {
	f *scrapers.Fetcher
}

// scrape runs the scrape tool: each search, URL and place id in turn.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	var sources []scrapers.Source
	search := func(q string, vp viewport) scrapers.Source {
		return scrapers.Source{
			URL: "https://www.google.com/maps/search/" + url.PathEscape(q),
			Read: func(ctx context.Context, r *scrapers.SerialJob) error {
				return s.search(ctx, r, q, vp, a)
			},
		}
	}
	place := func(u string) scrapers.Source {
		return scrapers.Source{URL: u, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			p, err := s.place(ctx, u, a.Language, a.CountryCode)
			if err == nil {
				r.Add(p)
			}
			return err
		}}
	}
	for _, q := range a.SearchQueries {
		sources = append(sources, search(strings.TrimSpace(q), viewport{}))
	}
	for _, u := range a.urls {
		if isSearchURL(u) {
			vp, _ := viewportFromPath(u.Path)
			sources = append(sources, search(searchQueryOf(u), vp))
			continue
		}
		sources = append(sources, place(u.String()))
	}
	for _, id := range a.PlaceIDs {
		sources = append(sources, place(placeIDURL(strings.TrimSpace(id))))
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
}

// reviews runs the reviews tool: each place in turn.
func (s *scraper) reviews(ctx context.Context, call *scrapers.Call, a reviewsArgs) error {
	var sources []scrapers.Source
	add := func(src string) {
		sources = append(sources, scrapers.Source{URL: src, Read: func(ctx context.Context, r *scrapers.SerialJob) error {
			return s.placeReviews(ctx, r, src, a, len(a.urls)+len(a.PlaceIDs) == 1)
		}})
	}
	for _, u := range a.urls {
		add(u.String())
	}
	for _, id := range a.PlaceIDs {
		add(placeIDURL(strings.TrimSpace(id)))
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
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
// answers, from the cursor argument on. A call of this one search sets
// next_cursor when Google has more: inside the page it stopped in, or the
// next page when this one was full.
func (s *scraper) search(ctx context.Context, r *scrapers.SerialJob, q string, vp viewport, a scrapeArgs) error {
	hl, gl, max := a.Language, a.CountryCode, a.maxPlaces
	seen := map[string]bool{}
	added, base, first, skip := 0, a.cursor.Done, 0, a.cursor.Skip
	if a.cursor.Token != "" {
		first, _ = strconv.Atoi(a.cursor.Token)
	}
	key := searchKey(q, vp, hl, gl)
	var next scrapers.Cursor
	if _, _, one := a.oneSearch(); one {
		defer func() { r.Call().SetNextCursor(next) }()
	}
	for offset := first; added < max && offset < first+maxMaxPlaces+searchPageSize; offset += searchPageSize {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		resp, err := s.f.Get(ctx, searchURL(q, hl, gl, vp, offset))
		if err != nil {
			next = scrapers.Cursor{Listing: key, Token: strconv.Itoa(offset), Skip: skip, Done: base + added}
			return err
		}
		places, err := parseSearch(resp.Body)
		if err != nil {
			return err
		}
		next = scrapers.Cursor{}
		for i, p := range places {
			keyOf := firstNonEmpty(p.DataID, p.PlaceID, p.Name+"|"+p.Address)
			if i < skip {
				seen[keyOf] = true // returned by an earlier call
				continue
			}
			if added >= max {
				next = scrapers.Cursor{Listing: key, Token: strconv.Itoa(offset), Skip: i, Done: base + added}
				break
			}
			if seen[keyOf] {
				continue
			}
			seen[keyOf] = true
			added++
			p.SearchQuery, p.Rank = q, base+added
			if p.URL == "" {
				p.URL = "https://www.google.com/maps/search/" + url.PathEscape(q+" "+p.Name)
			}
			r.Add(p)
		}
		skip = 0
		r.Call().Progress(fmt.Sprintf("found %d places for %q", added, q), added, max)
		if next.Token != "" {
			return nil // stopped inside the page
		}
		if len(places) < searchPageSize {
			break // Google's last page
		}
		next = scrapers.Cursor{Listing: key, Token: strconv.Itoa(offset + searchPageSize), Done: base + added}
	}
	return nil
}

// placeReviews adds up to a.maxReviews reviews of the place src names, from
// the cursor argument on; for a call of this one place (one) it sets
// next_cursor when Google has more: inside the page it stopped in, or
// Google's next page token.
func (s *scraper) placeReviews(ctx context.Context, r *scrapers.SerialJob, src string, a reviewsArgs, one bool) error {
	dataID, placeURL, title := dataIDFromURL(src), src, ""
	if dataID == "" {
		p, err := s.place(ctx, src, a.Language, "")
		if err != nil {
			return err
		}
		if p.DataID == "" {
			return fmt.Errorf("Google Maps gave no feature id for %q, so its reviews cannot be listed", p.Name)
		}
		dataID, placeURL, title = p.DataID, p.URL, p.Name
	} else if cid := cidOf(dataID); cid != "" && strings.Contains(src, "ftid=") {
		placeURL = "https://www.google.com/maps?cid=" + cid
	}
	session, token, skip := newSession(), "", 0
	if a.cursor.Token != "" {
		session, token, _ = splitReviewsToken(a.cursor.Token)
		skip = a.cursor.Skip
	}
	key := reviewsKey(src, a.SortBy, a.Language)
	var next scrapers.Cursor
	if one {
		defer func() { r.Call().SetNextCursor(next) }()
	}
	seen := map[string]bool{}
	added := 0
	for page := 0; added < a.maxReviews && page < maxMaxReviews/reviewsPageSize+5; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		resp, err := s.f.Get(ctx, reviewsURL(dataID, token, session, a.SortBy, a.Language, ""))
		if err != nil {
			next = scrapers.Cursor{Listing: key, Token: reviewsToken(session, token), Skip: skip}
			return err
		}
		pg, err := parseReviewsPage(resp.Body, placeURL, title)
		if err != nil {
			return err
		}
		next = scrapers.Cursor{}
		fresh := 0
		for i, rv := range pg.Reviews {
			if i < skip {
				seen[rv.ReviewID] = true // returned by an earlier call
				continue
			}
			if added >= a.maxReviews {
				next = scrapers.Cursor{Listing: key, Token: reviewsToken(session, token), Skip: i}
				break
			}
			if seen[rv.ReviewID] {
				continue
			}
			seen[rv.ReviewID] = true
			r.Add(rv)
			added++
			fresh++
		}
		resumed := page == 0 && a.cursor.Token != "" // its reviews may all have been returned before
		skip = 0
		r.Call().Progress(fmt.Sprintf("listed %d reviews of %s", added, firstNonEmpty(title, placeURL)), added, a.maxReviews)
		if next.Token != "" {
			return nil // stopped inside the page
		}
		if pg.Next == "" || pg.Next == token || (fresh == 0 && !resumed) || !validPageToken(pg.Next) {
			break
		}
		token = pg.Next
		next = scrapers.Cursor{Listing: key, Token: reviewsToken(session, token)}
	}
	return nil
}
