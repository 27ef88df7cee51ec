package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/registry"
)

const testKey = "lic-key-0123456789"

// quickLister retries without waiting.
func quickLister() *Lister {
	return &Lister{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
}

func wantError(t *testing.T, err error, status int, code string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error %d %s", err, err, status, code)
	}
	if e.Status != status || e.Code != code {
		t.Fatalf("err = %d %s (%v), want %d %s", e.Status, e.Code, e, status, code)
	}
	return e
}

func firstPartyClient(t *testing.T, h *fakeHost, lic License) *Client {
	return &Client{
		Store: &MemoryStore{}, Host: MustPluginHost(h.URL()), License: lic,
		FirstParty: testFirstParty(), Lister: quickLister(),
	}
}

func TestConnectFirstParty(t *testing.T) {
	cases := []struct {
		name        string
		keyState    string // "" = no license imported; "unknown" = a key the host does not know
		wantFailure CheckFailure
	}{
		{"valid license", "valid", CheckOK},
		{"expired license still connects", "expired", CheckLicenseExpired},
		{"revoked license still connects", "revoked", CheckLicenseRevoked},
		{"unknown key still connects", "unknown", CheckLicenseInvalid},
		{"no license still connects", "", CheckNeedsLicense},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newFakeHost(t, testFirstParty())
			var lic License
			if tc.keyState != "" {
				if tc.keyState != "unknown" {
					h.setKey(testKey, tc.keyState)
				}
				lic = StaticLicense{Key: testKey}
			}
			c := firstPartyClient(t, h, lic)
			p, err := c.ConnectFirstParty(context.Background(), "amazon")
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != SourceFirstParty || p.CredentialKind != CredentialLicense || p.Credential != "" {
				t.Errorf("row = %+v: want first_party, license, no stored key", p)
			}
			if p.URL != h.URL()+"/amazon/mcp" {
				t.Errorf("URL = %q, want the local plugin host's", p.URL)
			}
			if p.CheckFailure != tc.wantFailure {
				t.Errorf("check_failure = %q, want %q", p.CheckFailure, tc.wantFailure)
			}
			tools, _ := c.Store.Tools(context.Background(), "amazon")
			if tc.wantFailure == CheckOK {
				if len(tools) != 2 || !tools[0].Enabled || !tools[1].Enabled {
					t.Errorf("tools = %+v, want scrape and get_result on", tools)
				}
			} else if len(tools) != 0 {
				t.Errorf("a refused listing recorded tools %+v", tools)
			}
			for _, r := range h.seen() {
				want := ""
				if tc.keyState != "" {
					want = "License " + testKey
				}
				if r.Auth != want {
					t.Errorf("%s %s carried Authorization %q, want %q", r.Method, r.Path, r.Auth, want)
				}
			}
		})
	}
}

func TestConnectFirstPartyRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("not listed is 404", func(t *testing.T) {
		h := newFakeHost(t, testFirstParty())
		_, err := firstPartyClient(t, h, nil).ConnectFirstParty(ctx, "reddit")
		wantError(t, err, 404, CodeNotFound)
	})
	t.Run("connected already is 409", func(t *testing.T) {
		h := newFakeHost(t, testFirstParty())
		h.setKey(testKey, "valid")
		c := firstPartyClient(t, h, StaticLicense{Key: testKey})
		if _, err := c.ConnectFirstParty(ctx, "amazon"); err != nil {
			t.Fatal(err)
		}
		_, err := c.ConnectFirstParty(ctx, "amazon")
		wantError(t, err, 409, CodeAlreadyConnected)
	})
	t.Run("its URL connected as a custom plugin is 409", func(t *testing.T) {
		h := newFakeHost(t, testFirstParty())
		c := firstPartyClient(t, h, nil)
		c.Store.PutPlugin(ctx, InstalledPlugin{ID: "mine", Source: SourceCustom, URL: h.URL() + "/amazon/mcp", Enabled: true})
		_, err := c.ConnectFirstParty(ctx, "amazon")
		wantError(t, err, 409, CodeAlreadyConnected)
	})
	t.Run("host not allowed is 403 and nothing is contacted", func(t *testing.T) {
		h := newFakeHost(t, testFirstParty())
		c := firstPartyClient(t, h, StaticLicense{Key: testKey})
		cons := &Consents{}
		c.Egress = cons
		_, err := c.ConnectFirstParty(ctx, "amazon")
		e := wantError(t, err, 403, CodeEgressDisabled)
		if !slices.Equal(e.Hosts, []string{"127.0.0.1"}) || e.Purpose != PurposePlugin {
			t.Errorf("hosts %v purpose %q", e.Hosts, e.Purpose)
		}
		if len(h.seen()) != 0 {
			t.Errorf("the host was contacted: %v", h.seen())
		}
		if cons.Off()["127.0.0.1"] != PurposePlugin {
			t.Errorf("the host was not recorded off: %v", cons.Off())
		}
	})
	t.Run("any other failure is 502 and nothing is stored", func(t *testing.T) {
		h := newFakeHost(t, testFirstParty())
		h.mcpHook = func(id string, w http.ResponseWriter, r *http.Request) bool {
			refuse(w, 500, "boom")
			return true
		}
		c := firstPartyClient(t, h, StaticLicense{Key: testKey})
		_, err := c.ConnectFirstParty(ctx, "amazon")
		wantError(t, err, 502, CodeUnreachable)
		if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
			t.Errorf("stored %v", rows)
		}
		if n := h.count("/amazon/mcp"); n != 3 {
			t.Errorf("asked %d times, want 3 (two retries)", n)
		}
	})
}

// TestLicenseKeyOnlyOnThePluginHost: a plugin connected on a local plugin
// host is sent no key once the build reaches another plugin host, and a
// license imported later is used at the next check.
func TestLicenseKeyOnlyOnThePluginHost(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(t, testFirstParty())
	h.setKey(testKey, "valid")
	store := &MemoryStore{}
	c := &Client{Store: store, Host: MustPluginHost(h.URL()), FirstParty: testFirstParty(), Lister: quickLister()}
	p, err := c.ConnectFirstParty(ctx, "google-search")
	if err != nil {
		t.Fatal(err)
	}
	if p.CheckFailure != CheckNeedsLicense {
		t.Fatalf("no license: failure %q", p.CheckFailure)
	}
	// A license imported later is used at the next check.
	c2 := &Client{Store: store, Host: MustPluginHost(h.URL()), License: StaticLicense{Key: testKey}, FirstParty: testFirstParty(), Lister: quickLister()}
	p, err = c2.Check(ctx, "google-search")
	if err != nil || p.CheckFailure != CheckOK || p.ListedAt.IsZero() {
		t.Fatalf("check with the license: %v, %+v", err, p)
	}
	// Its first listing that answered: every tool starts on, none marked.
	tools, _ := store.Tools(ctx, "google-search")
	if len(tools) != 2 || !tools[0].Enabled || !tools[1].Enabled || tools[0].Change != ChangeNone {
		t.Errorf("tools after the first answered listing = %+v", tools)
	}
	// The same build now reaching production: the stored URL is not on the
	// plugin host, so no key goes there.
	before := len(h.seen())
	c3 := &Client{Store: store, License: StaticLicense{Key: testKey}, FirstParty: testFirstParty(), Lister: quickLister()}
	p, err = c3.Check(ctx, "google-search")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range h.seen()[before:] {
		if r.Auth != "" {
			t.Errorf("%s %s carried %q off the plugin host", r.Method, r.Path, r.Auth)
		}
	}
	if p.CheckFailure != CheckNeedsLicense {
		t.Errorf("failure = %q, want needs_license from the host", p.CheckFailure)
	}
	if got := c3.Headers(p, true); len(got) != 0 {
		t.Errorf("turn headers off the plugin host = %v, want none", got)
	}
	if got := c2.Headers(p, true); got.Get("Authorization") != "License "+testKey || got.Get("x-surfsense-text-only") != "1" {
		t.Errorf("turn headers on the plugin host = %v", got)
	}
}

