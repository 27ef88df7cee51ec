package reddit

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

func TestSourceURLs(t *testing.T) {
	for raw, want := range map[string]source{
		"https://www.reddit.com/r/golang/":                                    {kind: kindSubreddit, subreddit: "golang"},
		"https://old.reddit.com/r/golang/top/?t=week":                         {kind: kindSubreddit, subreddit: "golang", sort: "top", t: "week"},
		"https://reddit.com/r/golang/comments/1h0aaa1/title/c0001/":           {kind: kindComment, id: "1h0aaa1", comment: "c0001", context: 3},
		"https://www.reddit.com/comments/1h0aaa1/_/C0002/?context=0":          {kind: kindComment, id: "1h0aaa1", comment: "c0002"},
		"https://www.reddit.com/r/golang/comments/1h0aaa1/t/c0002?context=99": {kind: kindComment, id: "1h0aaa1", comment: "c0002", context: 8},
		"https://www.reddit.com/comments/1H0AAA1.json":                        {kind: kindPost, id: "1h0aaa1"},
		"https://redd.it/1h0aaa1":                                             {kind: kindPost, id: "1h0aaa1"},
		"https://www.reddit.com/user/gopher_anna/submitted/?sort=top":         {kind: kindUser, user: "gopher_anna", sort: "top"},
		"https://www.reddit.com/u/gopher_anna":                                {kind: kindUser, user: "gopher_anna"},
		"https://www.reddit.com/search/?q=go+generics&sort=bogus":             {kind: kindSearch, query: "go generics"},
		"https://www.reddit.com/r/golang/search/?q=x":                         {kind: kindSearch, query: "x", subreddit: "golang"},
		"https://www.reddit.com/r/golang/search/?q=x&restrict_sr=off":         {kind: kindSearch, query: "x"},
		"https://www.reddit.com/r/golang/s/AbCdEf":                            {kind: kindShare, subreddit: "golang"},
	} {
		got, err := parseSourceURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		got.url = ""
		if got != want {
			t.Errorf("%s: %+v, want %+v", raw, got, want)
		}
	}
	for _, raw := range []string{"ftp://reddit.com/r/x", "https://reddit.co/r/golang", "https://www.reddit.com/", "https://www.reddit.com/r/", "https://www.reddit.com/r/golang/wiki/",
		"https://www.reddit.com/search/", "https://redd.it/", "https://evilreddit.com/r/x", "https://www.reddit.com/r/golang/comments/",
		"https://www.reddit.com/r/golang/comments/1h0aaa1/t/c0002/?context=-1", "https://www.reddit.com/r/golang/comments/1h0aaa1/t/c0002/?context=all"} {
		if s, err := parseSourceURL(raw); err == nil {
			t.Errorf("%s: %+v, want an error", raw, s)
		}
	}
}

// FuzzScrapeArgs: any arguments decode to either an *ArgError or sources
// within the bounds.
func FuzzScrapeArgs(f *testing.F) {
	for _, s := range []string{
		`{"subreddits":["golang"]}`,
		`{"urls":["https://redd.it/abc","https://www.reddit.com/r/x/search/?q=y"],"sort":"top","time_filter":"day","max_items":100}`,
		`{"users":["u/x"],"search_queries":["q"],"max_comments":0,"max_comment_depth":10,"comment_sort":"qa","include_comments":true}`,
		`{"subreddits":["golang"],"sort":"relevance"}`,
		`{"urls":[1]}`, `[]`, `{"max_items":1e99}`,
		`{"urls":["https://www.reddit.com/r/golang/comments/1h0aaa1/t/c0002/?context=2"]}`,
		`{"subreddits":["golang"],"cursor":"eyJsIjoieCIsInQiOiJ0M19hYmMifQ"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a scrapeArgs
		err := scrapers.DecodeArgs(raw, &a)
		if err != nil {
			var ae *scrapers.ArgError
			if !errors.As(err, &ae) || ae.Arg == "" {
				t.Fatalf("error %v is not an argument error", err)
			}
			return
		}
		if a.cursor.Token != "" && (len(a.sources) != 1 || !fullnameRE.MatchString(a.cursor.Token)) {
			t.Fatalf("accepted cursor %+v for %d sources", a.cursor, len(a.sources))
		}
		if len(a.sources) == 0 || len(a.sources) > 4*maxSources || a.maxItems < 1 || a.maxItems > maxMaxItems ||
			a.maxComments < 0 || a.maxComments > maxMaxComments || a.maxDepth < 0 || a.maxDepth > maxMaxCommentDepth {
			b, _ := json.Marshal(a)
			t.Fatalf("accepted out of bounds: %s %+v", b, a)
		}
		for _, s := range a.sources {
			if s.kind == kindPost && !idRE.MatchString(s.id) || s.kind == kindSearch && s.query == "" ||
				s.kind == kindComment && (!idRE.MatchString(s.comment) || s.context < 0 || s.context > maxContext) {
				t.Fatalf("bad source %+v", s)
			}
		}
	})
}
