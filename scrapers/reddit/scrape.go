package reddit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// maxListPages bounds the pages read of one listing.
const maxListPages = 10

type scraper struct {
	f    *scrapers.Fetcher
	sess session
}

// run is one call: its arguments and how many threads it has read.
type run struct {
	s       *scraper
	a       scrapeArgs
	threads int
}

// scrape runs the scrape tool: each source in turn.
func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	ru := &run{s: s, a: a}
	sources := make([]scrapers.Source, len(a.sources))
	for i, src := range a.sources {
		sources[i] = scrapers.Source{URL: src.name(), Read: func(ctx context.Context, j *scrapers.SerialJob) error {
			return ru.read(ctx, j, src)
		}}
	}
	return scrapers.NewSerialJob(call, site.Name).Run(ctx, sources)
}

// name is how a source is named in failures and items' source.
func (src source) name() string {
	switch src.kind {
	case kindSubreddit:
		return origin + "/r/" + src.subreddit + "/"
	case kindUser:
		return origin + "/user/" + src.user + "/"
	case kindSearch:
		q := url.Values{"q": {src.query}}
		if src.subreddit != "" {
			q.Set("restrict_sr", "1")
			return origin + "/r/" + src.subreddit + "/search/?" + q.Encode()
		}
		return origin + "/search/?" + q.Encode()
	case kindPost:
		return origin + "/comments/" + src.id + "/"
	case kindComment:
		return origin + "/comments/" + src.id + "/_/" + src.comment + "/"
	}
	return src.url
}

func (ru *run) read(ctx context.Context, j *scrapers.SerialJob, src source) error {
	a := ru.a
	switch src.kind {
	case kindSubreddit:
		sort := firstOf(src.sort, a.Sort, "hot")
		q := url.Values{}
		ru.timeFilter(q, src, sort)
		return ru.list(ctx, j, "/r/"+url.PathEscape(src.subreddit)+"/"+sort+".json", q, src, "")
	case kindUser:
		sort := firstOf(src.sort, a.Sort, "new")
		q := url.Values{"sort": {sort}}
		ru.timeFilter(q, src, sort)
		path := "/user/" + url.PathEscape(src.user) + "/submitted.json"
		if a.cursor.Token != "" {
			// A later page of the user's posts: the account was returned
			// with the first.
			return ru.list(ctx, j, path, q, src, "")
		}
		about, err := ru.s.getJSON(ctx, "/user/"+url.PathEscape(src.user)+"/about.json", url.Values{})
		if err != nil {
			return err
		}
		u, err := parseUser(about.Body)
		if err != nil {
			return err
		}
		j.Add(u)
		if u.Suspended {
			return nil
		}
		return ru.list(ctx, j, path, q, src, "")
	case kindSearch:
		sort := firstOf(src.sort, a.Sort, "relevance")
		q := url.Values{"q": {src.query}, "sort": {sort}, "type": {"link"}}
		ru.timeFilter(q, src, "top")
		path := "/search.json"
		if src.subreddit != "" {
			path = "/r/" + url.PathEscape(src.subreddit) + "/search.json"
			q.Set("restrict_sr", "1")
		}
		return ru.list(ctx, j, path, q, src, src.query)
	case kindPost:
		p, err := ru.thread(ctx, src.id)
		if err != nil {
			return err
		}
		j.Add(p)
		j.Call().Progress("read post "+p.ID, 1, 1)
		return nil
	case kindComment:
		t, err := ru.commentThread(ctx, src)
		if err != nil {
			return err
		}
		j.Add(t)
		j.Call().Progress("read the thread of comment "+t.CommentID, 1, 1)
		return nil
	case kindShare:
		to, err := ru.s.resolveShare(ctx, src.url)
		if err != nil {
			return err
		}
		if to.kind == kindComment {
			t, err := ru.commentThread(ctx, to)
			if err != nil {
				return err
			}
			j.Add(t)
			return nil
		}
		p, err := ru.thread(ctx, to.id)
		if err != nil {
			return err
		}
		j.Add(p)
		return nil
	}
	return fmt.Errorf("unknown source %q", src.url)
}