// registryClient is a client with third-party plugins on and a registry
// held, whose entries point at the given servers.
func registryClient(t *testing.T, entries ...registry.Entry) *Client {
	t.Helper()
	list := &registry.List{SchemaVersion: 1, GeneratedAt: mustTime("2026-11-30T10:00:00Z"), Plugins: entries,
		Removed: []registry.Removed{{ID: "old-notes", Reason: "stopped answering"}}}
	data, _ := json.Marshal(list)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	t.Cleanup(srv.Close)
	reg := &Registry{Host: MustPluginHost(srv.URL), Verifier: VerifierFunc(func(l, b []byte, held *registry.List) (*registry.List, error) {
		var out registry.List
		return &out, json.Unmarshal(l, &out)
	})}
	c := &Client{Store: &MemoryStore{}, FirstParty: testFirstParty(), Registry: reg, Lister: quickLister()}
	c.Store.PutSettings(context.Background(), PluginSettings{ThirdPartyOn: true})
	if _, _, err := reg.Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func regEntry(id, url, auth string, hosts ...string) registry.Entry {
	return registry.Entry{ID: id, Name: strings.ToUpper(id[:1]) + id[1:], Author: "Acme", Publisher: registry.PublisherCommunity,
		URL: url, Hosts: append([]string{urlHost(url)}, hosts...), Auth: registry.Auth{Type: auth, ClientID: "pre-registered", Scopes: []string{"read"}}}
}

func TestConnectRegistry(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds notes."))
	var gotAuth []string
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer good-token" {
			refuse(w, 401, "")
			return true
		}
		return false
	})
	t.Run("third-party off is 403", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken))
		c.SetThirdPartyAllowed(ctx, false)
		_, err := c.ConnectRegistry(ctx, "notes", "good-token")
		wantError(t, err, 403, CodeThirdPartyOff)
	})
	t.Run("not listed is 404, a removed id too", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken))
		_, err := c.ConnectRegistry(ctx, "other", "")
		wantError(t, err, 404, CodeNotFound)
		_, err = c.ConnectRegistry(ctx, "old-notes", "")
		wantError(t, err, 404, CodeNotFound)
	})
	t.Run("a token entry without its key is 422", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken))
		_, err := c.ConnectRegistry(ctx, "notes", "  ")
		wantError(t, err, 422, CodeNeedsKey)
	})
	t.Run("hosts not allowed are all named", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken, "auth.acme.dev", "cdn.acme.dev"))
		cons := &Consents{}
		cons.Allow("127.0.0.1")
		c.Egress = cons
		_, err := c.ConnectRegistry(ctx, "notes", "good-token")
		e := wantError(t, err, 403, CodeEgressDisabled)
		if !slices.Equal(e.Hosts, []string{"auth.acme.dev", "cdn.acme.dev"}) {
			t.Errorf("hosts = %v", e.Hosts)
		}
	})
	t.Run("a refused key is 422 plugin_needs_sign_in", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken))
		_, err := c.ConnectRegistry(ctx, "notes", "bad-token")
		wantError(t, err, 422, CodeNeedsSignIn)
	})
	t.Run("connected with its key as Bearer", func(t *testing.T) {
		c := registryClient(t, regEntry("notes", s.URL(), registry.AuthToken))
		gotAuth = nil
		p, err := c.ConnectRegistry(ctx, "notes", "good-token")
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != SourceRegistry || p.Entry != "notes" || p.Publisher != "Acme" || p.CredentialKind != CredentialToken || p.Credential != "good-token" {
			t.Errorf("row = %+v", p)
		}
		for _, a := range gotAuth {
			if a != "Bearer good-token" {
				t.Errorf("Authorization = %q", a)
			}
		}
		_, err = c.ConnectRegistry(ctx, "notes", "good-token")
		wantError(t, err, 409, CodeAlreadyConnected)
		// A custom plugin never takes a registry id, a removed one included.
		for name, want := range map[string]string{"Notes": "notes-plugin", "Old Notes": "old-notes-plugin"} {
			id, err := PluginID(name, c.reservedID)
			if err != nil || id != want {
				t.Errorf("PluginID(%q) = %q, %v; want %q", name, id, err, want)
			}
		}
	})
	t.Run("an oauth entry needs a sign-in", func(t *testing.T) {
		as := newAuthServer(t)
		o := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
		o.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+as.URL+`/prm?for=`+o.URL()+`"`)
			refuse(w, 401, "")
			return true
		})
		as.resource = o.URL()
		c := registryClient(t, regEntry("calendar", o.URL(), registry.AuthOAuth))
		_, err := c.ConnectRegistry(ctx, "calendar", "")
		var se *SignInRequiredError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want a sign-in", err)
		}
		if se.AuthorizationServer != as.URL || se.ClientID != "pre-registered" || !slices.Equal(se.Scopes, []string{"read"}) {
			t.Errorf("sign-in = %+v", se)
		}
		if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
			t.Errorf("a sign-in stored %v", rows)
		}
	})
}

