package walmart

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// errNoData says a page carries none of the JSON Walmart renders from.
var errNoData = errors.New("the page carries no __NEXT_DATA__ (nor __APP_DATA__) JSON; Walmart may have changed its pages")

// scriptJSON returns the contents of the first <script> element whose id
// attribute is id, as Next.js writes __NEXT_DATA__: <script
// id="__NEXT_DATA__" type="application/json">{…}</script>. Attribute quotes
// may be double, single or absent, in any case and order.
func scriptJSON(body []byte, id string) ([]byte, bool) {
	for from := 0; from < len(body); {
		i := indexFold(body[from:], "<script")
		if i < 0 {
			return nil, false
		}
		start := from + i + len("<script")
		end := bytes.IndexByte(body[start:], '>')
		if end < 0 {
			return nil, false
		}
		attrs := body[start : start+end]
		content := start + end + 1
		close := indexFold(body[content:], "</script")
		if close < 0 {
			close = len(body) - content
		}
		if attrValue(attrs, "id") == id {
			return bytes.TrimSpace(body[content : content+close]), true
		}
		from = content + close
	}
	return nil, false
}

// indexFold is the index of the first instance of the ASCII text sub in b,
// ignoring case, or -1.
func indexFold(b []byte, sub string) int {
	for i := 0; i+len(sub) <= len(b); {
		j := bytes.IndexByte(b[i:], sub[0])
		if j < 0 {
			return -1
		}
		i += j
		if i+len(sub) <= len(b) && bytes.EqualFold(b[i:i+len(sub)], []byte(sub)) {
			return i
		}
		i++
	}
	return -1
}

// attrValue returns the value of attribute name in the raw attribute text of
// a tag, or "".
func attrValue(attrs []byte, name string) string {
	s := string(attrs)
	for i := 0; i < len(s); {
		// skip to a name
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '/' || s[i] == '\f') {
			i++
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' && s[j] != '>' && s[j] != '/' {
			j++
		}
		if j == i {
			i++
			continue
		}
		key := strings.ToLower(s[i:j])
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		if k >= len(s) || s[k] != '=' {
			i = j
			if key == name {
				return ""
			}
			continue
		}
		k++
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		var val string
		if k < len(s) && (s[k] == '"' || s[k] == '\'') {
			q := s[k]
			e := strings.IndexByte(s[k+1:], q)
			if e < 0 {
				val, i = s[k+1:], len(s)
			} else {
				val, i = s[k+1:k+1+e], k+2+e
			}
		} else {
			e := k
			for e < len(s) && s[e] != ' ' && s[e] != '\t' && s[e] != '\n' && s[e] != '\r' {
				e++
			}
			val, i = s[k:e], e
		}
		if key == name {
			return val
		}
	}
	return ""
}

// pageData decodes the JSON a Walmart page renders from: __NEXT_DATA__, or
// the older __APP_DATA__.
func pageData(body []byte) (any, error) {
	for _, id := range []string{"__NEXT_DATA__", "__APP_DATA__"} {
		raw, ok := scriptJSON(body, id)
		if !ok || len(raw) == 0 {
			continue
		}
		v, err := jsonval.Decode(raw)
		if err != nil {
			return nil, errors.New("the page's " + id + " is not valid JSON: " + err.Error())
		}
		return v, nil
	}
	return nil, errNoData
}

// first returns the first of the paths that leads to a non-nil value.
func first(v any, paths ...[]any) any {
	for _, p := range paths {
		if x := jsonval.Get(v, p...); x != nil {
			return x
		}
	}
	return nil
}

// find looks for key in v depth-first (objects and arrays, at most depth
// levels down) and returns the first non-nil value under it.
func find(v any, key string, depth int) any {
	if depth < 0 {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		if x, ok := t[key]; ok && x != nil {
			return x
		}
		for _, x := range t {
			if r := find(x, key, depth-1); r != nil {
				return r
			}
		}
	case []any:
		for _, x := range t {
			if r := find(x, key, depth-1); r != nil {
				return r
			}
		}
	}
	return nil
}

// str is v as text: a string, or a number's digits; anything else is "".
func str(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case json.Number:
		return t.String()
	}
	return ""
}

// num is v as a number: a JSON number, or a string holding one ("$3.74",
// "1,234"). ok is false for anything else.
func num(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	case float64:
		return t, true
	case string:
		return parseAmount(t)
	}
	return 0, false
}

// parseAmount reads the first amount in a text such as "$3.74", "$1,299.00",
// "Now $12.97".
func parseAmount(s string) (float64, bool) {
	start := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if start < 0 {
		return 0, false
	}
	end := start
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ',' || s[end] == '.') {
		end++
	}
	digits := strings.TrimRight(strings.ReplaceAll(s[start:end], ",", ""), ".")
	f, err := strconv.ParseFloat(digits, 64)
	return f, err == nil
}

func ptr[T any](v T) *T { return &v }

// numPtr is num as a pointer, nil when v is no number.
func numPtr(v any) *float64 {
	if f, ok := num(v); ok {
		return &f
	}
	return nil
}

// intPtr is v as a whole number, nil when it is none.
func intPtr(v any) *int {
	if f, ok := num(v); ok && f >= 0 && f < 1<<31 {
		return ptr(int(f))
	}
	return nil
}
