package tiktok

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// fixturesDir is the shared real-page fixtures folder: $SCRAPER_FIXTURES_DIR,
// or ../shared/fixtures beside the repository root (the folder with go.mod).
func fixturesDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SCRAPER_FIXTURES_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "fixtures")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// realFixture reads a shared fixture, skipping the test when it is absent.
func realFixture(t testing.TB, rel string) []byte {
	t.Helper()
	dir := fixturesDir(t)
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("real fixture %s not available (set SCRAPER_FIXTURES_DIR or put the shared fixtures at ../shared/fixtures): %v", rel, err)
	}
	return b
}

// readOptional reads a shared fixture, or says why it cannot.
func readOptional(t testing.TB, rel string) ([]byte, error) {
	t.Helper()
	return os.ReadFile(filepath.Join(fixturesDir(t), rel))
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// videoPage wraps an itemStruct object in a page the way TikTok serves it.
func videoPage(t testing.TB, itemStruct []byte) []byte {
	t.Helper()
	var it json.RawMessage
	if err := json.Unmarshal(itemStruct, &it); err != nil {
		t.Fatalf("itemStruct is not JSON: %v", err)
	}
	data, err := json.Marshal(map[string]any{"__DEFAULT_SCOPE__": map[string]any{
		"webapp.app-context":  map[string]any{"language": "en"},
		"webapp.video-detail": map[string]any{"itemInfo": map[string]any{"itemStruct": it}, "statusCode": 0, "statusMsg": ""},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>TikTok</title></head><body><div id="app"></div>` +
		`<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">` + string(data) + `</script></body></html>`)
}

// newPlugin builds the plugin against a stand-in origin.
func newPlugin(t testing.TB, base string) scrapers.Plugin {
	t.Helper()
	env := map[string]string{"TIKTOK_BASE_URL": base}
	p, err := New(scrapers.Env{Getenv: func(k string) string { return env[k] }, AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runTool runs the named tool with raw arguments under a timeout.
func runTool(t testing.TB, p scrapers.Plugin, name, args string, timeout time.Duration) (scrapers.Outcome, error) {
	t.Helper()
	for _, tool := range p.Tools {
		if tool.Name == name {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			call := scrapers.NewCall(nil)
			err := tool.Run(ctx, call, json.RawMessage(args))
			return call.Snapshot(), err
		}
	}
	t.Fatalf("no tool %q", name)
	return scrapers.Outcome{}, nil
}

// items decodes every item of an outcome into maps.
func items(t testing.TB, o scrapers.Outcome) []map[string]any {
	t.Helper()
	out := make([]map[string]any, 0, len(o.Items))
	for _, raw := range o.Items {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("item is not a JSON object: %s", raw)
		}
		if u, _ := m["url"].(string); u == "" {
			t.Errorf("item without url: %s", raw)
		}
		out = append(out, m)
	}
	return out
}

func ofType(ms []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}
