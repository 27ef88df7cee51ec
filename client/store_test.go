package client

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// storeKinds runs a test against every Store implementation.
func storeKinds(t *testing.T, fn func(t *testing.T, s Store)) {
	t.Run("memory", func(t *testing.T) { fn(t, &MemoryStore{}) })
	t.Run("file", func(t *testing.T) {
		key, _ := NewKey()
		s, err := OpenFileStore(filepath.Join(t.TempDir(), "sub", "plugins.json"), key)
		if err != nil {
			t.Fatal(err)
		}
		fn(t, s)
	})
}

func samplePlugin(id, url string) InstalledPlugin {
	return InstalledPlugin{ID: id, Name: strings.ToUpper(id), Kind: "remote", Source: SourceCustom, URL: url,
		Hosts: []string{"h.dev"}, Enabled: true, ConnectedAt: mustTime("2026-12-01T10:00:00Z"),
		CredentialKind: CredentialToken, Credential: "secret-" + id}
}

func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	storeKinds(t, func(t *testing.T, s Store) {
		if _, err := s.Plugin(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Plugin of nothing = %v", err)
		}
		a, b := samplePlugin("a", "https://a.dev/mcp"), samplePlugin("b", "https://b.dev/mcp")
		b.ConnectedAt = a.ConnectedAt.Add(-time.Hour)
		for _, p := range []InstalledPlugin{a, b} {
			if err := s.PutPlugin(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutPlugin(ctx, samplePlugin("c", "https://a.dev/mcp")); !errors.Is(err, ErrURLTaken) {
			t.Errorf("a second row at one URL: %v", err)
		}
		rows, _ := s.Plugins(ctx)
		if len(rows) != 2 || rows[0].ID != "b" || rows[1].ID != "a" {
			t.Errorf("rows = %v, want b then a (by connected_at)", rows)
		}
		// Copies: changing what was returned changes nothing stored.
		rows[0].Hosts[0] = "changed"
		got, _ := s.Plugin(ctx, "b")
		if got.Hosts[0] != "h.dev" || !reflect.DeepEqual(got, b) {
			t.Errorf("b = %+v, want %+v", got, b)
		}
		// Replacing a row keeps its URL.
		a.Enabled = false
		if err := s.PutPlugin(ctx, a); err != nil {
			t.Fatal(err)
		}
		tools := []PluginTool{{Name: "z", Position: 1, Annotations: Annotations{ReadOnlyHint: yes}}, {Name: "y", Position: 0, InputSchema: []byte(`{"type":"object"}`)}}
		if err := s.PutTools(ctx, "a", tools); err != nil {
			t.Fatal(err)
		}
		if err := s.PutTools(ctx, "nope", tools); !errors.Is(err, ErrNotFound) {
			t.Errorf("tools of no plugin: %v", err)
		}
		got2, _ := s.Tools(ctx, "a")
		if len(got2) != 2 || got2[0].Name != "y" || got2[1].PluginID != "a" {
			t.Errorf("tools = %+v", got2)
		}
		*got2[1].Annotations.ReadOnlyHint = false
		got3, _ := s.Tools(ctx, "a")
		if !got3[1].Annotations.ReadOnly() {
			t.Errorf("a returned tool shares its annotations with the store")
		}
		if err := s.PutSettings(ctx, PluginSettings{ThirdPartyOn: true}); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.Settings(ctx); !st.ThirdPartyOn {
			t.Errorf("settings not kept")
		}
		if err := s.DeletePlugin(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeletePlugin(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleting twice: %v", err)
		}
		if ts, _ := s.Tools(ctx, "a"); len(ts) != 0 {
			t.Errorf("a deleted plugin's tools stayed: %v", ts)
		}
		// Its URL is free again.
		if err := s.PutPlugin(ctx, samplePlugin("c", "https://a.dev/mcp")); err != nil {
			t.Errorf("the URL of a deleted row: %v", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Plugins(cctx); err == nil {
			t.Errorf("a done context was not refused")
		}
	})
}

func TestFileStoreAtRest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "plugins.json")
	key, _ := NewKey()
	s, err := OpenFileStore(path, key)
	if err != nil {
		t.Fatal(err)
	}
	a := samplePlugin("a", "https://a.dev/mcp")
	a.CheckedAt = mustTime("2026-12-01T11:00:00Z")
	a.CheckFailure = CheckSignIn
	oauth := samplePlugin("o", "https://o.dev/mcp")
	oauth.CredentialKind, oauth.Credential = CredentialOAuth, `{"access_token":"at-123","refresh_token":"rt-456"}`
	lic := samplePlugin("l", "https://plugins.surfsense.com/amazon/mcp")
	lic.CredentialKind, lic.Credential = CredentialLicense, ""
	for _, p := range []InstalledPlugin{a, oauth, lic} {
		if err := s.PutPlugin(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	tools := []PluginTool{{Name: "find", Description: "Finds.", Enabled: true, Approval: ApprovalAlways, Exposure: ExposureDirect, Annotations: Annotations{ReadOnlyHint: yes, OpenWorldHint: no}, InputSchema: []byte(`{"type":"object"}`), FirstSeenAt: a.ConnectedAt, Change: ChangeAdded}}
	s.PutTools(ctx, "a", tools)
	s.PutSettings(ctx, PluginSettings{ThirdPartyOn: true})

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"secret-a", "at-123", "rt-456"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the file holds the credential %q in clear", secret)
		}
	}
	if !bytes.Contains(data, []byte(`"credential_ciphertext"`)) || !bytes.Contains(data, []byte(`"third_party_on": true`)) {
		t.Errorf("file = %s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left files beside the store: %v", ents)
	}

	// Reopened with the key: the same tables.
	s2, err := OpenFileStore(path, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []InstalledPlugin{a, oauth, lic} {
		got, err := s2.Plugin(ctx, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("reopened %s = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	gotTools, _ := s2.Tools(ctx, "a")
	tools[0].PluginID = "a"
	if !reflect.DeepEqual(gotTools, tools) {
		t.Errorf("reopened tools = %+v\nwant %+v", gotTools, tools)
	}
	if st, _ := s2.Settings(ctx); !st.ThirdPartyOn {
		t.Errorf("settings lost")
	}

	// Another key fails, naming the plugin.
	other, _ := NewKey()
	if _, err := OpenFileStore(path, other); err == nil || !strings.Contains(err.Error(), `"a"`) && !strings.Contains(err.Error(), `"o"`) {
		t.Errorf("another key: %v", err)
	}
	// A credential moved to another row does not decrypt there.
	swapped := bytes.Replace(data, []byte(`"id": "a"`), []byte(`"id": "x"`), 1)
	os.WriteFile(path, swapped, 0o600)
	if _, err := OpenFileStore(path, key); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a credential bound to another id: %v", err)
	}
	// Bad keys and bad files.
	if _, err := OpenFileStore(path, key[:16]); err == nil {
		t.Errorf("a 16-byte key was taken")
	}
	for name, body := range map[string]string{
		"not JSON":     "{",
		"a version":    `{"version":2}`,
		"no id":        `{"version":1,"installed_plugins":[{"url":"x"}]}`,
		"orphan tool":  `{"version":1,"plugin_tools":[{"plugin_id":"gone","name":"t"}]}`,
		"twice":        `{"version":1,"installed_plugins":[{"id":"a","url":"x"},{"id":"a","url":"y"}]}`,
		"one URL":      `{"version":1,"installed_plugins":[{"id":"a","url":"x"},{"id":"b","url":"x"}]}`,
		"bad base64":   `{"version":1,"installed_plugins":[{"id":"a","url":"x","credential_ciphertext":"!!"}]}`,
		"short cipher": `{"version":1,"installed_plugins":[{"id":"a","url":"x","credential_ciphertext":"AAAA"}]}`,
	} {
		os.WriteFile(path, []byte(body), 0o600)
		if _, err := OpenFileStore(path, key); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

func TestFileStoreWriteFailureUndoes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	key, _ := NewKey()
	// The store's path is a folder: the rename over it fails for anyone.
	path := filepath.Join(dir, "plugins.json")
	s, _ := OpenFileStore(path, key)
	os.MkdirAll(filepath.Join(path, "x"), 0o700)
	if err := s.PutPlugin(ctx, samplePlugin("b", "https://b.dev/mcp")); err == nil {
		t.Fatal("a write over a folder succeeded")
	}
	if _, err := s.Plugin(ctx, "b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a change whose write failed stayed in memory")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed write left files: %v", ents)
	}
}

func FuzzFileStoreOpen(f *testing.F) {
	key := bytes.Repeat([]byte{7}, KeySize)
	f.Add([]byte(`{"version":1,"installed_plugins":[{"id":"a","url":"x","hosts":["h"]}],"plugin_tools":[{"plugin_id":"a","name":"t"}],"plugin_settings":{"third_party_on":true}}`))
	f.Add([]byte(`{"version":1,"installed_plugins":[{"id":"a","url":"x","credential_ciphertext":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "p.json")
		os.WriteFile(path, data, 0o600)
		s, err := OpenFileStore(path, key)
		if err != nil {
			return
		}
		// What opened can be listed and written back.
		ctx := context.Background()
		rows, _ := s.Plugins(ctx)
		for _, p := range rows {
			s.Tools(ctx, p.ID)
		}
		if err := s.PutSettings(ctx, PluginSettings{}); err != nil {
			t.Fatalf("writing back an opened store: %v", err)
		}
		if _, err := OpenFileStore(path, key); err != nil {
			t.Fatalf("a store written back does not open: %v", err)
		}
	})
}
