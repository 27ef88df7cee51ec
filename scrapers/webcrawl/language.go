package webcrawl

import (
	"strings"
	"unicode/utf8"

	"github.com/RadhiFadlillah/whatlanggo"
)

// Language detection is asked only when the page's markup names no language,
// reads at most detectSample bytes of the main text, and answers only when
// that text is long enough and the detector is sure.
const (
	detectSample   = 4096
	detectMinRunes = 200
)

// pageLanguage is the page's language: from its own markup first (<html
// lang>, the Content-Language header, <meta http-equiv="content-language">,
// og:locale), else detected from text; nil when neither is sure.
func pageLanguage(m pageMeta, contentLanguage, text string) *string {
	for _, v := range []string{m.htmlLang, contentLanguage, m.metaLang, m.ogLocale} {
		if tag := languageTag(v); tag != "" {
			return &tag
		}
	}
	text = truncateBytes(text, detectSample)
	if utf8.RuneCountInString(text) < detectMinRunes {
		return nil
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return nil
	}
	code := info.Lang.Iso6391()
	if code == "" {
		return nil
	}
	return &code
}

// languageTag cleans a written language tag: the first of a list
// ("fr, en"), og:locale's underscore as a hyphen (en_US → en-US); "" when it
// does not look like a tag.
func languageTag(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, ",;"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	v = strings.ReplaceAll(v, "_", "-")
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
