package document

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func convertTest(t *testing.T, k Kind, body string, o Options) *Document {
	t.Helper()
	d, err := Convert(context.Background(), k, []byte(body), o)
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return d
}

func TestDetect(t *testing.T) {
	u := func(s string) *url.URL { p, _ := url.Parse(s); return p }
	for _, c := range []struct {
		mt, url, head string
		want          Kind
	}{
		{"application/pdf", "https://a.example/x", "", PDF},
		{"application/pdf; charset=binary", "https://a.example/x", "", PDF},
		{"text/markdown", "https://a.example/llms.txt", "", Markdown},
		{"text/plain", "https://a.example/llms.txt", "", Text},
		{"text/plain", "https://a.example/README.md", "", Markdown},
		{"text/plain", "https://a.example/data.csv", "", CSV},
		{"application/json", "https://a.example/api", "{}", JSON},
		{"application/vnd.api+json", "https://a.example/api", "{}", JSON},
		{"text/csv", "https://a.example/x", "", CSV},
		{"application/rss+xml", "https://a.example/feed", "", Feed},
		{"application/atom+xml", "https://a.example/feed", "", Feed},
		{"application/xml", "https://a.example/feed", `<?xml version="1.0"?><rss version="2.0">`, Feed},
		{"application/xml", "https://a.example/sitemap.xml", `<?xml version="1.0"?><urlset>`, ""},
		{"application/octet-stream", "https://a.example/paper.pdf", "", PDF},
		{"application/octet-stream", "https://a.example/download?id=3", "%PDF-1.7\n", PDF},
		{"application/octet-stream", "https://a.example/download", `{"a":1}`, JSON},
		{"", "https://a.example/download", "%PDF-1.4", PDF},
		{"", "https://a.example/", "<!doctype html><html>", ""},
		{"application/octet-stream", "https://a.example/blob", "\x89PNG\r\n", ""},
		{"text/html", "https://a.example/paper.pdf", "<html>", ""},
		{"image/png", "https://a.example/x.png", "", ""},
		{"application/zip", "https://a.example/x.zip", "", ""},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "https://a.example/x", "PK", Office},
		{"application/octet-stream", "https://a.example/report.docx", "PK", Office},
	} {
		if got := Detect(c.mt, u(c.url), []byte(c.head)); got != c.want {
			t.Errorf("Detect(%q, %q, %q) = %q, want %q", c.mt, c.url, c.head, got, c.want)
		}
	}
}

func TestOfficeDocumentsAreNamed(t *testing.T) {
	_, err := Convert(context.Background(), Office, []byte("PK\x03\x04"), Options{})
	if !errors.Is(err, ErrOffice) || !strings.Contains(err.Error(), "not converted") {
		t.Errorf("a DOCX: %v", err)
	}
}

func TestTextAndMarkdownAsTheyAre(t *testing.T) {
	md := "# llms.txt for Example\n\n> A summary.\n\n- [Docs](https://example.com/docs): the docs\n"
	d := convertTest(t, Markdown, md, Options{})
	if d.Markdown != md || d.Title != "llms.txt for Example" || d.Kind != Markdown {
		t.Errorf("Markdown: %q %q", d.Title, d.Markdown)
	}
	d = convertTest(t, Text, "caf\xe9 au lait", Options{ContentType: "text/plain; charset=iso-8859-1"})
	if d.Markdown != "café au lait" {
		t.Errorf("Latin-1 text: %q", d.Markdown)
	}
	d = convertTest(t, Text, strings.Repeat("é", 500), Options{MaxLength: 100})
	if n := len([]rune(d.Markdown)); n != 100 || d.Truncated[0] != "max_length: the Markdown was cut at 100 characters" {
		t.Errorf("a long text: %d characters, %q", n, d.Truncated)
	}
}

func TestJSONPrettyPrintedInAFence(t *testing.T) {
	d := convertTest(t, JSON, `{"name":"x","list":[1,2],"code":"a`+"```"+`b"}`, Options{})
	want := "````json\n{\n  \"name\": \"x\",\n  \"list\": [\n    1,\n    2\n  ],\n  \"code\": \"a```b\"\n}\n````\n"
	if d.Markdown != want {
		t.Errorf("JSON:\n%s\nwant\n%s", d.Markdown, want)
	}
	d = convertTest(t, JSON, `{"a": [`+strings.Repeat(`"xxxxxxxxxx",`, 100)+`"y"]}`, Options{MaxLength: 200})
	if n := len([]rune(d.Markdown)); n > 200 || !strings.HasSuffix(d.Markdown, "\n```\n") || len(d.Truncated) != 1 {
		t.Errorf("a cut JSON keeps its fence closed: %d %q %q", n, d.Markdown, d.Truncated)
	}
	d = convertTest(t, JSON, `{"a": 1,}`, Options{})
	if !strings.Contains(d.Markdown, `{"a": 1,}`) || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "not valid JSON") {
		t.Errorf("invalid JSON is shown as it came, said so: %q %q", d.Markdown, d.Notes)
	}
	_, err := Convert(context.Background(), JSON, []byte(strings.Repeat("[", 100000)), Options{})
	if !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep JSON: %v", err)
	}
}

func TestCSVAsATable(t *testing.T) {
	d := convertTest(t, CSV, "name;note\nAda;*first* | programmer\nAlan;\"line\nbreak\"\n", Options{})
	want := "| name | note |\n| --- | --- |\n| Ada | \\*first\\* \\| programmer |\n| Alan | line break |\n"
	if d.Markdown != want {
		t.Errorf("CSV:\n%s\nwant\n%s", d.Markdown, want)
	}
	if got := renderedText(d.Markdown); !strings.Contains(got, "*first* | programmer") {
		t.Errorf("a cell does not read back: %q", got)
	}
	var b strings.Builder
	b.WriteString("n\tsquare\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "%d\t%d\n", i, i*i)
	}
	d = convertTest(t, CSV, b.String(), Options{MaxRows: 10})
	if strings.Count(d.Markdown, "\n") != 12 || !strings.Contains(d.Markdown, "| 9 | 81 |") || d.Truncated[0] != "rows: only the first 10 of 50 rows are shown" {
		t.Errorf("capped rows: %q %q", d.Markdown, d.Truncated)
	}
}

func TestFeedAsEntries(t *testing.T) {
	atom := `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="fr"><title>Le blog</title>
<entry><title>Premier *article*</title><link href="https://blog.example/1"/><updated>2026-11-30T08:00:00Z</updated><summary>Un &lt;b&gt;résumé&lt;/b&gt;.</summary></entry>
<entry><title>Second</title><link href="javascript:alert(1)"/></entry></feed>`
	d := convertTest(t, Feed, atom, Options{})
	want := "# Le blog\n\n- [Premier \\*article\\*](https://blog.example/1) — 2026-11-30\n  Un résumé.\n- Second\n"
	if d.Title != "Le blog" || d.Language != "fr" || fmt.Sprint(d.Links) != "[https://blog.example/1]" {
		t.Errorf("feed: title %q language %q links %q", d.Title, d.Language, d.Links)
	}
	if d.Markdown != want {
		t.Errorf("feed:\n%s", d.Markdown)
	}
	_, err := Convert(context.Background(), Feed, []byte("<html>no feed</html>"), Options{})
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("not a feed: %v", err)
	}
}
