package document

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"
)

// maxSummary caps an entry's summary, in characters.
const maxSummary = 300

// convertFeed lists an RSS, Atom or JSON feed's entries with their links,
// dates and a short summary (its HTML read as text), newest as the feed
// orders them, at most MaxFeedEntries.
func convertFeed(body []byte, o Options) (*Document, error) {
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Kind: Feed, Reason: ErrDamaged, Detail: "not a feed gofeed reads: " + err.Error()}
	}
	d := &Document{Title: oneLine(f.Title), Language: languageTag(f.Language)}
	if len(f.Authors) > 0 && f.Authors[0] != nil {
		d.Author = oneLine(f.Authors[0].Name)
	}
	links := newLinkSet(MaxFeedEntries + 1)
	var b strings.Builder
	if d.Title != "" {
		b.WriteString("# " + escapeInline(d.Title) + "\n\n")
	}
	if desc := oneLine(htmlText(f.Description, maxSummary)); desc != "" {
		d.Description = desc
		b.WriteString(escapeLine(desc) + "\n\n")
	}
	items := f.Items
	if len(items) > MaxFeedEntries {
		d.Truncated = append(d.Truncated, fmt.Sprintf("entries: only the first %d of %d entries are listed", MaxFeedEntries, len(items)))
		items = items[:MaxFeedEntries]
	}
	if len(items) == 0 {
		d.Notes = append(d.Notes, "the feed has no entries")
	}
	for _, it := range items {
		if it == nil {
			continue
		}
		title := oneLine(it.Title)
		if title == "" {
			title = "(untitled)"
		}
		link := strings.TrimSpace(it.Link)
		links.add(link)
		if webLink(link) {
			fmt.Fprintf(&b, "- [%s](%s)", escapeInline(title), link)
		} else {
			b.WriteString("- " + escapeInline(title))
		}
		if t := it.PublishedParsed; t != nil {
			b.WriteString(" — " + t.UTC().Format(time.DateOnly))
		} else if t := it.UpdatedParsed; t != nil {
			b.WriteString(" — " + t.UTC().Format(time.DateOnly))
		}
		sum := it.Description
		if sum == "" {
			sum = it.Content
		}
		if s := oneLine(htmlText(sum, maxSummary)); s != "" && s != title {
			b.WriteString("\n  " + escapeInline(s))
		}
		b.WriteByte('\n')
	}
	d.Markdown = b.String()
	d.Links = links.list
	if d.Language == "" {
		d.Language = detectLanguage(d.Markdown)
	}
	if cut, ok := cutRunes(d.Markdown, o.MaxLength); ok {
		d.Markdown = cut
		d.Truncated = append(d.Truncated, cutMaxLength(o.MaxLength))
	}
	return d, nil
}

// webLink: an absolute http(s) URL that a Markdown link can hold as it is.
func webLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " <>()\n")
}

func oneLine(s string) string { return truncateString(strings.Join(strings.Fields(s), " "), 1000) }

// htmlText reads a fragment of HTML (a feed's summary) as text, at most max
// characters (and an ellipsis when cut).
func htmlText(s string, max int) string {
	if !strings.ContainsAny(s, "<&") {
		if c, ok := cutRunes(strings.Join(strings.Fields(s), " "), max); ok {
			return c + "…"
		}
		return s
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for b.Len() < max*4 {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			n, _ := z.TagName()
			switch string(n) {
			case "script", "style":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case "b", "i", "em", "strong", "a", "span", "code", "sup", "sub", "small", "u", "mark", "abbr", "q", "s":
				// inline: no space
			default:
				b.WriteByte(' ')
			}
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		}
	}
	t := strings.Join(strings.Fields(b.String()), " ")
	if c, ok := cutRunes(t, max); ok {
		return c + "…"
	}
	return t
}