// timeFilter sets t for the orders that take it: the URL's own, else
// time_filter.
func (ru *run) timeFilter(q url.Values, src source, sort string) {
	t := firstOf(src.t, ru.a.TimeFilter)
	if t != "" && (sort == "top" || sort == "controversial" || src.kind == kindSearch) {
		q.Set("t", t)
	}
}

// list pages through a listing with after until max_items posts are added,
// the listing ends, or maxListPages pages were read. It starts where the
// cursor argument says, and sets next_cursor when the call read this one
// listing and it has more.
func (ru *run) list(ctx context.Context, j *scrapers.SerialJob, path string, q url.Values, src source, query string) error {
	max := ru.a.maxItems
	seen := map[string]bool{}
	have, after, done := 0, "", 0
	if c := ru.a.cursor; c.Token != "" {
		after, done = c.Token, c.Done
	}
	// next is where the listing goes on: after the last post returned
	// (until a page is read, where this call began).
	next := scrapers.Cursor{Listing: ru.a.listingKey(src), Token: after, Done: done}
	defer func() {
		if len(ru.a.sources) == 1 {
			j.Call().SetNextCursor(next)
		}
	}()
	for page := 0; page < maxListPages && have < max; page++ {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		q.Set("limit", strconv.Itoa(min(100, max-have)))
		if after != "" {
			q.Set("after", after)
			q.Set("count", strconv.Itoa(done))
		}
		resp, err := ru.s.getJSON(ctx, path, q)
		if err != nil {
			return err
		}
		l, err := parseListing(resp.Body)
		if err != nil {
			return err
		}
		fresh, last, inside := 0, "", false
		for _, p := range l.Posts {
			if have >= max {
				// Posts of this page are left: the listing goes on after
				// the last one returned.
				next.Token, next.Done, inside = last, done, true
				break
			}
			last = "t3_" + p.ID
			done++
			if seen[p.ID] {
				continue
			}
			seen[p.ID] = true
			p.Source, p.SearchQuery = src.name(), query
			if ru.a.IncludeComments && ru.a.maxComments > 0 {
				if err := ru.withComments(ctx, j, &p); err != nil {
					return err
				}
			}
			j.Add(p)
			have++
			fresh++
		}
		j.Call().Progress(fmt.Sprintf("listed %d posts of %s", have, src.name()), have, max)
		if inside {
			return nil
		}
		if l.After == "" || l.After == after {
			next.Token = "" // the listing ended
			return nil
		}
		next.Token, next.Done = l.After, done
		if fresh == 0 {
			return nil
		}
		after = l.After
	}
	if have < max {
		j.Call().MarkPartial(fmt.Sprintf("Reddit listed only %d of %d posts of %s in %d pages", have, max, src.name(), maxListPages))
	}
	return nil
}

// commentThread reads a comment's permalink: the post and the comment's
// thread, its context levels above it and its replies within the bounds.
func (ru *run) commentThread(ctx context.Context, src source) (*Thread, error) {
	ru.threads++
	a := ru.a
	q := url.Values{
		"comment": {src.comment},
		"context": {strconv.Itoa(src.context)},
		"sort":    {commentSortParam(firstOf(a.CommentSort, "best"))},
		"limit":   {strconv.Itoa(max(a.maxComments, 1))},
		// depth counts from the thread's root, the highest context level.
		"depth": {strconv.Itoa(src.context + a.maxDepth + 1)},
	}
	resp, err := ru.s.getJSON(ctx, "/comments/"+src.id+".json", q)
	if err != nil {
		return nil, err
	}
	t, err := parseCommentThread(resp.Body, src.comment, commentBounds{Max: a.maxComments, MaxDepth: a.maxDepth})
	if err != nil {
		return nil, err
	}
	t.Context = src.context
	if t.URL == "" {
		t.URL = src.name()
	}
	return t, nil
}

