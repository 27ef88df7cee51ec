package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/registry"
)

// signedRegistry serves /plugins.json and its Sigstore bundle, signed with
// a key pair made for the test, and counts the fetches.
type signedRegistry struct {
	t      *testing.T
	key    *ecdsa.PrivateKey
	pubPEM []byte
	srv    *httptest.Server

	mu      sync.Mutex
	list    []byte
	bundle  []byte
	fetches int
}

func newSignedRegistry(t *testing.T) *signedRegistry {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(key.Public())
	r := &signedRegistry{t: t, key: key, pubPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		switch req.URL.Path {
		case "/plugins.json":
			r.fetches++
			w.Write(r.list)
		case "/plugins.json.sigstore.json":
			w.Write(r.bundle)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// publish signs and serves a list; tamper changes it after signing.
func (r *signedRegistry) publish(list string, tamper bool) {
	r.t.Helper()
	bundle, err := registry.SignBytes(r.key, []byte(list))
	if err != nil {
		r.t.Fatal(err)
	}
	if tamper {
		list = strings.Replace(list, "Read-only", "Read-write", 1)
	}
	r.mu.Lock()
	r.list, r.bundle = []byte(list), bundle
	r.mu.Unlock()
}

func (r *signedRegistry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetches
}

func (r *signedRegistry) verifier(t *testing.T) Verifier {
	v, err := registry.NewVerifier(registry.Trust{PublicKey: r.pubPEM})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// registryJSON is a small registry our own: one plugin, and removed ids.
func registryJSON(generatedAt string, removed ...string) string {
	return registryJSONWith(generatedAt, "quill-notes", removed...)
}

// registryJSONWith is registryJSON whose one plugin has id.
func registryJSONWith(generatedAt, id string, removed ...string) string {
	var rm []string
	for _, id := range removed {
		rm = append(rm, fmt.Sprintf(`{"id":%q,"reason":"Its publisher stopped running it."}`, id))
	}
	return `{"schema_version":1,"generated_at":"` + generatedAt + `","plugins":[{
"id":"` + id + `","name":"Quill Notes","description":"Read-only search of your Quill notebooks.",
"author":"Quill Labs","publisher":"community","url":"https://mcp.quillnotes.dev/mcp","hosts":["mcp.quillnotes.dev"],
"access":"free","auth":{"type":"token","title":"Quill key","description":"Make one in Quill's settings."},
"privacy_policy":"https://quillnotes.dev/privacy","tools":["search"],"added":"2026-11"}],
"removed":[` + strings.Join(rm, ",") + `]}`
}

func TestRegistryFetch(t *testing.T) {
	ctx := context.Background()
	sr := newSignedRegistry(t)
	now := mustTime("2026-12-01T10:00:00Z")
	r := &Registry{Host: MustPluginHost(sr.srv.URL), Verifier: sr.verifier(t), Now: func() time.Time { return now }}

	sr.publish(registryJSON("2026-11-30T10:00:00Z"), false)
	list, at, err := r.Fetch(ctx)
	if err != nil || list == nil || list.Lookup("quill-notes") == nil || !at.Equal(now) {
		t.Fatalf("first fetch: %v %v %v", list, at, err)
	}

	steps := []struct {
		name      string
		advance   time.Duration
		publish   string
		tamper    bool
		fetched   bool // a request was made
		wantErr   error
		wantGenAt string // the copy held afterwards
	}{
		{"within five minutes nothing is fetched", 4 * time.Minute, registryJSON("2026-12-01T09:00:00Z"), false, false, nil, "2026-11-30T10:00:00Z"},
		{"after five minutes a newer list replaces it", 2 * time.Minute, "", false, true, nil, "2026-12-01T09:00:00Z"},
		{"a list whose signature does not verify is refused", 6 * time.Minute, registryJSON("2026-12-01T11:00:00Z"), true, true, registry.ErrNotVerified, "2026-12-01T09:00:00Z"},
		{"an older generated_at is refused", 6 * time.Minute, registryJSON("2026-11-29T00:00:00Z"), false, true, registry.ErrOlderList, "2026-12-01T09:00:00Z"},
		{"the same generated_at is kept", 6 * time.Minute, registryJSON("2026-12-01T09:00:00Z", "old-app"), false, true, nil, "2026-12-01T09:00:00Z"},
	}
	for _, st := range steps {
		if st.publish != "" {
			sr.publish(st.publish, st.tamper)
		}
		now = now.Add(st.advance)
		before := sr.count()
		list, _, err := r.Fetch(ctx)
		if (sr.count() > before) != st.fetched {
			t.Errorf("%s: fetched %d times", st.name, sr.count()-before)
		}
		if st.wantErr == nil && err != nil || st.wantErr != nil && !errors.Is(err, st.wantErr) {
			t.Errorf("%s: err = %v, want %v", st.name, err, st.wantErr)
		}
		if list == nil || list.GeneratedAt.Format(time.RFC3339) != st.wantGenAt {
			t.Errorf("%s: held %v, want generated_at %s", st.name, list, st.wantGenAt)
		}
	}
	if held, _ := r.Held(); len(held.Removed) != 1 {
		t.Errorf("the same generated_at did not replace the held copy: %+v", held.Removed)
	}
}

func TestRegistryWithoutVerifierRefusesEverything(t *testing.T) {
	sr := newSignedRegistry(t)
	sr.publish(registryJSON("2026-11-30T10:00:00Z"), false)
	r := &Registry{Host: MustPluginHost(sr.srv.URL)}
	list, _, err := r.Fetch(context.Background())
	if err == nil || list != nil {
		t.Fatalf("an unverified list was used: %v %v", list, err)
	}
}

func TestRegistryPlugins(t *testing.T) {
	ctx := context.Background()
	sr := newSignedRegistry(t)
	sr.publish(registryJSON("2026-11-30T10:00:00Z"), false)
	now := mustTime("2026-12-01T10:00:00Z")
	st := &MemoryStore{}
	reg := &Registry{Host: MustPluginHost(sr.srv.URL), Verifier: sr.verifier(t), Now: func() time.Time { return now }}
	c := &Client{Store: st, Registry: reg, Now: func() time.Time { return now }}

	// Off: nothing is fetched.
	v, err := c.RegistryPlugins(ctx)
	if err != nil || !v.ThirdPartyOff || sr.count() != 0 {
		t.Fatalf("third-party off: %+v %v, fetched %d", v, err, sr.count())
	}
	c.SetThirdPartyAllowed(ctx, true)

	// The plugin host switched off: nothing is fetched, 403 for its host.
	c.Egress = &Consents{}
	_, err = c.RegistryPlugins(ctx)
	wantError(t, err, 403, CodeEgressDisabled)
	if sr.count() != 0 {
		t.Errorf("fetched with the plugin host off")
	}
	c.Egress = nil

	// A registry plugin and a custom plugin with the id that will be removed.
	st.PutPlugin(ctx, InstalledPlugin{ID: "quill-notes", Name: "Quill Notes", Source: SourceRegistry, Entry: "quill-notes", URL: "https://mcp.quillnotes.dev/mcp", Enabled: true, CredentialKind: CredentialToken, Credential: "k"})
	st.PutTools(ctx, "quill-notes", []PluginTool{{Name: "search", Enabled: true, Annotations: Annotations{ReadOnlyHint: yes}}})
	st.PutPlugin(ctx, InstalledPlugin{ID: "quill-notes-mine", Name: "Mine", Source: SourceCustom, Entry: "", URL: "https://other.dev/mcp", Enabled: true})
	v, err = c.RegistryPlugins(ctx)
	if err != nil || len(v.Plugins) != 1 || !v.FetchedAt.Equal(now) {
		t.Fatalf("view = %+v, %v", v, err)
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 1 {
		t.Fatalf("ready before removal = %+v", ready)
	}

	// The registry removes it.
	now = now.Add(6 * time.Minute)
	sr.publish(registryJSONWith("2026-12-01T12:00:00Z", "quill-notes-2", "quill-notes"), false)
	v, err = c.RegistryPlugins(ctx)
	if err != nil || len(v.Removed) != 1 {
		t.Fatalf("view = %+v, %v", v, err)
	}
	p, _ := st.Plugin(ctx, "quill-notes")
	if p.RemovedReason != "Its publisher stopped running it." || p.Credential != "k" {
		t.Errorf("removed row = %+v; it keeps its row and key and carries the reason", p)
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 0 {
		t.Errorf("a removed plugin's tools are ready: %+v", ready)
	}
	if mine, _ := st.Plugin(ctx, "quill-notes-mine"); mine.RemovedReason != "" {
		t.Errorf("a custom plugin was marked removed")
	}
}
