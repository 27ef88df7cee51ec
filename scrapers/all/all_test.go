package all_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/registry"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// unlisted are the written but unlisted plugins of this build.
var unlisted = []string{"reddit", "instagram"}

// TestUnlistedPluginsStartCleanly builds the host as cmd/pluginhost does
// (the configuration read from the environment, every plugin of the
// build), once with UNLISTED_PLUGINS naming the unlisted plugins, once
// without, and checks what is mounted and that none of them is listed.
func TestUnlistedPluginsStartCleanly(t *testing.T) {
	listed, err := registry.FirstPartyTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range unlisted {
		if _, ok := listed[id]; ok {
			t.Errorf("%s is unlisted but in the first-party list", id)
		}
	}
	build := func(vars map[string]string) (*host.Host, error) {
		cfg, err := host.FromEnv(func(k string) string { return vars[k] }, true)
		if err != nil {
			return nil, err
		}
		return host.New(cfg, host.Options{Plugins: all.Plugins, Logger: slog.New(slog.DiscardHandler)})
	}
	h, err := build(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range unlisted {
		if slices.Contains(h.PluginIDs(), id) {
			t.Errorf("%s is mounted without UNLISTED_PLUGINS", id)
		}
	}
	h, err = build(map[string]string{"UNLISTED_PLUGINS": strings.Join(unlisted, ",")})
	if err != nil {
		t.Fatalf("UNLISTED_PLUGINS=%s: %v", strings.Join(unlisted, ","), err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	for _, id := range unlisted {
		if !slices.Contains(h.PluginIDs(), id) {
			t.Errorf("%s is not mounted with UNLISTED_PLUGINS naming it", id)
			continue
		}
		cs, err := hosttest.Connect(context.Background(), srv.URL+"/"+id+"/mcp", "dev-key", nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		res, err := cs.ListTools(context.Background(), nil)
		cs.Close()
		if err != nil || len(res.Tools) < 2 {
			t.Fatalf("%s: tools/list: %v", id, err)
		}
		for _, tool := range res.Tools {
			if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || tool.Title == "" {
				t.Errorf("%s.%s: annotations %+v title %q; every scraper tool is read-only, not destructive, with a title", id, tool.Name, a, tool.Title)
			}
		}
	}
	resp, err := http.Get(srv.URL + "/first-party/plugins.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var served struct {
		Plugins []struct {
			ID string `json:"id"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(raw, &served); err != nil || len(served.Plugins) == 0 {
		t.Fatalf("first-party list: %v", err)
	}
	for _, id := range unlisted {
		if slices.ContainsFunc(served.Plugins, func(p struct {
			ID string `json:"id"`
		}) bool {
			return p.ID == id
		}) {
			t.Errorf("the served first-party list names %s", id)
		}
	}
	if _, err := build(map[string]string{"UNLISTED_PLUGINS": "reddit,instagram,nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("an unknown id in UNLISTED_PLUGINS: %v", err)
	}
}

// TestEveryToolDeclaresItsItems: every tool of every plugin of the build
// declares the schema of its items (the host publishes it as the tool's
// outputSchema), and the schema resolves.
func TestEveryToolDeclaresItsItems(t *testing.T) {
	plugins, err := all.Build(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plugins {
		for _, tool := range p.Tools {
			if tool.ItemSchema == nil {
				t.Errorf("%s.%s declares no ItemSchema", p.ID, tool.Name)
				continue
			}
			if _, err := tool.ItemSchema.Resolve(nil); err != nil {
				t.Errorf("%s.%s: its ItemSchema does not resolve: %v", p.ID, tool.Name, err)
			}
		}
	}
}
