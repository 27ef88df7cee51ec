package wcxb

import (
	"regexp"
	"strings"
)

var (
	mdImage     = regexp.MustCompile(`!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)`)
	mdLink      = regexp.MustCompile(`\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)`)
	mdRefDef    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+\S+.*$`)
	mdAutolink  = regexp.MustCompile(`<(?:https?|mailto):[^>\s]*>`)
	mdHeading   = regexp.MustCompile(`^\s{0,3}#{1,6}\s+`)
	mdQuote     = regexp.MustCompile(`^(?:\s*>)+\s?`)
	mdBullet    = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	mdRule      = regexp.MustCompile(`^\s*(?:[-*_]\s*){3,}$`)
	mdTableRule = regexp.MustCompile(`^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$`)
	mdFence     = regexp.MustCompile("^\\s*(?:```|~~~)")
	mdEscape    = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)
)

// MarkdownText turns Markdown into the plain text the benchmark scores, as
// rendering it and reading the text a browser shows would: no markup, link
// text kept, URLs and images (their alt text is an attribute, not text)
// dropped, code kept as it is.
func MarkdownText(md string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(unlink(md), "\n") {
		line = mdQuote.ReplaceAllString(line, "")
		if mdFence.MatchString(line) {
			inCode = !inCode
			b.WriteByte('\n')
			continue
		}
		if inCode {
			b.WriteString(line)
			b.WriteByte('\n')
			continue
		}
		if mdTableRule.MatchString(line) && strings.Contains(line, "-") && (strings.Contains(line, "|") || mdRule.MatchString(line)) || mdRefDef.MatchString(line) {
			b.WriteByte('\n')
			continue
		}
		line = mdHeading.ReplaceAllString(line, "")
		line = mdBullet.ReplaceAllString(line, "")
		line = mdAutolink.ReplaceAllString(line, "")
		line = stripEmphasis(line)
		line = mdEscape.ReplaceAllString(line, "$1")
		line = strings.ReplaceAll(line, "|", " ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// stripEmphasis drops the * and _ that open or close emphasis (a run next to
// a non-word character on one side), keeping those inside words
// (snake_case) and escaped ones (\_).
func stripEmphasis(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	r := []rune(s)
	out := make([]rune, 0, len(r))
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '\\' && i+1 < len(r) {
			out = append(out, c, r[i+1])
			i++
			continue
		}
		if c != '*' && c != '_' {
			out = append(out, c)
			continue
		}
		j := i
		for j < len(r) && r[j] == c {
			j++
		}
		before := i > 0 && word(r[i-1])
		after := j < len(r) && word(r[j])
		if c == '_' && before && after {
			out = append(out, r[i:j]...)
		}
		i = j - 1
	}
	return string(out)
}

// unlink replaces links and images by their text outside fenced code,
// over whole runs of lines: a link's text may span lines.
func unlink(md string) string {
	lines := strings.Split(md, "\n")
	var out, run []string
	flush := func() {
		t := strings.Join(run, "\n")
		t = mdImage.ReplaceAllString(t, "")
		for i := 0; i < 3 && strings.Contains(t, "]("); i++ {
			t = mdLink.ReplaceAllString(t, "$1")
		}
		if len(run) > 0 {
			out = append(out, t)
		}
		run = run[:0]
	}
	inCode := false
	for _, l := range lines {
		if mdFence.MatchString(mdQuote.ReplaceAllString(l, "")) {
			if !inCode {
				flush()
			}
			inCode = !inCode
			out = append(out, l)
			continue
		}
		if inCode {
			out = append(out, l)
		} else {
			run = append(run, l)
		}
	}
	flush()
	return strings.Join(out, "\n")
}
