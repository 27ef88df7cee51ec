package reddit

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the scrape tool's arguments.
const (
	maxSources             = 20
	defaultMaxItems        = 10
	maxMaxItems            = 100
	defaultMaxComments     = 20
	maxMaxComments         = 500
	defaultMaxCommentDepth = 3
	maxMaxCommentDepth     = 10
	maxQueryLen            = 512
	// maxThreads bounds the comment threads one call reads for listed
	// posts (include_comments); the rest are returned without comments.
	maxThreads = 100
)

// The orders Reddit's listings take, and its searches.
var (
	listingSorts  = []string{"hot", "new", "top", "rising", "controversial"}
	userSorts     = []string{"new", "hot", "top", "controversial"}
	searchSorts   = []string{"relevance", "hot", "top", "new", "comments"}
	allSorts      = []string{"hot", "new", "top", "rising", "controversial", "relevance", "comments"}
	timeFilters   = []string{"hour", "day", "week", "month", "year", "all"}
	commentSorts  = []string{"best", "top", "new", "controversial", "old", "qa"}
	subredditRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_]{1,20}$`)
	usernameRE    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,20}$`)
	idRE          = regexp.MustCompile(`^[a-z0-9]{1,13}$`)
	redditHostRE  = regexp.MustCompile(`^(?:[a-z0-9-]+\.)?reddit\.com$`)
	shortHostRE   = regexp.MustCompile(`^(?:www\.)?redd\.it$`)
	timeFilterArg = "time_filter"
)

// scrapeArgs are the arguments of the scrape tool.
type scrapeArgs struct {
	URLs            []string `json:"urls,omitempty" jsonschema:"Reddit URLs (at most 20): subreddits (https://www.reddit.com/r/golang/, /r/golang/top/), posts (https://www.reddit.com/r/golang/comments/abc123/title/, https://redd.it/abc123), comments (https://www.reddit.com/r/golang/comments/abc123/title/def456/, ?context=0-8 parent levels, default 3), users (https://www.reddit.com/user/name/) or searches (https://www.reddit.com/search/?q=go, /r/golang/search/?q=generics)"`
	Subreddits      []string `json:"subreddits,omitempty" jsonschema:"subreddit names, with or without r/ (at most 20)"`
	Users           []string `json:"users,omitempty" jsonschema:"Reddit usernames, with or without u/ (at most 20): their profile and posts"`
	SearchQueries   []string `json:"search_queries,omitempty" jsonschema:"searches of all of Reddit's posts (at most 20)"`
	Sort            string   `json:"sort,omitempty" jsonschema:"order of the posts: hot (subreddits' default), new (users' default), top, rising, controversial; searches take relevance (their default), hot, top, new or comments"`
	TimeFilter      string   `json:"time_filter,omitempty" jsonschema:"time window of top and controversial listings and of searches: hour, day, week, month, year or all"`
	MaxItems        *int     `json:"max_items,omitempty" jsonschema:"posts to return per subreddit, user or search (1-100, default 10)"`
	IncludeComments bool     `json:"include_comments,omitempty" jsonschema:"also read the comments of listed posts (post URLs always get theirs); at most 100 posts per call"`
	MaxComments     *int     `json:"max_comments,omitempty" jsonschema:"comments to return per post, across the whole thread (0-500, default 20)"`
	MaxCommentDepth *int     `json:"max_comment_depth,omitempty" jsonschema:"deepest reply level kept: 0 is top-level comments only (0-10, default 3)"`
	CommentSort     string   `json:"comment_sort,omitempty" jsonschema:"order of comments: best (default), top, new, controversial, old or qa"`
	Cursor          string   `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous answer, to read the next posts of its one subreddit, user or search (give the same source, sort and time_filter)"`

	// Filled by Validate.
	maxItems, maxComments, maxDepth int
	sources                         []source
	cursor                          scrapers.Cursor
}

// sourceKind is what one source is.
type sourceKind int

