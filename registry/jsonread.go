package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonObject is a JSON object read field by field: keys are matched exactly
// (encoding/json would match them without regard to case), and a key given
// twice is reported, since two readers of the same file could take different
// copies of it.
type jsonObject struct {
	fields map[string]json.RawMessage
	// order holds the keys in document order, once each.
	order []string
	dups  []string
}

// readObject reads raw as one JSON object. It fails when raw is not an object
// (null included) or is malformed.
func readObject(raw []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(raw, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("must be an object, not %s", kindOf(raw))
	}
	obj := &jsonObject{fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(raw, err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("malformed object key")
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, jsonError(raw, err)
		}
		if _, seen := obj.fields[key]; seen {
			obj.dups = append(obj.dups, key)
		} else {
			obj.order = append(obj.order, key)
		}
		obj.fields[key] = val
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, jsonError(raw, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("text after the object")
	}
	return obj, nil
}

// get returns a field's raw value; present is false for an absent field and
// for null, which the schema treats as absent.
func (o *jsonObject) get(key string) (raw json.RawMessage, present bool) {
	raw, ok := o.fields[key]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

func isNull(raw []byte) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// readArray reads raw as a JSON array of raw values.
func readArray(raw []byte) ([]json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '[' {
		return nil, fmt.Errorf("must be an array, not %s", kindOf(raw))
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, jsonError(raw, err)
	}
	return out, nil
}

// readString reads raw as a JSON string.
func readString(raw []byte) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '"' {
		return "", fmt.Errorf("must be a string, not %s", kindOf(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", jsonError(raw, err)
	}
	return s, nil
}

// kindOf names the JSON type of raw for messages.
func kindOf(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// jsonError makes a decoding error say where it happened.
func jsonError(raw []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(raw, syn.Offset)
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, syn)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("malformed JSON: it ends too early")
	}
	return fmt.Errorf("malformed JSON: %v", err)
}

// position turns a byte offset into a 1-based line and column.
func position(raw []byte, offset int64) (line, col int) {
	if offset > int64(len(raw)) {
		offset = int64(len(raw))
	}
	line, col = 1, 1
	for _, b := range raw[:offset] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
