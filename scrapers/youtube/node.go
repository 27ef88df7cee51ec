package youtube

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// YouTube's JSON (ytInitialData, innertube answers) is deep, changes shape
// often and leaves fields out freely, so extractors decode it generically
// (map[string]any, []any) and read it through package jsonval and the
// helpers below, which return zero values for whatever is missing or of
// another type and never panic.

// str returns v as a string; numbers are formatted, anything else is "".
func str(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case float64:
		return strconv.FormatFloat(s, 'f', -1, 64)
	}
	return ""
}

// text returns the text of one of YouTube's text objects: {"simpleText"},
// {"runs":[{"text"}...]}, {"content"} (attributed strings), or a plain string.
func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		if s, ok := t["simpleText"].(string); ok {
			return s
		}
		if runs, ok := t["runs"].([]any); ok {
			var b strings.Builder
			for _, r := range runs {
				b.WriteString(str(jsonval.Get(r, "text")))
			}
			return b.String()
		}
		if s, ok := t["content"].(string); ok {
			return s
		}
	}
	return ""
}

// firstText returns the first non-empty text among vs.
func firstText(vs ...any) string {
	for _, v := range vs {
		if s := strings.TrimSpace(text(v)); s != "" {
			return s
		}
	}
	return ""
}

// walk visits every object in v depth first, calling fn with each key and
// value of each object. When fn returns false for a key, walk does not go
// into that value. Depth is bounded so that hostile input cannot exhaust the
// stack (encoding/json already bounds nesting, this is belt and braces).
func walk(v any, fn func(key string, val any) bool) {
	walkDepth(v, fn, 0)
}

func walkDepth(v any, fn func(key string, val any) bool, depth int) {
	if depth > 200 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if fn(k, val) {
				walkDepth(val, fn, depth+1)
			}
		}
	case []any:
		for _, val := range t {
			walkDepth(val, fn, depth+1)
		}
	}
}

// parseCount reads a count out of a YouTube text: "1,856,109 views" is
// 1856109, "1.8M views" 1800000, "43K" 43000, "No views" 0. ok is false when
// the text holds no number.
func parseCount(s string) (n int64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "no ") || lower == "no" {
		return 0, true
	}
	start := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if start < 0 {
		return 0, false
	}
	end := start
	for end < len(s) {
		c := s[end]
		if c >= '0' && c <= '9' || c == ',' || c == '.' {
			end++
			continue
		}
		// Thin and non-breaking spaces as thousands separators (fr, de).
		if r := []rune(s[end:])[0]; (r == '\u00a0' || r == '\u202f') && end+len(string(r)) < len(s) && s[end+len(string(r))] >= '0' && s[end+len(string(r))] <= '9' {
			end += len(string(r))
			continue
		}
		break
	}
	num := strings.Trim(s[start:end], ",.")
	num = strings.NewReplacer("\u00a0", "", "\u202f", "").Replace(num)
	rest := strings.TrimLeftFunc(s[end:], unicode.IsSpace)
	mult := 1.0
	if rest != "" {
		switch rest[0] {
		case 'K', 'k':
			mult = 1e3
		case 'M', 'm':
			if !strings.HasPrefix(strings.ToLower(rest), "min") {
				mult = 1e6
			}
		case 'B', 'b':
			mult = 1e9
		}
		// A suffix must be a word of its own ("1.2K", "1.2K views"), not
		// the start of one ("5 books").
		if mult != 1 && len(rest) > 1 && unicode.IsLetter(rune(rest[1])) {
			mult = 1
		}
	}
	if mult != 1 {
		// "1.2K": the separator is a decimal point; "1,2 K" in comma locales.
		if !strings.Contains(num, ".") {
			num = strings.Replace(num, ",", ".", 1)
		}
		num = strings.ReplaceAll(num, ",", "")
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(f*mult, 0) || f*mult > math.MaxInt64/2 {
			return 0, false
		}
		return int64(math.Round(f * mult)), true
	}
	num = strings.NewReplacer(",", "", ".", "").Replace(num)
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// countPtr is parseCount as a pointer, nil when the text holds no number.
func countPtr(s string) *int64 {
	if n, ok := parseCount(s); ok {
		return &n
	}
	return nil
}

// parseDuration reads "47:20" or "1:02:03" as seconds; ok is false for
// anything else.
func parseDuration(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, false
	}
	total := 0
	for _, p := range parts {
		if p == "" || len(p) > 6 {
			return 0, false
		}
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return 0, false
		}
		total = total*60 + v
	}
	return total, true
}

// formatDuration writes seconds as YouTube does: 5:16, 1:02:03.
func formatDuration(sec int) string {
	if sec < 0 {
		return ""
	}
	h, m, s := sec/3600, sec/60%60, sec%60
	if h > 0 {
		return strconv.Itoa(h) + ":" + pad2(m) + ":" + pad2(s)
	}
	return strconv.Itoa(m) + ":" + pad2(s)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// atoi64 parses a decimal count given as a JSON string ("1856109"); nil when
// it is not one.
func atoi64(v any) *int64 {
	s := str(v)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// bestThumbnail returns the URL of the widest thumbnail in a
// {"thumbnails":[{url,width,height}]} object (the last one when no widths).
func bestThumbnail(v any) string {
	list := jsonval.List(jsonval.Get(v, "thumbnails"))
	if list == nil {
		list = jsonval.List(jsonval.Get(v, "sources"))
	}
	best, bestW := "", -1.0
	for _, t := range list {
		u := str(jsonval.Get(t, "url"))
		if u == "" {
			continue
		}
		w, _ := jsonval.Get(t, "width").(float64)
		if w >= bestW {
			best, bestW = u, w
		}
	}
	if strings.HasPrefix(best, "//") {
		best = "https:" + best
	}
	return best
}
