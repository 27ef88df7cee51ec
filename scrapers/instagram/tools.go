package instagram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
		URL:    origin + "/api/v1/users/web_profile_info/?" + url.Values{"username": {name}}.Encode(),
		Header: apiHeaders(origin + "/" + name + "/"),
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

// profileFromPage reads the logged-out profile page, for when the profile
// endpoint asks for a login. walled is the endpoint's answer, named in the
// error when the page does not serve either.
func (s *scraper) profileFromPage(ctx context.Context, name string, walled error) (*Profile, error) {
	resp, err := s.f.Get(ctx, origin+"/"+name+"/")
	var se *scrapers.SiteError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return nil, fmt.Errorf("@%s is not an Instagram account (Instagram answered 404)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w; its logged-out profile page did not serve either: %v", walled, err)
	}
	p, err := parseProfilePage(resp.Body, name)
	if err != nil {
		return nil, fmt.Errorf("%w; and %v", walled, err)
	}
	return p, nil
}

// isLoginWall says whether err is Instagram's login wall.
func isLoginWall(err error) bool {
	var be *scrapers.BlockedError
	return errors.As(err, &be) && be.Kind == scrapers.BlockLoginWall
}

// post reads a post or reel page: the post and the first page of its
// comments.
func (s *scraper) post(ctx context.Context, t target) (*postPage, error) {
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

// listPosts adds a profile's posts from start (first, when given, being
// the page there) up to want, and returns the cursor that continues them.
func (s *scraper) listPosts(ctx context.Context, j *scrapers.SerialJob, username, userID string, start position, first *pageOf[Post], want int) (*listCursor, error) {
	src := origin + "/" + username + "/"
	seen := map[string]bool{}
	have, next, err := walk(ctx, want, start, first, func(ctx context.Context, after string, n int) (*pageOf[Post], error) {
		tl, err := s.timeline(ctx, username, userID, after, n)
		if err != nil {
			return nil, err
		}
		return &pageOf[Post]{Items: tl.Posts, Cursor: tl.Cursor, More: tl.More}, nil
	}, func(p Post) {
		if seen[p.Shortcode] {
			return
		}
		seen[p.Shortcode] = true
		if p.OwnerUsername == "" {
			p.OwnerUsername, p.OwnerID = username, userID
		}
		p.Source = src
		j.Add(p)
		j.Call().Progress(fmt.Sprintf("listed %d posts of @%s", len(seen), username), len(seen), want)
	})
	var c *listCursor
	if next != nil {
		c = &listCursor{Kind: cursorPosts, Key: username, ID: userID, After: next.After, Skip: next.Skip}
	}
	if err != nil {
		if ctx.Err() != nil {
			return c, scrapers.ContextError(ctx)
		}
		if have == 0 {
			return c, err
		}
		j.Call().MarkPartial(fmt.Sprintf("the posts of @%s stopped at %d of %d: %v; next_cursor continues them", username, have, want, j.RateLimited(err)))
	}
	return c, nil
}

// scrape runs the scrape tool: the posts of each profile, and each post or
// reel. With one profile, next_cursor continues its posts.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	profiles := 0
	for _, t := range a.targets {
		if t.username != "" {
			profiles++
		}
	}
	var next *listCursor
	srcs := make([]scrapers.Source, len(a.targets))
	for i, t := range a.targets {
		srcs[i] = scrapers.Source{URL: t.name(), Read: func(ctx context.Context, j *scrapers.SerialJob) error {
			if t.username == "" {
				pg, err := s.post(ctx, t)
				if err != nil {
					return err
				}
				j.Add(pg.Post)
				return nil
			}
			var c *listCursor
			var err error
			if a.cursor != nil {
				c, err = s.listPosts(ctx, j, t.username, a.cursor.ID, position{After: a.cursor.After, Skip: a.cursor.Skip}, nil, a.maxItems)
			} else {
				c, err = s.profilePosts(ctx, j, t.username, a.maxItems)
			}
			if profiles == 1 {
				next = c
			}
			return err
		}}
	}
	err := scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
	if next != nil {
		call.SetMeta("next_cursor", next.String())
	}
	return err
}

