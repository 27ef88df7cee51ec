package scrapers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type schemaArgs struct {
	URLs    []string `json:"urls,omitempty"`
	Terms   []string `json:"terms,omitempty"`
	Max     *int     `json:"max,omitempty"`
	Sort    string   `json:"sort,omitempty"`
	Details bool     `json:"details,omitempty"`
}

func TestSchemaHelpers(t *testing.T) {
	tool := NewTool("t", "T", "d", func(s *jsonschema.Schema) {
		ListMax(s, 20, "urls", "terms", "absent")
		IntRange(s, "max", 1, 100, 10)
		Choice(s, "sort", "relevance", "newest")
		SetDefault(s, "details", false)
		IntRange(s, "absent", 1, 2, 1)
		SetDefault(s, "absent", "x")
		Choice(s, "absent", "a")
	}, func(ctx context.Context, call *Call, a schemaArgs) error { return nil })
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		`"urls":{"type":"array","items":{"type":"string"},"maxItems":20}`,
		`"terms":{"type":"array","items":{"type":"string"},"maxItems":20}`,
		`"max":{"type":"integer","default":10,"minimum":1,"maximum":100}`,
		`"sort":{"type":"string","default":"relevance","enum":["relevance","newest"]}`,
		`"details":{"type":"boolean","default":false}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "absent") {
		t.Errorf("a helper added a property: %s", got)
	}
}

func TestSetDefaultRefusesWhatIsNoJSON(t *testing.T) {
	s := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"x": {}}}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"x"`) {
			t.Errorf("recovered %v, want a panic naming the argument", r)
		}
	}()
	SetDefault(s, "x", func() {})
}
