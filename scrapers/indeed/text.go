package indeed

import (
	"strings"

	"golang.org/x/net/html"
)

// blockTags start a new paragraph in text; listItem starts a bullet.
var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "ul": true, "ol": true, "table": true, "tr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "blockquote": true, "pre": true,
	"header": true, "footer": true, "dl": true, "dt": true, "dd": true, "hr": true,
}

// htmlToText turns a job description's HTML into plain text: paragraphs and
// line breaks kept, list items as "• " lines, entities decoded, scripts and
// styles dropped, runs of spaces folded.
func htmlToText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return tidyText(s)
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return tidyText(b.String())
		case html.TextToken:
			if skip == 0 {
				b.WriteString(foldSpaces(string(z.Text())))
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			switch {
			case tag == "script" || tag == "style" || tag == "noscript":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case tag == "br":
				b.WriteString("\n")
			case tag == "li":
				if tt == html.StartTagToken {
					b.WriteString("\n• ")
				}
			case blockTags[tag]:
				b.WriteString("\n\n")
			case tag == "td" || tag == "th":
				b.WriteString(" ")
			}
		}
	}
}

// foldSpaces turns every run of white space into one space, as HTML shows it.
func foldSpaces(s string) string {
	if !strings.ContainsAny(s, " \t\n\r\f") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\f':
			space = true
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// tidyText folds the spaces of every line, keeps at most one blank line
// between paragraphs (none between bullets), and joins a bullet left alone
// on its line (<li><p>…) to the text after it.
func tidyText(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank, bullet := false, false
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ") // also turns &nbsp; into a space
		switch {
		case l == "•":
			bullet = true
			continue
		case l == "":
			if len(out) > 0 {
				blank = true
			}
			continue
		}
		if bullet && !strings.HasPrefix(l, "• ") {
			l = "• " + l
		}
		if blank && !(strings.HasPrefix(l, "• ") && strings.HasPrefix(out[len(out)-1], "• ")) {
			out = append(out, "")
		}
		blank, bullet = false, false
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
