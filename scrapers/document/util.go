package document

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/RadhiFadlillah/whatlanggo"
)

// cutRunes cuts s to at most n characters, at the last line break within
// the last fifth when there is one, and says whether it cut.
func cutRunes(s string, n int) (string, bool) {
	if len(s) <= n { // bytes ≥ runes
		return s, false
	}
	i := 0
	for pos := range s {
		if i == n {
			cut := s[:pos]
			if nl := strings.LastIndexByte(cut, '\n'); nl > len(cut)*4/5 {
				cut = cut[:nl+1]
			}
			return cut, true
		}
		i++
	}
	return s, false
}

func truncateString(s string, n int) string {
	c, _ := cutRunes(s, n)
	return strings.TrimSpace(c)
}

// linkSet keeps distinct absolute http(s) links in order, at most max.
type linkSet struct {
	max  int
	seen map[string]bool
	list []string
}

func newLinkSet(max int) *linkSet {
	return &linkSet{max: max, seen: map[string]bool{}, list: []string{}}
}

func (s *linkSet) full() bool { return len(s.list) >= s.max }

func (s *linkSet) add(raw string) {
	raw = strings.TrimSpace(raw)
	if s.full() || raw == "" || len(raw) > 2048 {
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	k := u.String()
	if !s.seen[k] {
		s.seen[k] = true
		s.list = append(s.list, k)
	}
}

// languageTag cleans a written language tag ("en-US", "EN", "fr_CA"); ""
// when it does not look like one.
func languageTag(v string) string {
	v = strings.ReplaceAll(strings.TrimSpace(v), "_", "-")
	if len(v) < 2 || len(v) > 35 {
		return ""
	}
	for i, c := range v {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(i > 0 && (c == '-' || c >= '0' && c <= '9')) {
			return ""
		}
	}
	return v
}

// detectLanguage names the language of a text sample when the detector is
// sure (ISO 639-1), else "".
func detectLanguage(text string) string {
	text = truncateString(text, 4000)
	if utf8.RuneCountInString(text) < 200 {
		return ""
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return ""
	}
	return info.Lang.Iso6391()
}
