package scrapers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// DecodeArgs decodes raw tool arguments into v strictly: null or absent is an
// empty object, unknown fields and wrong types are *ArgError naming the field.
// Then v's Defaults and Validate run, when it has them.
func DecodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if !utf8.Valid(raw) {
		return &ArgError{Arg: "arguments", Rule: "must be valid UTF-8 JSON"}
	}
	if raw[0] != '{' {
		return &ArgError{Arg: "arguments", Rule: "must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return argDecodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &ArgError{Arg: "arguments", Rule: "must be one JSON object"}
	}
	if d, ok := v.(Defaulter); ok {
		d.Defaults()
	}
	if val, ok := v.(Validator); ok {
		return val.Validate()
	}
	return nil
}

func argDecodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "arguments"
		}
		return &ArgError{Arg: field, Rule: fmt.Sprintf("must be %s, not a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)}
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name := strings.Trim(rest, `"`)
		if name == "" {
			name = `""` // an argument with an empty name is still named
		}
		return &ArgError{Arg: name, Rule: "is not an argument of this tool"}
	}
	return &ArgError{Arg: "arguments", Rule: "are not valid JSON: " + strings.TrimPrefix(msg, "json: ")}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "an object"
	default:
		return "of another type"
	}
}

// IntArg checks that v, when set, lies in [lo, hi]; unset (nil) gives def.
// Argument structs use *int for optional numbers so that 0 and absent differ.
func IntArg(arg string, v *int, lo, hi, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if n := *v; n < lo || n > hi {
		return 0, Argf(arg, "must be between %d and %d, got %d", lo, hi, n)
	}
	return *v, nil
}

// ListLen checks that a list holds between lo and hi entries, none empty.
func ListLen(arg string, list []string, lo, hi int) error {
	if len(list) < lo || len(list) > hi {
		if lo == hi {
			return Argf(arg, "must hold %d entries, got %d", lo, len(list))
		}
		return Argf(arg, "must hold between %d and %d entries, got %d", lo, hi, len(list))
	}
	for i, s := range list {
		if strings.TrimSpace(s) == "" {
			return Argf(arg, "entry %d is empty", i)
		}
	}
	return nil
}

// CanonicalArgs is one spelling of a call's arguments, so that identical
// questions share a cache key: the JSON object with every argument the
// schema gives a default and the call left out filled with that default,
// keys sorted, no space, numbers as written. (A default a tool applies
// without publishing it in its schema is not filled: such a call and one
// spelling the default out are two questions.)
func CanonicalArgs(raw json.RawMessage, schema *jsonschema.Schema) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, &ArgError{Arg: "arguments", Rule: "must be a JSON object"}
	}
	if m == nil {
		m = map[string]any{}
	}
	if schema != nil {
		for name, p := range schema.Properties {
			if _, set := m[name]; !set && p != nil && len(p.Default) > 0 {
				m[name] = p.Default
			}
		}
	}
	return json.Marshal(m)
}