// withComments fills a listed post's comments from its thread, while the
// call's thread budget lasts. A thread that cannot be read leaves the post
// without comments, said in the result; a block stops the call.
func (ru *run) withComments(ctx context.Context, j *scrapers.SerialJob, p *Post) error {
	if ru.threads >= maxThreads {
		j.Call().MarkPartial(fmt.Sprintf("comments were read for the first %d posts only (include_comments reads at most %d threads per call)", maxThreads, maxThreads))
		return nil
	}
	t, err := ru.thread(ctx, p.ID)
	if err != nil {
		var be *scrapers.BlockedError
		if ctx.Err() != nil || errors.As(j.RateLimited(err), &be) {
			return j.RateLimited(err)
		}
		j.Call().MarkPartial(fmt.Sprintf("the comments of %s could not be read: %v", p.URL, err))
		return nil
	}
	p.Comments, p.MoreComments = t.Comments, t.MoreComments
	j.Call().Progress(fmt.Sprintf("read the comments of %d posts", ru.threads), ru.threads, 0)
	return nil
}

// thread reads a post and its comments.
func (ru *run) thread(ctx context.Context, id string) (*Post, error) {
	ru.threads++
	a := ru.a
	q := url.Values{"sort": {commentSortParam(firstOf(a.CommentSort, "best"))}}
	if a.maxComments > 0 {
		q.Set("limit", strconv.Itoa(a.maxComments))
		q.Set("depth", strconv.Itoa(a.maxDepth+1))
	} else {
		q.Set("limit", "1")
		q.Set("depth", "1")
	}
	resp, err := ru.s.getJSON(ctx, "/comments/"+id+".json", q)
	if err != nil {
		return nil, err
	}
	return parseThread(resp.Body, commentBounds{Max: a.maxComments, MaxDepth: a.maxDepth})
}

// commentSortParam is Reddit's name of a comment order.
func commentSortParam(s string) string {
	if s == "best" {
		return "confidence"
	}
	return s
}

// getJSON fetches one of Reddit's .json endpoints as its web client does:
// with raw_json=1 (no HTML escaping) and the session's anonymous cookies.
// Reddit's JSON error answers (a private subreddit) become an *apiError.
func (s *scraper) getJSON(ctx context.Context, path string, q url.Values) (*scrapers.Response, error) {
	cookie, err := s.sess.header(ctx, s.f)
	if err != nil {
		return nil, err
	}
	q.Set("raw_json", "1")
	req := &scrapers.Request{URL: origin + path + "?" + q.Encode(), Header: http.Header{"Accept": {"application/json, text/plain, */*"}}}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := s.f.Do(ctx, req)
	if err != nil {
		var be *scrapers.BlockedError
		if errors.As(err, &be) {
			s.sess.reset()
			return nil, err
		}
		var se *scrapers.SiteError
		if errors.As(err, &se) && resp != nil && se.Status != http.StatusTooManyRequests {
			var ae *apiError
			if _, derr := decode(resp.Body); errors.As(derr, &ae) {
				return nil, ae
			}
		}
		return nil, err
	}
	return resp, nil
}

// resolveShare follows a share link (/r/<sub>/s/<code>) to the post or
// comment it stands for.
func (s *scraper) resolveShare(ctx context.Context, link string) (source, error) {
	resp, err := s.f.Get(ctx, link)
	if err != nil {
		return source{}, err
	}
	if resp.URL != nil {
		to := origin + resp.URL.EscapedPath()
		if c := resp.URL.Query().Get("context"); c != "" {
			to += "?" + url.Values{"context": {c}}.Encode()
		}
		if src, err := parseSourceURL(to); err == nil && (src.kind == kindPost || src.kind == kindComment) {
			return src, nil
		}
	}
	return source{}, fmt.Errorf("the share link %s did not lead to a post or comment", link)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
