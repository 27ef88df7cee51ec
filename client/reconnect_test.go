package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// keyedStandIn is a stand-in that takes only the keys in good.
func keyedStandIn(t *testing.T, good map[string]bool) *standIn {
	t.Helper()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."), readOnlyTool("save", "Saves."))
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		a := r.Header.Get("Authorization")
		if len(a) < 7 || !good[a[7:]] {
			refuse(w, 401, "")
			return true
		}
		return false
	})
	return s
}

// TestReplaceKey: only a key the server accepts replaces the old one,
// recorded as a check, the tool settings kept; a refused key is the same 422
// as connecting and nothing is saved; a disconnected plugin with a key
// connects again through it.
func TestReplaceKey(t *testing.T) {
	ctx := context.Background()
	good := map[string]bool{"old-key": true}
	s := keyedStandIn(t, good)
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	if _, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes", Token: "old-key"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetToolEnabled(ctx, "notes", "save", false); err != nil {
		t.Fatal(err)
	}
	// The server stops taking the old key: the check says sign_in.
	delete(good, "old-key")
	if p, _ := c.Check(ctx, "notes"); p.CheckFailure != CheckSignIn {
		t.Fatalf("check = %v", p)
	}

	_, err := c.ReplaceKey(ctx, "notes", "wrong-key")
	wantError(t, err, 422, CodeNeedsSignIn)
	if p, _ := c.Store.Plugin(ctx, "notes"); p.Credential != "old-key" {
		t.Errorf("a refused key was saved")
	}
	for _, bad := range []struct{ key, code string }{{"", CodeNeedsKey}, {"  ", CodeNeedsKey}, {"a\nb", CodeBadKey}} {
		_, err := c.ReplaceKey(ctx, "notes", bad.key)
		wantError(t, err, 422, bad.code)
	}

	good["new-key"] = true
	p, err := c.ReplaceKey(ctx, "notes", " new-key ")
	if err != nil {
		t.Fatal(err)
	}
	if p.Credential != "new-key" || p.CheckFailure != CheckOK || p.CredentialKind != CredentialToken {
		t.Errorf("row = %v", p)
	}
	if tl := toolsByName(t, c, "notes"); tl["save"].Enabled || !tl["find"].Enabled {
		t.Errorf("tool settings lost: %+v", tl)
	}

	// Disconnected with a key: Connect asks for the key; ReplaceKey connects.
	if err := c.Disconnect(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Connect(ctx, "notes")
	wantError(t, err, 422, CodeNeedsKey)
	p, err = c.ReplaceKey(ctx, "notes", "new-key")
	if err != nil || p.Disconnected() || p.Credential != "new-key" {
		t.Fatalf("connecting again with the key = %v, %v", p, err)
	}
	if tl := toolsByName(t, c, "notes"); tl["save"].Enabled {
		t.Errorf("tool settings lost on connecting again")
	}
	_, err = c.ReplaceKey(ctx, "nope", "k")
	wantError(t, err, 404, CodeNotFound)
}

// TestConnectAgain: a disconnected plugin that needs nothing entered
// connects again as at first connect, keeping its tool settings; one that is
// not disconnected is 409; OAuth ones need an account; a server gone is 502
// and the plugin stays disconnected.
func TestConnectAgain(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."), readOnlyTool("save", "Saves."))
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	if _, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Connect(ctx, "notes")
	wantError(t, err, 409, CodeAlreadyConnected)
	c.SetToolApproval(ctx, "notes", "find", ApprovalAlways)
	if err := c.Disconnect(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Check(ctx, "notes"); !IsCode(err, CodeDisconnected) {
		t.Errorf("Refresh tools on a disconnected plugin = %v, want 409 plugin_disconnected", err)
	}
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		refuse(w, 503, "")
		return true
	})
	_, err = c.Connect(ctx, "notes")
	wantError(t, err, 502, CodeUnreachable)
	if p, _ := c.Store.Plugin(ctx, "notes"); !p.Disconnected() {
		t.Error("a failed connect connected the plugin")
	}
	s.setIntercept(nil)
	p, err := c.Connect(ctx, "notes")
	if err != nil || p.Disconnected() || p.CheckFailure != CheckOK {
		t.Fatalf("connect again = %v, %v", p, err)
	}
	if tl := toolsByName(t, c, "notes"); tl["find"].Approval != ApprovalAlways {
		t.Errorf("tool settings lost: %+v", tl)
	}

	oauth := InstalledPlugin{ID: "cal", Name: "Cal", Kind: "remote", Source: SourceCustom, URL: "https://cal.example/mcp", Hosts: []string{"cal.example"}, Enabled: true, CredentialKind: CredentialOAuth}
	c.Store.PutPlugin(ctx, oauth)
	c.Disconnect(ctx, "cal")
	_, err = c.Connect(ctx, "cal")
	wantError(t, err, 422, CodeNeedsAccount)
	_, err = c.ReplaceKey(ctx, "cal", "k")
	wantError(t, err, 422, CodeNeedsAccount)
}

// TestPluginsView: GET /plugins names how each plugin signs in and whether
// it is disconnected, with its tools, and never its key.
func TestPluginsView(t *testing.T) {
	ctx := context.Background()
	s := keyedStandIn(t, map[string]bool{"the-key": true})
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	if _, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes", Token: "the-key"}); err != nil {
		t.Fatal(err)
	}
	c.Store.PutPlugin(ctx, InstalledPlugin{ID: "cal", Name: "Cal", URL: "https://cal.example/mcp", CredentialKind: CredentialOAuth,
		Credential: OAuthCredential{AccessToken: "the-token"}.Encode()})
	c.Disconnect(ctx, "cal")
	views, err := c.Plugins(ctx)
	if err != nil || len(views) != 2 {
		t.Fatalf("Plugins = %v, %v", views, err)
	}
	got := map[string]PluginView{}
	for _, v := range views {
		got[v.ID] = v
	}
	if v := got["notes"]; v.AuthType != "token" || v.Disconnected || len(v.Tools) != 2 {
		t.Errorf("notes = %+v", v)
	}
	if v := got["cal"]; v.AuthType != "oauth" || !v.Disconnected {
		t.Errorf("cal = %+v", v)
	}
	b, _ := json.Marshal(views)
	if strings.Contains(string(b), "the-key") || strings.Contains(string(b), "the-token") {
		t.Errorf("GET /plugins holds a secret: %s", b)
	}
}

// TestConnectAgainFirstParty: one of SurfSense's own plugins connects again
// as at first connect: with the license, and, refused, still connected, its
// check saying why; it is sent the key again only once connected.
func TestConnectAgainFirstParty(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(t, testFirstParty())
	h.setKey(testKey, "valid")
	c := firstPartyClient(t, h, StaticLicense{Key: testKey})
	if _, err := c.ConnectFirstParty(ctx, "amazon"); err != nil {
		t.Fatal(err)
	}
	if err := c.Disconnect(ctx, "amazon"); err != nil {
		t.Fatal(err)
	}
	p, _ := c.Store.Plugin(ctx, "amazon")
	if c.Headers(p, false).Get("Authorization") != "" {
		t.Error("a disconnected plugin is sent the license key")
	}
	h.setKey(testKey, "expired")
	p, err := c.Connect(ctx, "amazon")
	if err != nil || p.Disconnected() || p.CheckFailure != CheckLicenseExpired {
		t.Fatalf("connect again with an expired license = %v, %v", p, err)
	}
	if c.Headers(p, false).Get("Authorization") != "License "+testKey {
		t.Error("the plugin connected again is not sent the key")
	}
}
