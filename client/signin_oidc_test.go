package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// oidcRig is a plugin whose server takes only oidc-provider's tokens, the
// TLS plugin host, and a client signing in as a packaged app through that
// host's pages.
type oidcRig struct {
	issuer string
	mcp    *protectedServer
	host   *tlsPluginHost
	c      *Client
	serve  func(*Client) // serves another client's callback on the same port
}

func newOIDCRig(t *testing.T, accessTTL time.Duration) *oidcRig {
	t.Helper()
	node := needNode(t, "oidc-provider")
	ps := newProtectedServer(t, "list_events", "create_event")
	h := startTLSPluginHost(t)
	port, serve := callbackServer(t)
	secret := randomTestSecret(t)
	loopback := fmt.Sprintf("http://127.0.0.1:%d%s", port, CallbackPath)
	issuer := startAuthServer(t, node, "oidc.mjs", "RESOURCE="+ps.URL(), "RS_SECRET="+secret,
		"ACCESS_TTL="+strconv.Itoa(int(accessTTL.Seconds())), "PREREGISTERED_REDIRECTS="+h.URL+"/oauth/callback "+loopback).Issuer
	ps.trust(t, issuer, "mcp-resource-server", secret)
	consents := &Consents{}
	consents.Allow("127.0.0.1")
	c := &Client{Store: &MemoryStore{}, Egress: consents, CallbackPort: port, SignInAs: SignInAs{PublicClient: h.URL}}
	serve(c)
	if err := c.SetThirdPartyAllowed(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	return &oidcRig{issuer: issuer, mcp: ps, host: h, c: c, serve: serve}
}

func randomTestSecret(t *testing.T) string {
	s, err := randomID()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// oidcConsent signs in at oidc-provider's pages and consents.
func oidcConsent(authURL string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.CSS(`input[name=login]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=login]`), "ada"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitReady(chromedp.CSS(`input[name=prompt][value=consent]`)),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		waitText("ign"),
	}
}

// startedSignIn returns the sign-in a connect started.
func startedSignIn(t *testing.T, err error) SignIn {
	t.Helper()
	var se *SignInRequiredError
	if !errors.As(err, &se) || se.SignIn == nil {
		t.Fatalf("err = %v, want a sign-in started", err)
	}
	return *se.SignIn
}

// checkAuthorizationURL checks the URL is shaped as SurfSense's
// authorization request: response_type=code, S256 PKCE, the state
// <port>.<nonce>, the redirect, and the resource.
func checkAuthorizationURL(t *testing.T, raw string, port int, redirect, resource string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("not a PKCE S256 code request: %v", q)
	}
	port2, nonce, ok := strings.Cut(q.Get("state"), ".")
	if !ok || port2 != strconv.Itoa(port) || len(nonce) < 16 {
		t.Errorf("state %q, want %d.<nonce>", q.Get("state"), port)
	}
	if q.Get("redirect_uri") != redirect {
		t.Errorf("redirect_uri %q, want %q", q.Get("redirect_uri"), redirect)
	}
	if q.Get("resource") != resource {
		t.Errorf("resource %q, want %q", q.Get("resource"), resource)
	}
	return q
}

