package client

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// betterAuthConsent signs in at the Better Auth server's pages and allows.
func betterAuthConsent(authURL string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.CSS(`input[name=email]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), "ada@example.test"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		// Better Auth asks for consent once per user and client.
		allowUnlessRemembered,
		waitText("in to "),
	}
}

// allowUnlessRemembered clicks Allow on the consent page, unless the
// server remembered the consent and sent the browser on.
func allowUnlessRemembered(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
	for {
		if n, err := chromedp.Nodes(chromedp.CSS(`#allow`), chromedp.AtLeast(0))(ctx, tg); err == nil && len(n) > 0 {
			return chromedp.Click(chromedp.CSS(`#allow`))(ctx, tg)
		}
		if text, err := chromedp.Text(chromedp.CSS("body"))(ctx, tg); err == nil && strings.Contains(text, "in to ") {
			return chromedp.Void{}, nil
		}
		select {
		case <-ctx.Done():
			return chromedp.Void{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestSignInBetterAuth: a custom server whose authorization server takes
// client ID metadata documents (Better Auth's OAuth provider with its CIMD
// plugin, on its memory adapter) signs in as SurfSense's public client, the
// document the plugin host serves, and comes back through the host's
// callback page; it then lists, refreshes before a turn and after a 401, is
// refused a refresh, signs in again keeping its tool settings, and is
// removed.
func TestSignInBetterAuth(t *testing.T) {
	chromium := needChromium(t)
	node := needNode(t, "better-auth")
	ctx := context.Background()
	ps := newProtectedServer(t, "list_events", "create_event")
	h := startTLSPluginHost(t)
	as := startAuthServer(t, node, "betterauth.mjs", "RESOURCE="+ps.URL(), "METADATA_HOST="+pluginHostName,
		"NODE_EXTRA_CA_CERTS="+h.CAFile, "ACCESS_TTL="+strconv.Itoa(int((10*time.Minute).Seconds())))
	ps.trust(t, as.Issuer, as.RSID, as.RSSecret)
	port, serve := callbackServer(t)
	consents := &Consents{}
	consents.Allow("127.0.0.1")
	c := &Client{Store: &MemoryStore{}, Egress: consents, CallbackPort: port, SignInAs: SignInAs{PublicClient: h.URL}}
	serve(c)
	if err := c.SetThirdPartyAllowed(ctx, true); err != nil {
		t.Fatal(err)
	}

	_, err := c.ConnectCustom(ctx, CustomPlugin{URL: ps.URL(), Name: "Calendar"})
	si := startedSignIn(t, err)
	q := checkAuthorizationURL(t, si.AuthorizationURL, port, h.URL+"/oauth/callback", ps.URL())
	if q.Get("client_id") != h.URL+"/oauth/client.json" {
		t.Errorf("client_id %q, want SurfSense's client ID metadata document %s", q.Get("client_id"), h.URL+"/oauth/client.json")
	}
	page := browse(t, chromium, betterAuthConsent(si.AuthorizationURL)...)
	if !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("the last page says %q", page)
	}
	if h.hits() != 1 {
		t.Errorf("the plugin host's callback page was hit %d times, want 1", h.hits())
	}
	if st, _ := c.SignInStatus(si.ID); st.Status != SignInConnected {
		t.Fatalf("status = %+v", st)
	}
	cred := credentialOf(t, c, "calendar")
	if !cred.SignedIn() || cred.RefreshToken == "" || cred.Registration != RegistrationMetadataDocument || cred.ClientID != h.URL+"/oauth/client.json" {
		t.Fatalf("credential = %v, client %s", cred, cred.ClientID)
	}
	if tools, _ := c.Store.Tools(ctx, "calendar"); len(tools) != 2 {
		t.Fatalf("tools = %+v", tools)
	}

	// Before a turn: refreshed, since it expires within 30 minutes.
	if ready, err := c.PrepareTurn(ctx); err != nil || len(ready) != 2 {
		t.Fatalf("PrepareTurn = %v, %v", ready, err)
	}
	cred2 := credentialOf(t, c, "calendar")
	if cred2.AccessToken == cred.AccessToken {
		t.Fatal("not refreshed before the turn")
	}

	// A 401 is refreshed once and listed again.
	ps.revoke(cred2.AccessToken)
	before, _ := ps.counts()
	if p, err := c.Check(ctx, "calendar"); err != nil || p.CheckFailure != CheckOK {
		t.Fatalf("check = %v, %v", p, err)
	}
	after, _ := ps.counts()
	cred3 := credentialOf(t, c, "calendar")
	if cred3.AccessToken == cred2.AccessToken || after-before != 1 {
		t.Fatalf("refreshed %t, 401s %d", cred3.AccessToken != cred2.AccessToken, after-before)
	}
	if err := c.SetToolEnabled(ctx, "calendar", "create_event", false); err != nil {
		t.Fatal(err)
	}

	// A refresh token the server no longer takes: signed out.
	cur, _ := c.Store.Plugin(ctx, "calendar")
	spoiled := cred3
	spoiled.RefreshToken = "not-a-refresh-token"
	cur.Credential = spoiled.Encode()
	if err := c.Store.PutPlugin(ctx, cur); err != nil {
		t.Fatal(err)
	}
	ps.revoke(cred3.AccessToken)
	if p, err := c.Check(ctx, "calendar"); err != nil || p.CheckFailure != CheckSignIn {
		t.Fatalf("check with a refused refresh = %v, %v", p, err)
	}

	// Sign in again, keeping tool settings.
	again, err := c.SignInAgain(ctx, "calendar")
	if err != nil {
		t.Fatal(err)
	}
	page = browse(t, chromium, betterAuthConsent(again.AuthorizationURL)...)
	if !strings.Contains(page, "Signed in to Calendar") {
		t.Fatalf("signing in again ended on %q", page)
	}
	p, _ := c.Store.Plugin(ctx, "calendar")
	ready, _ := c.ReadyTools(ctx)
	if p.CheckFailure != CheckOK || len(ready) != 1 || ready[0].Tool != "list_events" {
		t.Fatalf("after signing in again: %v, ready %v", p, ready)
	}
	if err := c.Remove(ctx, "calendar"); err != nil {
		t.Fatal(err)
	}
}
