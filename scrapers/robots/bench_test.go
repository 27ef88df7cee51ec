package robots

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// bigRobots is a 500 KiB file of many plain and wildcard rules, as large
// sites write them.
func bigRobots() []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < DefaultMaxBytes-100; i++ {
		if i%4 == 0 {
			fmt.Fprintf(&b, "Disallow: /*/section%d/*.json$\n", i)
		} else {
			fmt.Fprintf(&b, "Disallow: /catalog/item-%d/\n", i)
		}
	}
	return []byte(b.String())
}

func BenchmarkParse500KiB(b *testing.B) {
	body := bigRobots()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Parse(body).For(DefaultAgent)
	}
}

// BenchmarkTest500KiB is one URL checked against the rules of a 500 KiB
// file (about 16,000 rules).
func BenchmarkTest500KiB(b *testing.B) {
	g := Parse(bigRobots()).For(DefaultAgent)
	b.Logf("%d rules", len(g.rules))
	for b.Loop() {
		g.Test("/catalog/item-999999/some/long/path/page.html?q=1&r=2")
	}
}

// BenchmarkTestHostile is one URL of 4,000 bytes checked against 500 KiB of
// rules of 2,000 stars each, whose ends match the URL so that every piece
// is looked for.
func BenchmarkTestHostile(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	for sb.Len() < DefaultMaxBytes-5000 {
		sb.WriteString("Disallow: /" + strings.Repeat("*a", 2000) + "*b\n")
	}
	g := Parse([]byte(sb.String())).For(DefaultAgent)
	path := "/" + strings.Repeat("a", 4000)
	b.Logf("%d rules", len(g.rules))
	for b.Loop() {
		g.Test(path)
	}
}

// BenchmarkCheckKept is a check whose robots.txt is already kept in the
// process: what every page of a crawl pays.
func BenchmarkCheckKept(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bigRobots())
	}))
	defer srv.Close()
	c := New(Config{})
	u, _ := url.Parse(srv.URL + "/catalog/item-999999/some/long/path/page.html?q=1&r=2")
	c.Check(context.Background(), u)
	b.ReportAllocs()
	for b.Loop() {
		c.Check(context.Background(), u)
	}
}
