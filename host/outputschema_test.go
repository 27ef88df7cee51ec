package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/all"
)

type typedItem struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Score *int   `json:"score,omitempty"`
}

// typedPlugin declares its items and a meta field; "lie" adds an item of
// another shape, which the result check must catch.
func typedPlugin(scrapers.Env) (scrapers.Plugin, error) {
	type args struct {
		Lie  bool `json:"lie,omitempty"`
		Fail bool `json:"fail,omitempty"`
	}
	t := scrapers.NewTool("list", "List", "test tool", nil, func(ctx context.Context, call *scrapers.Call, a args) error {
		call.Add(typedItem{URL: "https://e.com/1", Title: "one"})
		if a.Fail {
			call.Fail("https://e.com/2", context.DeadlineExceeded)
		}
		if a.Lie {
			call.Add(map[string]any{"url": "https://e.com/3", "title": 3})
		}
		call.SetMeta("source", "test")
		return nil
	}).WithItems(scrapers.ItemSchema[typedItem]())
	t.Meta = map[string]*jsonschema.Schema{"source": {Type: "string"}}
	return scrapers.Plugin{ID: "typed", Name: "Typed", Tools: []scrapers.Tool{t}}, nil
}

// TestOutputSchemasDeclaredAndLeftOutForTextOnly: every tool of every plugin
// declares the envelope with its item type; text-only callers see no schema
// and no structuredContent.
func TestOutputSchemasDeclaredAndLeftOutForTextOnly(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: append(append([]scrapers.Constructor{}, all.Plugins...), typedPlugin),
		Config: func(c *host.Config) { c.UnlistedPlugins = unlistedIDs(t) }})
	for _, p := range h.Plugins() {
		full := h.Connect(t, p.ID, "k", nil)
		res, err := full.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(p.Tools)+1 {
			t.Fatalf("%s: %d tools listed, want %d", p.ID, len(res.Tools), len(p.Tools)+1)
		}
		for _, tool := range res.Tools {
			b, _ := json.Marshal(tool.OutputSchema)
			var s struct {
				Type       string                     `json:"type"`
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(b, &s); err != nil || s.Type != "object" {
				t.Errorf("%s/%s: outputSchema %s", p.ID, tool.Name, b)
				continue
			}
			for _, f := range []string{"items", "partial", "partial_reasons", "total_items", "offset", "result_id", "next_offset", "cut_items"} {
				if s.Properties[f] == nil {
					t.Errorf("%s/%s: outputSchema has no %s", p.ID, tool.Name, f)
				}
			}
			if tool.Name != host.GetResultTool {
				var items struct {
					Items struct {
						AnyOf []any `json:"anyOf"`
						Type  string
					} `json:"items"`
				}
				_ = json.Unmarshal(s.Properties["items"], &items)
				want := declared(t, p, tool.Name)
				if want == nil {
					if items.Items.Type != "object" {
						t.Errorf("%s/%s: declares no item type, yet items are %s", p.ID, tool.Name, s.Properties["items"])
					}
				} else if len(items.Items.AnyOf) != 2 || !reflect.DeepEqual(items.Items.AnyOf[0], want) {
					t.Errorf("%s/%s: items schema %s does not hold the tool's item type %v", p.ID, tool.Name, s.Properties["items"], want)
				}
			}
		}
		text := h.Connect(t, p.ID, "k", http.Header{"X-Surfsense-Text-Only": {"1"}})
		res, err = text.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.OutputSchema != nil {
				t.Errorf("%s/%s: text-only tools/list carries an outputSchema", p.ID, tool.Name)
			}
		}
	}
	full := h.Connect(t, "typed", "k", nil)
	r := mustCall(t, full, "list", map[string]any{"fail": true})
	sc, _ := json.Marshal(r.StructuredContent)
	if r.IsError || !strings.Contains(string(sc), `"source":"test"`) {
		t.Fatalf("typed result: %s", sc)
	}
	text := h.Connect(t, "typed", "k", http.Header{"X-Surfsense-Text-Only": {"1"}})
	r = mustCall(t, text, "list", map[string]any{})
	if r.IsError || r.StructuredContent != nil {
		t.Fatalf("text-only result carries structuredContent: %+v", r)
	}
}

// declared is the tool's item schema as JSON decodes it (nil: none).
func declared(t *testing.T, p scrapers.Plugin, tool string) any {
	for _, tl := range p.Tools {
		if tl.Name == tool {
			if tl.ItemSchema == nil {
				return nil
			}
			b, err := json.Marshal(tl.ItemSchema)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			_ = json.Unmarshal(b, &v)
			return v
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// unlistedIDs mounts the unlisted plugins too, so that their tools are checked.
func unlistedIDs(t *testing.T) []string {
	var ids []string
	plugins, err := all.Build(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plugins {
		if p.Unlisted {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// TestResultCheckCatchesNonConformingResults: the check every hosttest host
// runs passes a conforming result and reports one whose item breaks the
// tool's item type.
func TestResultCheckCatchesNonConformingResults(t *testing.T) {
	var mu sync.Mutex
	var got []error
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{typedPlugin}, CheckResult: func(plugin, tool string, err error) {
		mu.Lock()
		got = append(got, err)
		mu.Unlock()
	}})
	cs := h.Connect(t, "typed", "k", nil)
	mustCall(t, cs, "list", map[string]any{"fail": true})
	mustCall(t, cs, "list", map[string]any{"lie": true})
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != nil || got[1] == nil || !strings.Contains(got[1].Error(), "title") {
		t.Fatalf("checks: %v, want a pass then a mismatch naming title", got)
	}
}