func credentialOf(t *testing.T, c *Client, id string) OAuthCredential {
	t.Helper()
	p, err := c.Store.Plugin(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := ParseOAuthCredential(p.Credential)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// TestSignInOIDCProvider: a custom server whose authorization server offers
// only dynamic registration (oidc-provider) signs in as a packaged app
// does, through the plugin host's real callback page, then lists,
// refreshes before a turn, is refused and refreshed once, is refused a
// refresh, signs in again keeping its tool settings and its registered
// client, and is removed.
func TestSignInOIDCProvider(t *testing.T) {
	chromium := needChromium(t)
	r := newOIDCRig(t, 10*time.Minute)
	ctx := context.Background()
	c := r.c

	// Connect: a 401 from a server that asks for OAuth starts a sign-in.
	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	si := startedSignIn(t, err)
	q := checkAuthorizationURL(t, si.AuthorizationURL, c.CallbackPort, r.host.URL+"/oauth/callback", r.mcp.URL())
	if q.Get("client_id") == "" || strings.HasPrefix(q.Get("client_id"), "https://") {
		t.Errorf("client_id %q: oidc-provider takes no metadata document, so the client registers dynamically", q.Get("client_id"))
	}
	if !strings.HasPrefix(si.AuthorizationURL, r.issuer+"/") {
		t.Errorf("authorization URL is not on the issuer %s", r.issuer)
	}
	if st, _ := c.SignInStatus(si.ID); st.Status != SignInWaiting || st.PluginID != "calendar" {
		t.Errorf("status = %+v, want waiting for calendar", st)
	}
	if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
		t.Fatalf("stored before the sign-in finished: %v", rows)
	}

	// The user signs in and consents; the provider sends the browser to the
	// plugin host's page, which forwards it to the client's callback.
	page := browse(t, chromium, oidcConsent(si.AuthorizationURL)...)
	if !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("the last page says %q", page)
	}
	if r.host.hits() != 1 {
		t.Errorf("the plugin host's callback page was hit %d times, want 1", r.host.hits())
	}
	st, err := c.SignInStatus(si.ID)
	if err != nil || st.Status != SignInConnected {
		t.Fatalf("status = %+v, %v", st, err)
	}
	p, err := c.Store.Plugin(ctx, "calendar")
	if err != nil || p.CredentialKind != CredentialOAuth || p.Source != SourceCustom || p.CheckFailure != CheckOK {
		t.Fatalf("row = %v, %v", p, err)
	}
	tools, _ := c.Store.Tools(ctx, "calendar")
	if len(tools) != 2 || !tools[0].Enabled || !tools[1].Enabled {
		t.Fatalf("tools = %+v", tools)
	}
	cred := credentialOf(t, c, "calendar")
	if !cred.SignedIn() || cred.RefreshToken == "" || cred.Registration != RegistrationDynamic ||
		cred.RedirectURL != r.host.URL+"/oauth/callback" || cred.TokenEndpoint == "" || cred.Resource != r.mcp.URL() {
		t.Fatalf("credential = %v (registration %s, redirect %s)", cred, cred.Registration, cred.RedirectURL)
	}
	stJSON, _ := json.Marshal(st)
	for _, secret := range []string{cred.AccessToken, cred.RefreshToken} {
		if strings.Contains(page, secret) || strings.Contains(string(stJSON), secret) || strings.Contains(fmt.Sprintf("%+v %v", p, cred), secret) {
			t.Errorf("a token shows in the page, the sign-in's status or a printed row")
		}
	}
	if h := c.Headers(p, false).Get("Authorization"); h != "Bearer "+cred.AccessToken {
		t.Errorf("the plugin is not sent its access token as Bearer")
	}
	firstClient := cred.ClientID

	// Refresh before a turn: the token expires within 30 minutes.
	tools1, err := c.PrepareTurn(ctx)
	if err != nil || len(tools1) != 2 {
		t.Fatalf("PrepareTurn = %d tools, %v", len(tools1), err)
	}
	cred2 := credentialOf(t, c, "calendar")
	if cred2.AccessToken == cred.AccessToken || !cred2.Expiry.After(time.Now().Add(5*time.Minute)) {
		t.Fatalf("the token expiring within 30 minutes was not refreshed before the turn")
	}

	// A listing refused with 401 is refreshed once and listed again.
	r.mcp.revoke(cred2.AccessToken)
	refusedBefore, _ := r.mcp.counts()
	p, err = c.Check(ctx, "calendar")
	if err != nil || p.CheckFailure != CheckOK {
		t.Fatalf("check after a refused token = %v, %v", p, err)
	}
	refusedAfter, _ := r.mcp.counts()
	cred3 := credentialOf(t, c, "calendar")
	if cred3.AccessToken == cred2.AccessToken || refusedAfter-refusedBefore != 1 {
		t.Fatalf("refreshed: %t, 401s: %d (want one)", cred3.AccessToken != cred2.AccessToken, refusedAfter-refusedBefore)
	}

	// The user's tool settings, to be kept by signing in again.
	if err := c.SetToolEnabled(ctx, "calendar", "create_event", false); err != nil {
		t.Fatal(err)
	}
	if err := c.SetToolApproval(ctx, "calendar", "list_events", ApprovalAlways); err != nil {
		t.Fatal(err)
	}

	// The provider revokes the sign-in: the refresh is refused, and the
	// plugin is signed out and not ready.
	revokeAt(t, r.issuer, cred3.ClientID, cred3.RefreshToken)
	r.mcp.revoke(cred3.AccessToken)
	p, err = c.Check(ctx, "calendar")
	if err != nil || p.CheckFailure != CheckSignIn {
		t.Fatalf("check with a refused refresh = %v, %v; want check_failure sign_in", p, err)
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 0 {
		t.Errorf("a signed-out plugin's tools are ready: %v", ready)
	}

	// Sign in again: the same row, its tool settings, the same client.
	again, err := c.SignInAgain(ctx, "calendar")
	if err != nil {
		t.Fatal(err)
	}
	q = checkAuthorizationURL(t, again.AuthorizationURL, c.CallbackPort, r.host.URL+"/oauth/callback", r.mcp.URL())
	if q.Get("client_id") != firstClient {
		t.Errorf("signing in again registered another client")
	}
	page = browse(t, chromium, oidcConsent(again.AuthorizationURL)...)
	if !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("signing in again ended on %q", page)
	}
	p, _ = c.Store.Plugin(ctx, "calendar")
	tools, _ = c.Store.Tools(ctx, "calendar")
	byName := map[string]PluginTool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	if p.CheckFailure != CheckOK || len(tools) != 2 || byName["create_event"].Enabled || byName["list_events"].Approval != ApprovalAlways || !byName["list_events"].Enabled {
		t.Fatalf("after signing in again: row %v, tools %+v", p, tools)
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 1 {
		t.Errorf("ready after signing in again = %v, want list_events", ready)
	}

	// Disconnect keeps the client but drops the tokens; connecting again is
	// signing in again.
	if err := c.Disconnect(ctx, "calendar"); err != nil {
		t.Fatal(err)
	}
	if cr := credentialOf(t, c, "calendar"); cr.SignedIn() || cr.ClientID != firstClient {
		t.Errorf("disconnected credential = %v", cr)
	}
	if _, err := c.Connect(ctx, "calendar"); !IsCode(err, CodeNeedsAccount) {
		t.Errorf("Connect on a disconnected OAuth plugin = %v, want plugin_needs_account", err)
	}

	if err := c.Remove(ctx, "calendar"); err != nil {
		t.Fatal(err)
	}
	if rows, _ := c.Store.Plugins(ctx); len(rows) != 0 {
		t.Errorf("rows after remove: %v", rows)
	}
}

// revokeAt revokes token at the authorization server (RFC 7009) as the
// public client it was issued to.
func revokeAt(t *testing.T, issuer, clientID, token string) {
	t.Helper()
	form := url.Values{"token": {token}, "client_id": {clientID}}
	resp, err := http.PostForm(issuer+"/token/revocation", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("revocation: HTTP %d", resp.StatusCode)
	}
}

// TestSignInDeclined: the user cancels at the provider: access_denied ends
// the sign-in as declined, and nothing is stored.
func TestSignInDeclined(t *testing.T) {
	chromium := needChromium(t)
	r := newOIDCRig(t, 10*time.Minute)
	ctx := context.Background()
	_, err := r.c.ConnectCustom(ctx, CustomPlugin{URL: r.mcp.URL(), Name: "Calendar"})
	si := startedSignIn(t, err)
	page := browse(t, chromium,
		chromedp.Navigate(si.AuthorizationURL),
		chromedp.WaitVisible(chromedp.CSS(`input[name=login]`)),
		chromedp.Click(chromedp.Search(`//a[contains(., "Cancel")]`)),
		waitText("ign in"),
	)
	if !strings.Contains(page, "declined") {
		t.Errorf("the page says %q, want that the user declined", page)
	}
	st, err := r.c.SignInStatus(si.ID)
	if err != nil || st.Status != SignInFailed || st.Failure != FailDeclined {
		t.Errorf("status = %+v, %v; want failed, declined", st, err)
	}
	if rows, _ := r.c.Store.Plugins(ctx); len(rows) != 0 {
		t.Errorf("a declined sign-in stored %v", rows)
	}
	if !slices.Contains([]int{1}, r.host.hits()) {
		t.Errorf("the plugin host's page was hit %d times", r.host.hits())
	}
}
