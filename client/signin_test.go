package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/registry"
)

// callback GETs the client's callback with rawQuery, as the browser would
// when the plugin host forwards it, and returns the status and page.
func callback(t *testing.T, c *Client, method, rawQuery string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s?%s", c.CallbackPort, CallbackPath, rawQuery), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("callback page Cache-Control %q", cc)
	}
	return resp.StatusCode, string(b)
}

func stateOf(t *testing.T, si SignIn) string {
	t.Helper()
	u, err := url.Parse(si.AuthorizationURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("state")
}

// TestSignInCallbackAnswersOnlyItsStates: the callback answers only a state
// this client issued, once; a provider's error ends the sign-in, and
// access_denied is declined. No browser: the provider's redirect is made
// here, against a real oidc-provider that registered the client.
func TestSignInCallbackAnswersOnlyItsStates(t *testing.T) {
	r := newOIDCRig(t, 10*time.Minute)
	c := r.c
	ctx := context.Background()
	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	si := startedSignIn(t, err)
	state := stateOf(t, si)
	nonce := state[strings.IndexByte(state, '.')+1:]

	for _, tc := range []struct{ name, method, query string }{
		{"no state", "GET", "code=abc"},
		{"state twice", "GET", "code=abc&state=" + state + "&state=" + state},
		{"another port", "GET", fmt.Sprintf("code=abc&state=%d.%s", c.CallbackPort+1, nonce)},
		{"no port", "GET", "code=abc&state=" + nonce},
		{"a nonce this client never issued", "GET", fmt.Sprintf("code=abc&state=%d.NOTANONCE", c.CallbackPort)},
		{"a post", "POST", "code=abc&state=" + state},
	} {
		status, page := callback(t, c, tc.method, tc.query)
		if status != 400 && status != 405 {
			t.Errorf("%s: status %d", tc.name, status)
		}
		if strings.Contains(page, "abc") || strings.Contains(page, nonce) {
			t.Errorf("%s: the page repeats the query:\n%s", tc.name, page)
		}
	}
	if st, _ := c.SignInStatus(si.ID); st.Status != SignInWaiting {
		t.Fatalf("a refused callback changed the sign-in: %+v", st)
	}

	status, page := callback(t, c, "GET", "error=access_denied&error_description=no+thanks&state="+url.QueryEscape(state))
	if status != 200 || !strings.Contains(page, "declined") {
		t.Errorf("declined: %d %s", status, page)
	}
	st, err := c.SignInStatus(si.ID)
	if err != nil || st.Status != SignInFailed || st.Failure != FailDeclined || st.Message == "" {
		t.Errorf("status = %+v, %v", st, err)
	}
	// The state answered once.
	if status, page := callback(t, c, "GET", "code=abc&state="+url.QueryEscape(state)); status != 400 || !strings.Contains(page, "ended") {
		t.Errorf("the state answered twice: %d %s", status, page)
	}
	// Another provider error is provider_error, with its words.
	_, err = c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	si2 := startedSignIn(t, err)
	callback(t, c, "GET", "error=server_error&error_description=try+later&state="+url.QueryEscape(stateOf(t, si2)))
	if st, _ := c.SignInStatus(si2.ID); st.Failure != FailProviderError || !strings.Contains(st.Message, "try later") {
		t.Errorf("status = %+v", st)
	}
	if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
		t.Errorf("failed sign-ins stored %v", rows)
	}
}

