package host

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// The output schema every tool declares (CONTRACTS.md, "Tool results",
// Schemas): the result envelope of page.go (Page) with the tool's item type
// (scrapers.Tool.ItemSchema) as the type of its items, a failed source's item
// ({url, error}) allowed beside it, and the tool's meta fields
// (scrapers.Tool.Meta) beside the envelope's own.

// failedItemSchema is the item a failed source leaves (scrapers.Call.Fail).
var failedItemSchema = scrapers.ItemSchema[scrapers.Failed]()

// cutItemsSchema is page.go's cut_items: the items of a page cut to fit
// RESULT_MAX_BYTES.
var cutItemsSchema = &jsonschema.Schema{Type: "array", Items: scrapers.ItemSchema[CutItem](),
	Description: "the items of this page cut to fit RESULT_MAX_BYTES (index, whole size, fields shortened); get_result with whole returns each uncut"}

// envelopeFields are the fields the host itself puts in every result,
// besides items (page.go's Page; cached and fetched_at mark an answer from
// the shared result cache).
func envelopeFields() map[string]*jsonschema.Schema {
	nonNegative := func(desc string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(0.0), Description: desc}
	}
	return map[string]*jsonschema.Schema{
		"partial":         {Type: "boolean", Description: "true when the items are not all there is (the deadline passed, sources failed, a bound was hit); partial_reasons says why"},
		"partial_reasons": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "why the result is partial"},
		"total_items":     nonNegative("how many items the whole result has"),
		"offset":          nonNegative("the index of the first item of this page"),
		"result_id":       {Type: "string", Description: "where the rest of a large result is kept: pass it to get_result"},
		"result_held_by":  {Type: "string", Description: "set when the rest of the result is kept in one replica's memory only (the shared store refused it): that replica's name; get_result answers there, and other replicas say so"},
		"next_offset":     nonNegative("the offset to pass to get_result for the next page; absent on the last page"),
		"cut_items":       cutItemsSchema,
		"cached":          {Type: "boolean", Description: "true when the result was answered from the shared cache"},
		"fetched_at":      {Type: "string", Description: "when a cached result was fetched (RFC 3339)"},
	}
}

// outputSchema is the envelope for items of the item schemas given (nil: a
// tool that declares none, whose items may be any object) and the meta
// fields given. strict closes the envelope to other fields: the tests hold
// results to it (Options.CheckResult), while the published schema stays open
// so that a field added later does not break a client that validates.
func outputSchema(items []*jsonschema.Schema, meta map[string]*jsonschema.Schema, strict bool) *jsonschema.Schema {
	var item *jsonschema.Schema
	switch {
	case len(items) == 0 || slicesContainsNil(items):
		item = &jsonschema.Schema{Type: "object"}
	default:
		item = &jsonschema.Schema{AnyOf: append(append([]*jsonschema.Schema{}, items...), failedItemSchema)}
	}
	props := envelopeFields()
	props["items"] = &jsonschema.Schema{Type: "array", Items: item, Description: "the result's items from offset (a failed source is an item {url, error})"}
	for name, s := range meta {
		if _, taken := props[name]; taken {
			panic(fmt.Sprintf("meta field %q is one of the envelope's own", name))
		}
		props[name] = s
	}
	s := &jsonschema.Schema{
		Type:       "object",
		Required:   []string{"items", "partial", "total_items", "offset"},
		Properties: props,
	}
	if strict {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	return s
}

func slicesContainsNil(ss []*jsonschema.Schema) bool {
	for _, s := range ss {
		if s == nil {
			return true
		}
	}
	return false
}

// toolOutputSchema is tool t's envelope.
func toolOutputSchema(t scrapers.Tool, strict bool) *jsonschema.Schema {
	return outputSchema([]*jsonschema.Schema{t.ItemSchema}, t.Meta, strict)
}

// getResultOutputSchema is get_result's envelope for plugin p: a page of any
// of its tools' results.
func getResultOutputSchema(p scrapers.Plugin, strict bool) *jsonschema.Schema {
	items := make([]*jsonschema.Schema, 0, len(p.Tools))
	meta := map[string]*jsonschema.Schema{}
	for _, t := range p.Tools {
		items = append(items, t.ItemSchema)
		for k, v := range t.Meta {
			meta[k] = v
		}
	}
	return outputSchema(items, meta, strict)
}

// encodeSchema marshals a schema once, at mount: tools/list would otherwise
// marshal it on every call.
func encodeSchema(name string, s *jsonschema.Schema) json.RawMessage {
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err))
	}
	return raw
}

// resultSchemas are the strict envelopes of a plugin's tools, resolved for
// validation (Options.CheckResult).
type resultSchemas map[string]*jsonschema.Resolved

func newResultSchemas(p scrapers.Plugin) (resultSchemas, error) {
	rs := resultSchemas{}
	for _, t := range p.Tools {
		r, err := toolOutputSchema(t, true).Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("plugin %s, tool %s: its output schema does not resolve: %w", p.ID, t.Name, err)
		}
		rs[t.Name] = r
	}
	r, err := getResultOutputSchema(p, true).Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("plugin %s, get_result: its output schema does not resolve: %w", p.ID, err)
	}
	rs[GetResultTool] = r
	return rs, nil
}