// profilePosts lists a profile's newest posts: the first page from the
// profile endpoint, the rest through the timeline query; when the endpoint
// asks for a login, all of them through the query, the account's id read
// from its logged-out page.
func (s *scraper) profilePosts(ctx context.Context, j *scrapers.SerialJob, name string, want int) (*listCursor, error) {
	pg, err := s.profile(ctx, name)
	if isLoginWall(err) {
		prof, perr := s.profileFromPage(ctx, name, err)
		if perr != nil {
			return nil, perr
		}
		if prof.ID == "" {
			return nil, fmt.Errorf("%w; its logged-out profile page does not name the account's id, which its posts are asked by", err)
		}
		c, lerr := s.listPosts(ctx, j, prof.Username, prof.ID, position{}, nil, want)
		if lerr != nil && isLoginWall(lerr) {
			return nil, fmt.Errorf("Instagram asks a login for the posts of @%s: its profile API and its posts query both answered with a login wall (details reads the account itself from its logged-out page): %w", name, lerr)
		}
		return c, lerr
	}
	if err != nil {
		return nil, err
	}
	prof := pg.Profile
	if prof.Private && len(prof.RecentPosts) == 0 {
		return nil, fmt.Errorf("@%s is a private account; Instagram shows its posts only to approved followers", prof.Username)
	}
	first := &pageOf[Post]{Items: prof.RecentPosts, Cursor: pg.Cursor, More: pg.More && pg.Cursor != "" && prof.ID != ""}
	return s.listPosts(ctx, j, prof.Username, prof.ID, position{}, first, want)
}

// details runs the details tool: each profile's details with its recent
// posts, and each post or reel with its comments. With one post,
// next_cursor continues its comments.
func (s *scraper) details(ctx context.Context, call *scrapers.Call, a detailsArgs) error {
	posts := 0
	for _, t := range a.targets {
		if t.shortcode != "" {
			posts++
		}
	}
	var next string
	srcs := make([]scrapers.Source, len(a.targets))
	for i, t := range a.targets {
		srcs[i] = scrapers.Source{URL: t.name(), Read: func(ctx context.Context, j *scrapers.SerialJob) error {
			if t.username == "" {
				p, err := s.postWithComments(ctx, j, t, a.comments, a.cursor)
				if err != nil {
					return err
				}
				if posts == 1 {
					next = p.CommentsNextCursor
				}
				j.Add(p)
				return nil
			}
			pg, err := s.profile(ctx, t.username)
			if isLoginWall(err) {
				prof, perr := s.profileFromPage(ctx, t.username, err)
				if perr != nil {
					return perr
				}
				j.Add(prof)
				return nil
			}
			if err != nil {
				return err
			}
			j.Add(pg.Profile)
			return nil
		}}
	}
	err := scrapers.NewSerialJob(call, site.Name).Run(ctx, srcs)
	if next != "" {
		call.SetMeta("next_cursor", next)
	}
	return err
}

// postWithComments reads a post and want of its comments: from the first
// (the page's own, then through the pagination query), or from where cur
// says.
func (s *scraper) postWithComments(ctx context.Context, j *scrapers.SerialJob, t target, want int, cur *listCursor) (*Post, error) {
	pg, err := s.post(ctx, t)
	if err != nil {
		return nil, err
	}
	p := pg.Post
	if want == 0 {
		return p, nil
	}
	id := p.ID
	if i := strings.IndexByte(id, '_'); i > 0 {
		id = id[:i]
	}
	if !digitsRE.MatchString(id) {
		id, _ = mediaID(p.Shortcode)
	}
	start := position{}
	var first *pageOf[Comment]
	if cur != nil {
		start = position{After: cur.After, Skip: cur.Skip}
		id = cur.ID
	}
	if start.After == "" {
		first = &pageOf[Comment]{Items: pg.Comments, Cursor: pg.Cursor, More: pg.More && pg.Connection && id != ""}
	}
	seen := map[string]bool{}
	have, next, err := walk(ctx, want, start, first, func(ctx context.Context, after string, n int) (*pageOf[Comment], error) {
		cp, err := s.commentsAfter(ctx, p.Shortcode, id, after, pg.LSD, n)
		if err != nil {
			return nil, err
		}
		return &pageOf[Comment]{Items: cp.Comments, Cursor: cp.Cursor, More: cp.More}, nil
	}, func(c Comment) {
		if c.ID != "" && seen[c.ID] {
			return
		}
		seen[c.ID] = true
		p.Comments = append(p.Comments, c)
	})
	if next != nil && id != "" {
		p.CommentsNextCursor = listCursor{Kind: cursorComments, Key: p.Shortcode, ID: id, After: next.After, Skip: next.Skip}.String()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, scrapers.ContextError(ctx)
		}
		j.Call().MarkPartial(fmt.Sprintf("the comments of %s stopped at %d of %d: %v; comments_next_cursor continues them", p.URL, have, want, j.RateLimited(err)))
	}
	return p, nil
}
