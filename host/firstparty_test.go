package host_test

import (
	"context"
	"slices"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/registry"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// TestFirstPartyToolsMatchServers mounts every plugin of the build and checks,
// both ways, that each server's tools are the tools its first-party entry
// lists (get_result, which every server has, aside). A listed plugin with no
// server fails here; it is not skipped.
func TestFirstPartyToolsMatchServers(t *testing.T) {
	listed, err := registry.FirstPartyTools()
	if err != nil {
		t.Fatalf("the first-party list does not pass its check: %v", err)
	}
	h := hosttest.Start(t, hosttest.Options{Plugins: all.Plugins})
	mounted := h.PluginIDs()
	for id, tools := range listed {
		if !slices.Contains(mounted, id) {
			t.Errorf("%s is in the first-party list but no server of this build serves it", id)
			continue
		}
		res, err := h.Connect(t, id, "k", nil).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", id, err)
		}
		var served []string
		for _, tool := range res.Tools {
			served = append(served, tool.Name)
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Title == "" {
				t.Errorf("%s.%s: every scraper tool is read-only with a title", id, tool.Name)
			}
		}
		if !slices.Contains(served, registry.ResultTool) {
			t.Errorf("%s has no %s tool", id, registry.ResultTool)
		}
		missing, extra := registry.ToolsMatch(tools, served)
		if len(missing) > 0 {
			t.Errorf("%s: listed but not served: %v", id, missing)
		}
		if len(extra) > 0 {
			t.Errorf("%s: served but not listed: %v", id, extra)
		}
	}
	for _, id := range mounted {
		if _, ok := listed[id]; !ok {
			t.Errorf("%s is served but not in the first-party list", id)
		}
	}
}