const (
	kindSubreddit sourceKind = iota
	kindUser
	kindSearch
	kindPost
	kindShare   // a /r/<sub>/s/<code> share link, resolved by fetching it
	kindComment // a comment's permalink: its thread with context
)

// Bounds of a comment permalink's context (Reddit's own: 0 to 8 parent
// levels), and the levels shown when the link does not say (as Reddit's
// "see full context" links do).
const (
	maxContext     = 8
	defaultContext = 3
)

// source is one thing to read.
type source struct {
	kind      sourceKind
	subreddit string // kindSubreddit; kindSearch within a subreddit
	user      string // kindUser
	query     string // kindSearch
	id        string // kindPost, kindComment: the post's id
	comment   string // kindComment: the comment's id
	context   int    // kindComment: parent levels shown above the comment
	sort      string // from the URL's path or query; else the sort argument
	t         string // from the URL's query; else time_filter
	url       string // as given (kindShare: the link)
}

// Validate checks the arguments and turns them into sources.
func (a *scrapeArgs) Validate() error {
	lists := []struct {
		name string
		v    []string
	}{{"urls", a.URLs}, {"subreddits", a.Subreddits}, {"users", a.Users}, {"search_queries", a.SearchQueries}}
	for _, l := range lists {
		if err := scrapers.ListLen(l.name, l.v, 0, maxSources); err != nil {
			return err
		}
	}
	if len(a.URLs)+len(a.Subreddits)+len(a.Users)+len(a.SearchQueries) == 0 {
		return scrapers.Argf("urls", "give at least one of urls, subreddits, users or search_queries")
	}
	var err error
	if a.maxItems, err = scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems); err != nil {
		return err
	}
	if a.maxComments, err = scrapers.IntArg("max_comments", a.MaxComments, 0, maxMaxComments, defaultMaxComments); err != nil {
		return err
	}
	if a.maxDepth, err = scrapers.IntArg("max_comment_depth", a.MaxCommentDepth, 0, maxMaxCommentDepth, defaultMaxCommentDepth); err != nil {
		return err
	}
	if a.Sort != "" && !slices.Contains(allSorts, a.Sort) {
		return scrapers.Argf("sort", "must be one of %s, got %q", strings.Join(allSorts, ", "), a.Sort)
	}
	if a.TimeFilter != "" && !slices.Contains(timeFilters, a.TimeFilter) {
		return scrapers.Argf(timeFilterArg, "must be one of %s, got %q", strings.Join(timeFilters, ", "), a.TimeFilter)
	}
	if a.CommentSort != "" && !slices.Contains(commentSorts, a.CommentSort) {
		return scrapers.Argf("comment_sort", "must be one of %s, got %q", strings.Join(commentSorts, ", "), a.CommentSort)
	}
	for i, raw := range a.URLs {
		s, err := parseSourceURL(raw)
		if err != nil {
			return scrapers.Argf("urls", "entry %d (%q) %v", i, raw, err)
		}
		a.sources = append(a.sources, s)
	}
	for i, raw := range a.Subreddits {
		name := trimPrefixes(raw, "/", "r/")
		if !subredditRE.MatchString(name) {
			return scrapers.Argf("subreddits", "entry %d (%q) is not a subreddit name (2-21 letters, digits or _)", i, raw)
		}
		a.sources = append(a.sources, source{kind: kindSubreddit, subreddit: name})
	}
	for i, raw := range a.Users {
		name := trimPrefixes(raw, "/", "u/", "user/")
		if !usernameRE.MatchString(name) {
			return scrapers.Argf("users", "entry %d (%q) is not a Reddit username (up to 20 letters, digits, _ or -)", i, raw)
		}
		a.sources = append(a.sources, source{kind: kindUser, user: name})
	}
	for i, q := range a.SearchQueries {
		q = strings.TrimSpace(q)
		if utf8.RuneCountInString(q) > maxQueryLen || strings.ContainsFunc(q, isControl) {
			return scrapers.Argf("search_queries", "entry %d is longer than %d characters or holds control characters", i, maxQueryLen)
		}
		a.sources = append(a.sources, source{kind: kindSearch, query: q})
	}
	if a.Cursor != "" {
		if len(a.sources) != 1 || !isListing(a.sources[0].kind) {
			return scrapers.Argf(scrapers.CursorArg, "continues one listing: give it with exactly one subreddit, user or search and nothing else, as in the call that returned it")
		}
		c, err := scrapers.ParseCursor(a.Cursor, a.listingKey(a.sources[0]))
		if err != nil {
			return err
		}
		if !fullnameRE.MatchString(c.Token) {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.cursor = c
	}
	// A sort given must suit every source it applies to.
	if a.Sort != "" {
		for _, s := range a.sources {
			if s.sort != "" {
				continue // the URL says its own
			}
			if allowed := sortsFor(s.kind); allowed != nil && !slices.Contains(allowed, a.Sort) {
				return scrapers.Argf("sort", "%s does not apply to %s, which take %s", a.Sort, kindName(s.kind), strings.Join(allowed, ", "))
			}
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// isListing reports whether a kind of source is a listing of posts, paged
// with after.
func isListing(k sourceKind) bool { return k == kindSubreddit || k == kindUser || k == kindSearch }

// fullnameRE is a post's fullname, as Reddit's after takes it.
var fullnameRE = regexp.MustCompile(`^t3_[a-z0-9]{1,13}$`)

// listingKey names a listing source with the order and window it is read
// in, for its cursors: a cursor is refused for another listing.
func (a *scrapeArgs) listingKey(src source) string {
	def := map[sourceKind]string{kindSubreddit: "hot", kindUser: "new", kindSearch: "relevance"}[src.kind]
	sort := firstOf(src.sort, a.Sort, def) // the order read, its default spelled out or not
	t := firstOf(src.t, a.TimeFilter)
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%s\x00%s", src.kind, strings.ToLower(src.subreddit), strings.ToLower(src.user), src.query, sort, t)
}

// sortsFor is the orders a kind of source takes; nil when it takes none.
func sortsFor(k sourceKind) []string {
	switch k {
	case kindSubreddit:
		return listingSorts
	case kindUser:
		return userSorts
	case kindSearch:
		return searchSorts
	}
	return nil
}

func kindName(k sourceKind) string {
	switch k {
	case kindSubreddit:
		return "subreddits"
	case kindUser:
		return "users' posts"
	case kindSearch:
		return "searches"
	}
	return "posts"
}

// trimPrefixes drops surrounding space and then each prefix in turn, case
// aside ("/r/golang" → "golang").
func trimPrefixes(s string, prefixes ...string) string {
	s = strings.TrimSpace(s)
	for _, p := range prefixes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = s[len(p):]
		}
	}
	return strings.TrimSuffix(s, "/")
}

// parseSourceURL reads a Reddit URL into a source; the error completes
// "entry N (…) ".
func parseSourceURL(raw string) (source, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return source{}, fmt.Errorf("is not an http(s) URL")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	var segs []string
	for _, s := range strings.Split(strings.TrimSuffix(u.Path, ".json"), "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	q := u.Query()
	s := source{url: u.String(), t: q.Get("t"), sort: q.Get("sort")}
	if s.t != "" && !slices.Contains(timeFilters, s.t) {
		s.t = ""
	}
	bad := fmt.Errorf("is not a subreddit, post, user or search URL on reddit.com (e.g. https://www.reddit.com/r/golang/, /r/golang/comments/<id>/…, /user/<name>/, /search/?q=…)")
	switch {
	case shortHostRE.MatchString(host):
		if len(segs) == 1 && idRE.MatchString(strings.ToLower(segs[0])) {
			return source{kind: kindPost, id: strings.ToLower(segs[0]), url: s.url}, nil
		}
		return source{}, bad
	case !redditHostRE.MatchString(host):
		return source{}, fmt.Errorf("is not a Reddit URL (reddit.com, www., old. or new.reddit.com, redd.it)")
	}
	lower := func(i int) string {
		if i < len(segs) {
			return strings.ToLower(segs[i])
		}
		return ""
	}
	switch lower(0) {
	case "r":
		if len(segs) < 2 || !subredditRE.MatchString(segs[1]) {
			return source{}, bad
		}
		s.subreddit = segs[1]
		switch lower(2) {
		case "":
			s.kind = kindSubreddit
			s.sort = validOr(s.sort, listingSorts)
		case "comments":
			return postSource(segs[3:], s.url, bad)
		case "search":
			s.kind, s.query = kindSearch, strings.TrimSpace(q.Get("q"))
			s.sort = validOr(s.sort, searchSorts)
			if s.query == "" {
				return source{}, fmt.Errorf("is a search URL without a query (?q=…)")
			}
			// Reddit's search box on a subreddit page searches that
			// subreddit; a URL saying restrict_sr=off searches all of it.
			if v := strings.ToLower(q.Get("restrict_sr")); q.Has("restrict_sr") && (v == "" || v == "0" || v == "off" || v == "false") {
				s.subreddit = ""
			}
		case "s":
			if len(segs) < 4 {
				return source{}, bad
			}
			s.kind = kindShare
		default:
			if !slices.Contains(listingSorts, lower(2)) {
				return source{}, bad
			}
			s.kind, s.sort = kindSubreddit, lower(2)
		}
		return s, nil
	case "comments":
		return postSource(segs[1:], s.url, bad)
	case "user", "u":
		if len(segs) < 2 || !usernameRE.MatchString(segs[1]) {
			return source{}, bad
		}
		s.kind, s.user = kindUser, segs[1]
		s.sort = validOr(s.sort, userSorts)
		return s, nil
	case "search":
		s.kind, s.query = kindSearch, strings.TrimSpace(q.Get("q"))
		s.sort = validOr(s.sort, searchSorts)
		if s.query == "" {
			return source{}, fmt.Errorf("is a search URL without a query (?q=…)")
		}
		return s, nil
	}
	return source{}, bad
}

// postSource reads the <id>[/<slug>[/<comment id>]] after /comments/: a
// post, or one comment's permalink (its context levels from ?context=).
func postSource(rest []string, raw string, bad error) (source, error) {
	if len(rest) == 0 || !idRE.MatchString(strings.ToLower(rest[0])) {
		return source{}, bad
	}
	s := source{kind: kindPost, id: strings.ToLower(rest[0]), url: raw}
	if len(rest) >= 3 && idRE.MatchString(strings.ToLower(rest[2])) {
		s.kind, s.comment, s.context = kindComment, strings.ToLower(rest[2]), defaultContext
		if u, err := url.Parse(raw); err == nil && u.Query().Has("context") {
			n, err := strconv.Atoi(u.Query().Get("context"))
			if err != nil || n < 0 {
				return source{}, fmt.Errorf("has a context that is not a number of parent levels (0-%d)", maxContext)
			}
			s.context = min(n, maxContext)
		}
	}
	return s, nil
}

// validOr returns s when it is one of allowed, else "".
func validOr(s string, allowed []string) string {
	if slices.Contains(allowed, s) {
		return s
	}
	return ""
}

// scrapeSchema adds limits, choices and defaults to the inferred schema.
func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "subreddits", "users", "search_queries")
	scrapers.IntRange(s, "max_items", 1, maxMaxItems, defaultMaxItems)
	scrapers.IntRange(s, "max_comments", 0, maxMaxComments, defaultMaxComments)
	scrapers.IntRange(s, "max_comment_depth", 0, maxMaxCommentDepth, defaultMaxCommentDepth)
	if p := s.Properties["sort"]; p != nil {
		p.Enum = toAny(allSorts)
	}
	if p := s.Properties[timeFilterArg]; p != nil {
		p.Enum = toAny(timeFilters)
	}
	scrapers.Choice(s, "comment_sort", commentSorts...)
	scrapers.SetDefault(s, "include_comments", false)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
