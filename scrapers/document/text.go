package document

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// convertText gives Markdown and plain text as they are (in UTF-8): an
// llms.txt or a README is already what an agent reads best. Plain text is
// not escaped: it is shown as the server sent it.
func convertText(k Kind, body []byte, o Options) (*Document, error) {
	s := toUTF8(body, o.ContentType)
	d := &Document{Markdown: s}
	if k == Markdown {
		d.Title = markdownTitle(s)
	}
	d.Language = detectLanguage(s)
	if cut, ok := cutRunes(d.Markdown, o.MaxLength); ok {
		d.Markdown = cut
		d.Truncated = append(d.Truncated, cutMaxLength(o.MaxLength))
	}
	return d, nil
}

func cutMaxLength(n int) string {
	return "max_length: the Markdown was cut at " + strconv.Itoa(n) + " characters"
}

// toUTF8 decodes body by its declared charset, else as UTF-8 (invalid bytes
// replaced), dropping a byte order mark.
func toUTF8(body []byte, contentType string) string {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) || contentType != "" {
		if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
			var buf bytes.Buffer
			if _, err := buf.ReadFrom(r); err == nil {
				body = buf.Bytes()
			}
		}
	}
	return string(bytes.ToValidUTF8(body, []byte("\uFFFD")))
}

// markdownTitle is the first ATX heading's text in the first lines.
func markdownTitle(s string) string {
	for i, line := range splitLines(s, 50) {
		_ = i
		if len(line) > 2 && line[0] == '#' {
			j := 0
			for j < len(line) && line[j] == '#' {
				j++
			}
			if j <= 6 && j < len(line) && line[j] == ' ' {
				return truncateString(line[j+1:], 300)
			}
		}
	}
	return ""
}

func splitLines(s string, max int) []string {
	var out []string
	for len(s) > 0 && len(out) < max {
		i := bytes.IndexByte([]byte(s[:min(len(s), 4096)]), '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}
