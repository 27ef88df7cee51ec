package host

import (
	"encoding/json"
	"errors"
)

// jsonMember is one member of a JSON object: its name (unescaped) and its
// value's JSON text.
type jsonMember struct {
	Name  string
	Value json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// scanMembers lists the members of obj, a JSON object that is already known
// to be valid JSON (json.Valid), in order, without decoding the values: the
// body gate and the fast answers read the top of every MCP request with it,
// where encoding/json's Decoder cost more than the rest of a tools/list.
// A name with escapes is unescaped by encoding/json.
func scanMembers(obj []byte) ([]jsonMember, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, errNotObject
	}
	i = skipSpace(obj, i+1)
	var out []jsonMember
	if i < len(obj) && obj[i] == '}' {
		return out, nil
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return nil, errNotObject
		}
		end, escaped := stringEnd(obj, i)
		if end < 0 {
			return nil, errNotObject
		}
		name := string(obj[i+1 : end-1])
		if escaped {
			if err := json.Unmarshal(obj[i:end], &name); err != nil {
				return nil, err
			}
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, errNotObject
		}
		i = skipSpace(obj, i+1)
		vend := valueEnd(obj, i)
		if vend < 0 {
			return nil, errNotObject
		}
		out = append(out, jsonMember{Name: name, Value: json.RawMessage(obj[i:vend])})
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return nil, errNotObject
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return out, nil
		default:
			return nil, errNotObject
		}
	}
	return nil, errNotObject
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string starting at b[i] (a quote), and
// whether it holds escapes; -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// valueEnd is the index after the JSON value starting at b[i]; -1 when it
// does not end.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // a number, true, false or null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}
