package instagram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/surfsense/pluginhost/scrapers"
)

// appID is the X-IG-App-ID Instagram's web client sends with its API
// requests; web_profile_info answers nothing without it.
const appID = "936619743392459"

type scraper struct {
	f *scrapers.Fetcher
}

// profile reads a profile from the web profile endpoint.
func (s *scraper) profile(ctx context.Context, name string) (*profilePage, error) {
	req := &scrapers.Request{
		URL: origin + "/api/v1/users/web_profile_info/?" + url.Values{"username": {name}}.Encode(),
		Header: http.Header{
			"X-IG-App-ID":      {appID},
			"X-Requested-With": {"XMLHttpRequest"},
			"Accept":           {"*/*"},
			"Referer":          {origin + "/" + name + "/"},
		},
	}
	resp, err := s.f.Do(ctx, req)
	var se *scrapers.SiteError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return nil, fmt.Errorf("@%s is not an Instagram account (Instagram answered 404)", name)
	}
	if err != nil {
		return nil, err
	}
	return parseProfile(resp.Body)
}

// post reads a post or reel from the JSON its page embeds.
func (s *scraper) post(ctx context.Context, t target) (*Post, error) {
	kind := "p"
	if t.reel {
		kind = "reel"
	}
	resp, err := s.f.Get(ctx, origin+"/"+kind+"/"+t.shortcode+"/")
	var se *scrapers.SiteError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return nil, fmt.Errorf("%s is not an Instagram post (Instagram answered 404)", t.name())
	}
	if err != nil {
		return nil, err
	}
	return parsePostPage(resp.Body)
}

func (t target) name() string {
	if t.username != "" {
		return origin + "/" + t.username + "/"
	}
	if t.reel {
		return origin + "/reel/" + t.shortcode + "/"
	}
	return origin + "/p/" + t.shortcode + "/"
}

// scrape runs the scrape tool: the recent posts of each profile, and each
// post or reel.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	srcs := make([]scrapers.Source, len(a.targets))
	for i, t := range a.targets {
		srcs[i] = scrapers.Source{URL: t.name(), Read: func(ctx context.Context, j *scrapers.SerialJob) error {
			if t.username == "" {
				p, err := s.post(ctx, t)
				if err != nil {
					return err
				}
				p.Comments = nil // the details tool gives them
				j.Add(p)
				return nil
			}
			pg, err := s.profile(ctx, t.username)
			if err != nil {
				return err
			}
			prof := pg.Profile
			if prof.Private && len(prof.RecentPosts) == 0 {
				return fmt.Errorf("@%s is a private account; Instagram shows its posts only to approved followers", prof.Username)
			}
			n := 0
			for _, p := range prof.RecentPosts {
				if n >= a.maxItems {
					break
				}
				p.Comments = nil
				p.Source = prof.URL
				j.Add(p)
				n++
			}
			if n < a.maxItems && pg.More {
				j.Call().MarkPartial(fmt.Sprintf("Instagram showed %d recent posts of @%s to an anonymous reader; older ones need a login", n, prof.Username))
			}
			return nil
		}}
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
}

// details runs the details tool: each profile's details with its recent
// posts, and each post or reel with the comments its page shows.
func (s *scraper) details(ctx context.Context, call *scrapers.Call, a detailsArgs) error {
	srcs := make([]scrapers.Source, len(a.targets))
	for i, t := range a.targets {
		srcs[i] = scrapers.Source{URL: t.name(), Read: func(ctx context.Context, j *scrapers.SerialJob) error {
			if t.username == "" {
				p, err := s.post(ctx, t)
				if err != nil {
					return err
				}
				j.Add(p)
				return nil
			}
			pg, err := s.profile(ctx, t.username)
			if err != nil {
				return err
			}
			j.Add(pg.Profile)
			return nil
		}}
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
}
