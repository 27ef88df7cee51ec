package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// convertJSON pretty-prints a JSON document in a fenced block. Nesting
// deeper than maxJSONDepth is refused before decoding (the decoder would
// recurse), and a document that is not valid JSON is shown as text, said so.
func convertJSON(body []byte, o Options) (*Document, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if depth := jsonDepth(body); depth > maxJSONDepth {
		return nil, &Error{Kind: JSON, Reason: ErrTooDeep, Detail: fmt.Sprintf("more than %d levels", maxJSONDepth)}
	}
	var buf bytes.Buffer
	d := &Document{}
	if err := json.Indent(&buf, bytes.TrimSpace(body), "", "  "); err != nil {
		if o.Cut {
			// A cut document cannot be valid: show what came as it is.
			buf.Reset()
			buf.Write(body)
		} else {
			d.Notes = append(d.Notes, "not valid JSON ("+err.Error()+"); shown as it came")
			buf.Reset()
			buf.Write(body)
		}
	}
	d.Markdown, d.Truncated = fenced("json", toUTF8(buf.Bytes(), ""), o.MaxLength)
	return d, nil
}

// jsonDepth is the deepest nesting of arrays and objects (strings skipped).
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// fenced puts text in a code block whose fence is longer than any run of
// backticks inside, cut to fit max characters with the fence closed.
func fenced(lang, text string, limit int) (string, []string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	open, close := fence+lang+"\n", "\n"+fence+"\n"
	room := limit - len(open) - len(close)
	var cut []string
	if t, ok := cutRunes(text, max(room, 0)); ok {
		text = t
		cut = append(cut, cutMaxLength(limit))
	}
	return open + strings.TrimRight(text, "\n") + close, cut
}
