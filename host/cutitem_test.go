package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

type bigArgs struct {
	Items int `json:"items"`
}

// bigItem is a page the size of a crawled one with many links: far over
// the test's RESULT_MAX_BYTES.
type bigItem struct {
	URL      string   `json:"url"`
	Title    string   `json:"title"`
	Markdown string   `json:"markdown"`
	Links    []string `json:"links"`
}

func newBig(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "big", Name: "Big", Tools: []scrapers.Tool{scrapers.NewTool("big", "Big items", "Adds items larger than a page.", nil,
		func(ctx context.Context, call *scrapers.Call, a bigArgs) error {
			for i := range a.Items {
				it := bigItem{URL: fmt.Sprintf("https://example.com/%d", i), Title: "Big é page", Markdown: strings.Repeat("Some text, \"quoted\" — and é. ", 2000)}
				for j := range 1000 {
					it.Links = append(it.Links, fmt.Sprintf("https://example.com/%d/link/%d", i, j))
				}
				call.Add(it)
			}
			call.Add(bigItem{URL: "https://example.com/small"})
			return nil
		}).WithItems(scrapers.ItemSchema[bigItem]())}}, nil
}

// TestOversizedItemIsCutAndWholeThroughGetResult: an item alone larger than
// RESULT_MAX_BYTES comes back cut to fit, named in cut_items, with a
// result_id; get_result pages on, and with whole returns the item uncut.
func TestOversizedItemIsCutAndWholeThroughGetResult(t *testing.T) {
	const max = 4096 // RESULT_MAX_BYTES
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{newBig}, Config: func(c *host.Config) { c.ResultMaxBytes = max }})
	cs := h.Connect(t, "big", hosttest.License, nil)
	res := mustCall(t, cs, "big", map[string]any{"items": 2})
	if res.IsError {
		t.Fatal(text(res))
	}
	p := page(t, res)
	if len(p.Items) != 1 || len(p.Items[0]) > max {
		t.Fatalf("want one item of at most %d bytes, got %d items, the first %d bytes", max, len(p.Items), len(p.Items[0]))
	}
	if len(text(res)) > max+1024 {
		t.Errorf("the answer is %d bytes for RESULT_MAX_BYTES %d", len(text(res)), max)
	}
	if p.ResultID == "" || p.NextOffset == nil || *p.NextOffset != 1 || p.TotalItems != 3 {
		t.Fatalf("paging: result_id %q next_offset %v total %d", p.ResultID, p.NextOffset, p.TotalItems)
	}
	if len(p.CutItems) != 1 || p.CutItems[0].Index != 0 || !contains(p.CutItems[0].Fields, "markdown") || !contains(p.CutItems[0].Fields, "links") {
		t.Fatalf("cut_items: %+v", p.CutItems)
	}
	var cut bigItem
	if err := json.Unmarshal(p.Items[0], &cut); err != nil {
		t.Fatalf("the cut item is not an item: %v", err)
	}
	if cut.URL != "https://example.com/0" || cut.Title != "Big é page" || !strings.HasPrefix(strings.Repeat("Some text, \"quoted\" — and é. ", 2000), cut.Markdown) {
		t.Errorf("the cut item lost its small fields or is not a prefix: %+v", cut.URL)
	}
	if p.CutItems[0].Bytes <= max {
		t.Errorf("cut_items bytes %d is not the whole size", p.CutItems[0].Bytes)
	}

	// get_result with whole: the item uncut.
	res = mustCall(t, cs, "get_result", map[string]any{"result_id": p.ResultID, "offset": 0, "whole": true})
	wp := page(t, res)
	if len(wp.Items) != 1 || len(wp.CutItems) != 0 || len(wp.Items[0]) != p.CutItems[0].Bytes {
		t.Fatalf("whole: %d items, cut %v, %d bytes (want %d)", len(wp.Items), wp.CutItems, len(wp.Items[0]), p.CutItems[0].Bytes)
	}
	var full bigItem
	_ = json.Unmarshal(wp.Items[0], &full)
	if len(full.Links) != 1000 || full.Markdown != strings.Repeat("Some text, \"quoted\" — and é. ", 2000) {
		t.Errorf("the whole item is not whole: %d links, %d bytes of markdown", len(full.Links), len(full.Markdown))
	}

	// Paging on: the next big item is cut too, then the small one is whole.
	res = mustCall(t, cs, "get_result", map[string]any{"result_id": p.ResultID, "offset": 1})
	np := page(t, res)
	if len(np.Items) != 1 || len(np.Items[0]) > max || len(np.CutItems) != 1 || np.CutItems[0].Index != 1 {
		t.Fatalf("page 2: %d items, cut %+v", len(np.Items), np.CutItems)
	}
	res = mustCall(t, cs, "get_result", map[string]any{"result_id": p.ResultID, "offset": 2})
	if lp := page(t, res); len(lp.Items) != 1 || len(lp.CutItems) != 0 || lp.NextOffset != nil {
		t.Fatalf("last page: %+v", lp)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
