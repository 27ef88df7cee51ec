package scrapers

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Helpers for the schema adjustments a [NewTool] schema function makes to
// the inferred schema. Each leaves alone a property the schema does not
// have.

// ListMax sets the most entries each named list argument may hold.
func ListMax(s *jsonschema.Schema, max int, names ...string) {
	for _, name := range names {
		if p := s.Properties[name]; p != nil {
			p.MaxItems = jsonschema.Ptr(max)
		}
	}
}

// IntRange sets the minimum, maximum and default of the integer argument
// name.
func IntRange(s *jsonschema.Schema, name string, lo, hi, def int) {
	if p := s.Properties[name]; p != nil {
		p.Minimum, p.Maximum = jsonschema.Ptr(float64(lo)), jsonschema.Ptr(float64(hi))
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
}

// SetDefault sets the default of argument name to v, which must marshal to
// JSON (a string, number, bool).
func SetDefault(s *jsonschema.Schema, name string, v any) {
	if p := s.Properties[name]; p != nil {
		b, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("scrapers.SetDefault %q: %v", name, err))
		}
		p.Default = b
	}
}

// Choice makes the string argument name take one of values, the first by
// default.
func Choice(s *jsonschema.Schema, name string, values ...string) {
	if p := s.Properties[name]; p != nil {
		p.Enum = make([]any, len(values))
		for i, v := range values {
			p.Enum[i] = v
		}
		if len(values) > 0 {
			SetDefault(s, name, values[0])
		}
	}
}

// AnyItem is the item schema of a tool whose items are of several types
// (TikTok's videos, profiles and hashtags): an item conforms when it
// conforms to one of schemas, each built with [ItemSchema].
func AnyItem(schemas ...*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: schemas}
}