// TestSignInReplacedAbandonedExpired: a new sign-in for the same plugin
// cancels the earlier; DELETE abandons one and forgets it; one not finished
// in its lifetime fails as expired and is forgotten. None stores anything.
func TestSignInReplacedAbandonedExpired(t *testing.T) {
	r := newOIDCRig(t, 10*time.Minute)
	c := r.c
	ctx := context.Background()

	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	first := startedSignIn(t, err)
	_, err = c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	second := startedSignIn(t, err)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := c.WaitSignIn(wctx, first.ID)
	if err != nil || st.Status != SignInFailed || st.Failure != FailReplaced {
		t.Errorf("the earlier sign-in = %+v, %v; want failed, replaced", st, err)
	}
	if status, _ := callback(t, c, "GET", "code=abc&state="+url.QueryEscape(stateOf(t, first))); status != 400 {
		t.Errorf("the replaced sign-in's state was answered: %d", status)
	}
	if st, _ := c.SignInStatus(second.ID); st.Status != SignInWaiting {
		t.Errorf("the newer sign-in = %+v", st)
	}

	if err := c.AbandonSignIn(second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignInStatus(second.ID); !IsCode(err, CodeSignInNotFound) {
		t.Errorf("an abandoned sign-in is still held: %v", err)
	}
	if err := c.AbandonSignIn(second.ID); !IsCode(err, CodeSignInNotFound) {
		t.Errorf("abandoning twice = %v, want 404", err)
	}
	if status, _ := callback(t, c, "GET", "code=abc&state="+url.QueryEscape(stateOf(t, second))); status != 400 {
		t.Errorf("the abandoned sign-in's state was answered: %d", status)
	}

	c.signInLifetime = 3 * time.Second
	_, err = c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	third := startedSignIn(t, err)
	st, err = c.WaitSignIn(wctx, third.ID)
	if err != nil || st.Failure != FailExpired {
		t.Errorf("a sign-in past its lifetime = %+v, %v; want failed, expired", st, err)
	}
	if _, err := c.SignInStatus(third.ID); !IsCode(err, CodeSignInNotFound) {
		t.Errorf("an expired sign-in is still held: %v", err)
	}
	if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
		t.Errorf("rows: %v", rows)
	}
	// Only the replaced one is held, to be polled until its ten minutes
	// pass.
	if n := c.signInCount(); n != 1 {
		t.Errorf("%d sign-ins held, want the replaced one", n)
	}
	if st, err := c.SignInStatus(first.ID); err != nil || st.Failure != FailReplaced {
		t.Errorf("the replaced sign-in = %+v, %v", st, err)
	}
}

// TestSignInUnpackaged: an unpackaged API registers dynamically with its
// own loopback callback (RFC 8252), and the browser comes straight back.
func TestSignInUnpackaged(t *testing.T) {
	chromium := needChromium(t)
	r := newOIDCRig(t, 10*time.Minute)
	c := &Client{Store: &MemoryStore{}, CallbackPort: r.c.CallbackPort, SignInAs: SignInAs{Unpackaged: true}}
	r.serve(c)
	ctx := context.Background()
	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	si := startedSignIn(t, err)
	checkAuthorizationURL(t, si.AuthorizationURL, c.CallbackPort, fmt.Sprintf("http://127.0.0.1:%d%s", c.CallbackPort, CallbackPath), r.mcp.URL())
	if page := browse(t, chromium, oidcConsent(si.AuthorizationURL)...); !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("the last page says %q", page)
	}
	if r.host.hits() != 0 {
		t.Errorf("an unpackaged sign-in went through the plugin host's page")
	}
	if cred := credentialOf(t, c, "calendar"); cred.Registration != RegistrationDynamic || !strings.HasPrefix(cred.RedirectURL, "http://127.0.0.1:") {
		t.Errorf("credential = %v, redirect %s", cred, cred.RedirectURL)
	}
}

// TestSignInPreregisteredClient: a registry entry's auth.client_id is used
// as a client registered in advance, asking for its auth.scopes, and the
// plugin is stored as the registry's.
func TestSignInPreregisteredClient(t *testing.T) {
	chromium := needChromium(t)
	r := newOIDCRig(t, 10*time.Minute)
	entry := registry.Entry{ID: "calendar", Name: "Calendar", Author: "Acme", Publisher: registry.PublisherCommunity,
		URL: r.mcp.URL(), Hosts: []string{"127.0.0.1"},
		Auth: registry.Auth{Type: registry.AuthOAuth, ClientID: "surfsense-preregistered", Scopes: []string{"openid", "mcp"}}}
	c := registryClient(t, entry)
	c.Lister = nil
	c.CallbackPort, c.SignInAs = r.c.CallbackPort, SignInAs{PublicClient: r.host.URL}
	r.serve(c)
	ctx := context.Background()
	_, err := c.ConnectRegistry(ctx, "calendar", "")
	si := startedSignIn(t, err)
	q := checkAuthorizationURL(t, si.AuthorizationURL, c.CallbackPort, r.host.URL+"/oauth/callback", r.mcp.URL())
	if q.Get("client_id") != "surfsense-preregistered" {
		t.Errorf("client_id %q, want the entry's", q.Get("client_id"))
	}
	if scopes := strings.Fields(q.Get("scope")); !slices.Contains(scopes, "openid") || !slices.Contains(scopes, "mcp") {
		t.Errorf("scope %q, want the entry's openid and mcp", q.Get("scope"))
	}
	if page := browse(t, chromium, oidcConsent(si.AuthorizationURL)...); !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("the last page says %q", page)
	}
	p, err := c.Store.Plugin(ctx, "calendar")
	if err != nil || p.Source != SourceRegistry || p.Entry != "calendar" || p.Publisher != "Acme" || p.CredentialKind != CredentialOAuth {
		t.Fatalf("row = %v, %v", p, err)
	}
	if cred := credentialOf(t, c, "calendar"); cred.Registration != RegistrationPreregistered || cred.ClientID != "surfsense-preregistered" || cred.ClientSecret != "" {
		t.Errorf("credential = %v", cred)
	}
}