func TestConnectCustom(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds notes."), &mcp.Tool{Name: "write", Description: "Writes.", InputSchema: map[string]any{"type": "object"}})
	base := func() *Client {
		return &Client{Store: &MemoryStore{}, FirstParty: testFirstParty(), Lister: quickLister()}
	}
	t.Run("connected with every tool on and its key kept", func(t *testing.T) {
		c := base()
		p, err := c.ConnectCustom(ctx, CustomPlugin{URL: strings.Replace(s.URL(), "http://", "HTTP://", 1) + "/#frag", Name: "My Notes!", Token: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != "my-notes" || p.Name != "My Notes!" || p.URL != s.URL() || p.Source != SourceCustom || p.Credential != "tok" {
			t.Errorf("row = %+v", p)
		}
		tools, _ := c.Store.Tools(ctx, p.ID)
		if len(tools) != 2 || !tools[0].Enabled || !tools[1].Enabled || tools[0].Change != ChangeNone {
			t.Errorf("tools = %+v", tools)
		}
		last := s.seen()[len(s.seen())-1]
		if last.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("Authorization = %q", last.Header.Get("Authorization"))
		}
		// The same server in another spelling, and the same name.
		_, err = c.ConnectCustom(ctx, CustomPlugin{URL: s.URL() + "/", Name: "Other"})
		wantError(t, err, 409, CodeAlreadyConnected)
		_, err = c.ConnectCustom(ctx, CustomPlugin{URL: "https://elsewhere.dev/mcp", Name: "my notes"})
		wantError(t, err, 409, CodeNameTaken)
	})
	t.Run("ids", func(t *testing.T) {
		for name, want := range map[string]string{"Amazon": "amazon-plugin", "SurfSense": "surfsense-plugin", "google search": "google-search-plugin", "Amazon Deals": "amazon-deals"} {
			c := base()
			p, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: name})
			if err != nil || p.ID != want {
				t.Errorf("%q: id %q, %v; want %q", name, p.ID, err, want)
			}
		}
		_, err := base().ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "!!!"})
		wantError(t, err, 422, CodeBadName)
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name   string
			in     CustomPlugin
			egress Egress
			status int
			code   string
		}{
			{"not a URL", CustomPlugin{URL: "ftp://x.dev/", Name: "x"}, nil, 422, CodeBadURL},
			{"credentials in the URL", CustomPlugin{URL: "https://u:p@x.dev/", Name: "x"}, nil, 422, CodeBadURL},
			{"http off this computer", CustomPlugin{URL: "http://notes.acme.dev/mcp", Name: "x"}, nil, 422, CodeNeedsHTTPS},
			{"host not allowed", CustomPlugin{URL: s.URL(), Name: "x"}, &Consents{}, 403, CodeEgressDisabled},
			{"a key with a newline", CustomPlugin{URL: s.URL(), Name: "x", Token: "a\nb"}, nil, 422, CodeBadKey},
			{"server down", CustomPlugin{URL: "http://127.0.0.1:1/mcp", Name: "x"}, nil, 502, CodeUnreachable},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				c := base()
				c.Egress = tc.egress
				_, err := c.ConnectCustom(ctx, tc.in)
				wantError(t, err, tc.status, tc.code)
				if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
					t.Errorf("stored %v", rows)
				}
			})
		}
	})
}

