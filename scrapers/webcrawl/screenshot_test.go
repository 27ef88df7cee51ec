package webcrawl

import (
	"strings"
	"testing"
)

// TestScreenshotWithoutARenderer: screenshot: true on a host without a
// browser still crawls, and each item says why it has no screenshot; no
// picture is added.
func TestScreenshotWithoutARenderer(t *testing.T) {
	s := newSite(t)
	items, err, out := run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/", s.URL + "/a"}, "screenshot": true})
	if err != nil || len(items) != 2 || len(out.Images) != 0 {
		t.Fatalf("%d items, %d pictures, %v", len(items), len(out.Images), err)
	}
	for _, it := range items {
		sh, _ := it["screenshot"].(map[string]any)
		notes, _ := sh["notes"].([]any)
		if sh["taken"] != false || len(notes) != 1 || !strings.Contains(notes[0].(string), "no screenshot: this host has no browser") || it["markdown"] == "" {
			t.Errorf("%v: screenshot %v", it["url"], sh)
		}
	}
	// Without screenshot, items have no screenshot field.
	items, _, _ = run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}})
	if _, ok := items[0]["screenshot"]; ok || len(items) != 1 {
		t.Errorf("a crawl without screenshot: %v", items)
	}
}
