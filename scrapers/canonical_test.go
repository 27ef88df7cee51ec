package scrapers

import (
	"context"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestCanonicalArgsOneSpellingPerQuestion(t *testing.T) {
	type args struct {
		Queries  []string `json:"queries"`
		MaxPages *int     `json:"max_pages,omitempty"`
		Site     string   `json:"site,omitempty"`
	}
	tool := NewTool("t", "T", "d", func(s *jsonschema.Schema) { IntRange(s, "max_pages", 1, 10, 1) },
		func(_ context.Context, _ *Call, _ args) error { return nil })
	canon := func(raw string) string {
		t.Helper()
		b, err := tool.Canonical([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return string(b)
	}
	same := []string{
		`{"queries":["a"]}`,
		` { "queries" : [ "a" ] } `,
		`{"max_pages":1,"queries":["a"]}`,
		`{"queries":["a"],"max_pages":1}`,
	}
	want := canon(same[0])
	for _, raw := range same[1:] {
		if got := canon(raw); got != want {
			t.Errorf("%s → %s, want %s", raw, got, want)
		}
	}
	for _, raw := range []string{`{"queries":["b"]}`, `{"queries":["a"],"max_pages":2}`, `{"queries":["a"],"site":"x"}`, `{"queries":["a","a"]}`} {
		if canon(raw) == want {
			t.Errorf("%s has the key of another question", raw)
		}
	}
	if _, err := tool.Canonical([]byte(`{"queries":["a"],"nope":1}`)); err == nil {
		t.Error("an unknown argument was canonicalised instead of refused")
	}
	if _, err := tool.Canonical([]byte(`{"queries":["a"],"max_pages":"2"}`)); err == nil {
		t.Error("a wrong type was canonicalised instead of refused")
	}
}