func TestConnectCustomSignIn(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		challenge func(as *authServer, s *standIn) string // WWW-Authenticate
		origin    bool                                    // the server's origin is its own authorization server
		token     string
		status    int // 0: a sign-in
		code      string
		asOff     bool
	}{
		{name: "resource metadata names the authorization server", challenge: func(as *authServer, s *standIn) string {
			return `Bearer realm="x", resource_metadata="` + as.Server.URL + `/prm"`
		}},
		{name: "no metadata but the origin is an authorization server", challenge: func(*authServer, *standIn) string { return `Bearer` }, origin: true},
		{name: "a 401 naming neither is a plain refusal", challenge: func(*authServer, *standIn) string { return `Bearer` }, status: 422, code: CodeNeedsSignIn},
		{name: "a 401 to a key is a plain refusal", challenge: func(as *authServer, s *standIn) string {
			return `Bearer resource_metadata="` + as.Server.URL + `/prm"`
		}, token: "some-key", status: 422, code: CodeNeedsSignIn},
		{name: "the authorization server's host is asked about first", challenge: func(as *authServer, s *standIn) string {
			return `Bearer resource_metadata="` + as.Server.URL + `/prm"`
		}, asOff: true, status: 403, code: CodeEgressDisabled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as := newAuthServer(t)
			s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
			as.resource = s.URL()
			s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
				if tc.origin && strings.HasPrefix(r.URL.Path, "/.well-known/") {
					as.serveMetadata(w, r, "http://"+r.Host)
					return true
				}
				w.Header().Set("WWW-Authenticate", tc.challenge(as, s))
				refuse(w, 401, "")
				return true
			})
			c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
			if tc.asOff {
				// The server is on 127.0.0.1; the authorization server is
				// named "localhost" and not allowed.
				as.URL = strings.Replace(as.URL, "127.0.0.1", "localhost", 1)
				cons := &Consents{}
				cons.Allow("127.0.0.1")
				c.Egress = cons
			}
			_, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Calendar", Token: tc.token})
			if tc.status != 0 {
				e := wantError(t, err, tc.status, tc.code)
				if tc.asOff {
					if !slices.Equal(e.Hosts, []string{"localhost"}) {
						t.Errorf("hosts = %v", e.Hosts)
					}
					if as.metadataRequests() != 0 {
						t.Errorf("the authorization server was contacted before consent")
					}
				}
				return
			}
			var se *SignInRequiredError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a sign-in", err)
			}
			if se.PluginID != "calendar" || se.URL != s.URL() || se.AuthServerMetadata == nil || se.AuthServerMetadata.TokenEndpoint == "" {
				t.Errorf("sign-in = %+v", se)
			}
			if tc.origin && (se.ResourceMetadataURL != "" || !strings.HasPrefix(s.URL(), se.AuthorizationServer)) {
				t.Errorf("origin sign-in = %+v", se)
			}
			if !tc.origin && (se.ResourceMetadata == nil || se.AuthorizationServer != as.URL) {
				t.Errorf("sign-in = %+v", se)
			}
			if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
				t.Errorf("a sign-in stored %v", rows)
			}
		})
	}
}

func TestConnectCancelled(t *testing.T) {
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
	ctx, cancel := context.WithCancel(context.Background())
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		cancel()
		refuse(w, 503, "")
		return true
	})
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled rather than a 502", err)
	}
}