// TestSignInClientByBuild: who each build signs in as.
func TestSignInClientByBuild(t *testing.T) {
	for _, tc := range []struct {
		name          string
		c             *Client
		meta, to, err string
	}{
		{"packaged", &Client{CallbackPort: 8000}, "https://plugins.surfsense.com/oauth/client.json", "https://plugins.surfsense.com/oauth/callback", ""},
		{"local plugin host", &Client{CallbackPort: 8000, Host: MustPluginHost("http://127.0.0.1:9000")}, "", "http://127.0.0.1:8000/plugins/oauth/callback", ""},
		{"unpackaged", &Client{CallbackPort: 8000, SignInAs: SignInAs{Unpackaged: true}}, "", "http://127.0.0.1:8000/plugins/oauth/callback", ""},
		{"another plugin host", &Client{CallbackPort: 8000, SignInAs: SignInAs{PublicClient: "https://plugins.example.com/"}}, "https://plugins.example.com/oauth/client.json", "https://plugins.example.com/oauth/callback", ""},
		{"an http public client", &Client{CallbackPort: 8000, SignInAs: SignInAs{PublicClient: "http://plugins.example.com"}}, "", "", "want the https origin"},
		{"no callback", &Client{}, "", "", "set Client.CallbackPort"},
	} {
		got, err := tc.c.signInClient()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.metadataURL != tc.meta || got.redirectURL != tc.to {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
		}
	}
}

// TestSignInAgainRefusals: a plugin that does not sign in with an account
// is 422 plugin_not_oauth; one whose hosts are off is 403 and starts
// nothing.
func TestSignInAgainRefusals(t *testing.T) {
	ctx := context.Background()
	c := &Client{Store: &MemoryStore{}, CallbackPort: 8000}
	keyed := InstalledPlugin{ID: "keyed", Name: "Keyed", Kind: "remote", Source: SourceCustom, URL: "https://keyed.example/mcp", Hosts: []string{"keyed.example"}, Enabled: true, CredentialKind: CredentialToken, Credential: "k"}
	oauth := InstalledPlugin{ID: "cal", Name: "Cal", Kind: "remote", Source: SourceCustom, URL: "https://cal.example/mcp", Hosts: []string{"cal.example", "auth.example"}, Enabled: true, CredentialKind: CredentialOAuth}
	for _, p := range []InstalledPlugin{keyed, oauth} {
		if err := c.Store.PutPlugin(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SignInAgain(ctx, "keyed"); !IsCode(err, CodeNotOAuth) {
		t.Errorf("SignInAgain on a key plugin = %v, want plugin_not_oauth", err)
	}
	if _, err := c.SignInAgain(ctx, "nope"); !IsCode(err, CodeNotFound) {
		t.Errorf("SignInAgain on no plugin = %v, want 404", err)
	}
	c.Egress = EgressFunc(func(h string) bool { return h == "cal.example" })
	_, err := c.SignInAgain(ctx, "cal")
	var ae *Error
	if !errors.As(err, &ae) || ae.Code != CodeEgressDisabled || !slices.Equal(ae.Hosts, []string{"auth.example"}) {
		t.Errorf("SignInAgain with the sign-in host off = %v", err)
	}
	if c.signInCount() != 0 {
		t.Error("a sign-in started with a host off")
	}
}

// TestSignInStartTimesOut: an authorization server that does not get the
// sign-in ready (here its registration never answers) within the start
// timeout is 502 plugin_sign_in_failed, and nothing is held or stored; one
// that refuses registration fails at once.
func TestSignInStartTimesOut(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		register http.HandlerFunc
		says     string
	}{
		{"registration hangs", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so that the server sees the client leave
			<-r.Context().Done()
		}, "did not get the sign-in ready"},
		{"registration refused", func(w http.ResponseWriter, r *http.Request) { http.Error(w, `{"error":"access_denied"}`, 403) }, "would not register"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newAuthServer(t)
			reg := httptest.NewServer(tc.register)
			defer reg.Close()
			s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
			s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+as.URL+`/prm"`)
				refuse(w, 401, "")
				return true
			})
			as.resource = s.URL()
			as.registration = reg.URL
			c := &Client{Store: &MemoryStore{}, Lister: quickLister(), CallbackPort: 8000, SignInAs: SignInAs{Unpackaged: true}}
			c.signInStartTimeout = 300 * time.Millisecond
			_, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Calendar"})
			e := wantError(t, err, 502, CodeSignInFailed)
			if !strings.Contains(e.Error(), tc.says) {
				t.Errorf("err = %v, want it to say %q", e, tc.says)
			}
			if c.signInCount() != 0 {
				t.Errorf("a sign-in that did not start is held")
			}
		})
	}
}

