package webcrawl

import (
	"net/url"
	"strings"
	"testing"
)

func TestKindOf(t *testing.T) {
	kindName := map[pageKind]string{kindOther: "kindOther", kindArticle: "kindArticle", kindProduct: "kindProduct", kindForum: "kindForum"}
	ld := func(types string) string {
		return `{"@context":"https://schema.org","@graph":[` + types + `]}`
	}
	for _, c := range []struct {
		name   string
		jsonLD string
		ogType string
		url    string
		want   pageKind
	}{
		// What the page says of itself in JSON-LD.
		{"an article naming products is an article (a review)", ld(`{"@type":"NewsArticle","headline":"The best headphones"},{"@type":"Product","name":"Headphones X"}`), "", "https://news.example/best-headphones", kindArticle},
		{"a product alone is a product", `{"@type":"Product","name":"Headphones X"}`, "", "https://shop.example/headphones-x", kindProduct},
		{"og:type product is a product", "", "product", "https://shop.example/headphones-x", kindProduct},
		{"an article with an item list is an article (a buying guide)", `{"@type":["NewsArticle","ItemList"]}`, "", "https://news.example/guide", kindArticle},
		{"an item list alone is a listing", `{"@type":"ItemList","itemListElement":[]}`, "", "https://shop.example/c/headphones", kindOther},
		{"DiscussionForumPosting is a forum thread", `{"@type":"DiscussionForumPosting","headline":"My amp hums"}`, "", "https://example.com/amp-hums", kindForum},
		{"QAPage is a forum thread", `{"@type":"QAPage","mainEntity":{"@type":"Question"}}`, "", "https://example.com/q", kindForum},

		// A page that says nothing of itself: its address.
		{"a Discourse thread's address", "", "", "https://forum.example.org/t/some-slug/123", kindForum},
		{"a forum. host is all threads", "", "", "https://forum.example.org/amplifier-hums", kindForum},
		{"/topic/ with a number is a thread", "", "", "https://example.com/topic/123-amplifier-hums", kindForum},
		{"/topic/ without a number is a tag page", "", "", "https://example.com/topic/headphones", kindOther},
		{"phpBB's viewtopic.php", "", "", "https://example.com/viewtopic.php?t=5", kindForum},
		{"a Hacker News item", "", "", "https://news.ycombinator.com/item?id=1", kindForum},
		{"Hacker News' job list is not a thread", "", "", "https://news.ycombinator.com/jobs", kindOther},
		{"a shop's /products/<name>", "", "", "https://shop.example/products/blue-shirt", kindProduct},
		{"a shop's /products/ alone is not a product", "", "", "https://shop.example/products/", kindOther},
		{"Amazon's /dp/<id>", "", "", "https://www.amazon.example/Some-Headphones/dp/B000123", kindProduct},
		{"a date in the path is an article", "", "", "https://blog.example.de/2015/06/through-booking-glass.html", kindArticle},
		{"a year-month segment is an article", "", "", "http://www.xinhua.example/local/2020-02/19/c_1125597921.htm", kindArticle},
		{"a news folder with a name is an article", "", "", "https://www.lbv.example/news/details/lebenszeichen-von-bavaria/", kindArticle},
		{"an /aktuelles/ folder with a name is an article", "", "", "https://verband.example/aktuelles/08112021-online-fachtag", kindArticle},
		{"a news folder alone is not an article", "", "", "https://example.com/news/", kindOther},
		{"a number that is no year is not a date", "", "", "https://shop.example/1234/05/widget", kindOther},
		{"a service page says nothing", "", "", "https://firm.example/services/tax-advice", kindOther},
		{"a thread's address beats a date", "", "", "https://forum.example.org/2020/05/amp-hums", kindForum},

		// og:type article beats a thread's address.
		{"og:type article at a forum address is an article", "", "article", "https://forum.example.org/t/some-slug/123", kindArticle},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			got := kindOf(pageMeta{jsonLD: c.jsonLD, ogType: c.ogType}, u)
			if got != c.want {
				t.Errorf("kindOf(jsonLD %q, og:type %q, %s) = %s, want %s", c.jsonLD, c.ogType, c.url, kindName[got], kindName[c.want])
			}
		})
	}
}

// A page whose microdata names a forum post (NodeBB: itemtype
// DiscussionForumPosting) is a thread, whatever its og:type says.
func TestKindFromMicrodata(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"><title>RC1</title></head><body>
<div itemscope itemtype="https://schema.org/DiscussionForumPosting"><h1 itemprop="headline">RC1</h1><p>Text.</p></div></body></html>`
	u, _ := url.Parse("https://community.example.org/topic/18427/rc1")
	sc := scan([]byte(page), u, Limits{})
	if got := kindOf(sc.meta, u); got != kindForum {
		t.Errorf("kindOf = %d, want kindForum (%d)", got, kindForum)
	}
	sc = scan([]byte(strings.Replace(page, "DiscussionForumPosting", "Article", 1)), u, Limits{})
	if got := kindOf(sc.meta, u); got != kindArticle {
		t.Errorf("with itemtype Article, kindOf = %d, want kindArticle (%d)", got, kindArticle)
	}
}