// TestSignInAuthorizationServerHostAskedFirst: a server whose authorization
// server is on another host (oidc-provider at localhost, the MCP server at
// 127.0.0.1): that host is asked about before any request reaches it, 403
// egress_disabled for a plugin while it is off; once allowed, the sign-in
// starts, the host is among the plugin's hosts, and readiness needs it.
func TestSignInAuthorizationServerHostAskedFirst(t *testing.T) {
	node := needNode(t, "oidc-provider")
	ctx := context.Background()
	ps := newProtectedServer(t, "list_events")
	secret := randomTestSecret(t)
	issuer := startAuthServer(t, node, "oidc.mjs", "RESOURCE="+ps.URL(), "RS_SECRET="+secret, "ISSUER_HOST=localhost").Issuer
	if !strings.HasPrefix(issuer, "http://localhost:") {
		t.Fatalf("issuer %s", issuer)
	}
	ps.trust(t, issuer, "mcp-resource-server", secret)
	port, use := callbackServer(t)
	consents := &Consents{}
	consents.Allow("127.0.0.1")
	c := &Client{Store: &MemoryStore{}, Egress: consents, CallbackPort: port, SignInAs: SignInAs{Unpackaged: true}}
	use(c)

	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: ps.URL(), Name: "Calendar"})
	e := wantError(t, err, 403, CodeEgressDisabled)
	if e.Purpose != PurposePlugin || len(e.Hosts) != 1 || e.Hosts[0] != "localhost" {
		t.Errorf("refusal = %+v, want localhost for a plugin", e)
	}
	if c.signInCount() != 0 {
		t.Error("a sign-in started with its authorization server's host off")
	}

	consents.Allow("localhost")
	_, err = c.ConnectCustom(ctx, CustomPlugin{URL: ps.URL(), Name: "Calendar"})
	var se *SignInRequiredError
	if !errors.As(err, &se) || se.SignIn == nil {
		t.Fatalf("err = %v, want a sign-in", err)
	}
	if !slices.Equal(se.Hosts, []string{"127.0.0.1", "localhost"}) {
		t.Errorf("the sign-in's hosts = %v, want the server's and the authorization server's", se.Hosts)
	}
	if u, _ := url.Parse(se.SignIn.AuthorizationURL); u.Hostname() != "localhost" {
		t.Errorf("authorization URL on %s", u.Hostname())
	}

	// Signed in, the plugin needs both hosts allowed to be ready.
	chromium := needChromium(t)
	if page := browse(t, chromium, oidcConsent(se.SignIn.AuthorizationURL)...); !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("the last page says %q", page)
	}
	c.SetThirdPartyAllowed(ctx, true)
	p, err := c.Store.Plugin(ctx, "calendar")
	if err != nil || !slices.Equal(p.Hosts, []string{"127.0.0.1", "localhost"}) {
		t.Fatalf("row = %v, %v; want both hosts", p, err)
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 1 {
		t.Errorf("ready = %v", ready)
	}
	c.Egress = EgressFunc(func(h string) bool { return h == "127.0.0.1" })
	if ready, _ := c.ReadyTools(ctx); len(ready) != 0 {
		t.Errorf("ready with the authorization server's host off = %v", ready)
	}
}
