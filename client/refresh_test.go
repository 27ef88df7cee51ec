package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// rotatingTokens is a token endpoint that rotates refresh tokens: each is
// good once, as providers that rotate them do.
type rotatingTokens struct {
	mu       sync.Mutex
	n        int
	valid    map[string]bool
	resource []string // the resource each request named
	srv      *httptest.Server
}

func newRotatingTokens(t *testing.T, first string) *rotatingTokens {
	rt := &rotatingTokens{valid: map[string]bool{first: true}}
	rt.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.n++
		rt.resource = append(rt.resource, r.Form.Get("resource"))
		w.Header().Set("Content-Type", "application/json")
		if r.Form.Get("grant_type") != "refresh_token" || !rt.valid[r.Form.Get("refresh_token")] || r.Form.Get("client_id") != "app" {
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		delete(rt.valid, r.Form.Get("refresh_token"))
		next := "refresh-" + string(rune('a'+rt.n))
		rt.valid[next] = true
		json.NewEncoder(w).Encode(map[string]any{"access_token": "access-" + string(rune('a'+rt.n)), "token_type": "Bearer", "expires_in": 3600, "refresh_token": next})
	}))
	t.Cleanup(rt.srv.Close)
	return rt
}

func (rt *rotatingTokens) requests() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.n
}

func oauthRow(t *testing.T, c *Client, tokenEndpoint string, expiry time.Time) InstalledPlugin {
	t.Helper()
	cred := OAuthCredential{AccessToken: "access-0", RefreshToken: "refresh-0", Expiry: expiry, ClientID: "app",
		TokenEndpoint: tokenEndpoint, Resource: "https://cal.example/mcp", Registration: RegistrationDynamic}
	p := InstalledPlugin{ID: "cal", Name: "Cal", Kind: "remote", Source: SourceCustom, URL: "https://cal.example/mcp",
		Hosts: []string{"cal.example"}, Enabled: true, CredentialKind: CredentialOAuth, Credential: cred.Encode(), CheckedAt: time.Now()}
	if err := c.Store.PutPlugin(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRefreshOneAtATime: concurrent refreshes of one plugin make one
// request, since providers rotate refresh tokens; every caller gets the new
// token, and the request names the resource.
func TestRefreshOneAtATime(t *testing.T) {
	rt := newRotatingTokens(t, "refresh-0")
	c := &Client{Store: &MemoryStore{}}
	p := oauthRow(t, c, rt.srv.URL, time.Now().Add(10*time.Minute))
	var wg sync.WaitGroup
	results := make([]InstalledPlugin, 8)
	oks := make([]bool, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], oks[i], _ = c.refresh(context.Background(), p)
		}()
	}
	wg.Wait()
	if rt.requests() != 1 {
		t.Errorf("%d refresh requests for concurrent refreshes, want 1", rt.requests())
	}
	for i := range results {
		if !oks[i] || accessToken(results[i].Credential) != "access-b" {
			t.Errorf("caller %d: refreshed %t", i, oks[i])
		}
	}
	cred := credentialOf(t, c, "cal")
	if cred.RefreshToken != "refresh-b" || cred.Expiry.Before(time.Now().Add(50*time.Minute)) {
		t.Errorf("credential after refresh = %v", cred)
	}
	if rt.resource[0] != "https://cal.example/mcp" {
		t.Errorf("the refresh named resource %q", rt.resource[0])
	}
}

// TestRefreshExpiring: before a turn, a token expiring within 30 minutes is
// refreshed and one expiring later is not; a refused refresh marks the
// plugin signed out, and it is not ready.
func TestRefreshExpiring(t *testing.T) {
	ctx := context.Background()
	rt := newRotatingTokens(t, "refresh-0")
	c := &Client{Store: &MemoryStore{}}
	c.SetThirdPartyAllowed(ctx, true)
	oauthRow(t, c, rt.srv.URL, time.Now().Add(2*time.Hour))
	if n, err := c.RefreshExpiring(ctx); n != 0 || err != nil || rt.requests() != 0 {
		t.Errorf("a token expiring in 2 hours was refreshed (%d, %v)", n, err)
	}
	oauthRow(t, c, rt.srv.URL, time.Now().Add(29*time.Minute))
	if n, err := c.RefreshExpiring(ctx); n != 1 || err != nil {
		t.Errorf("RefreshExpiring = %d, %v; want 1", n, err)
	}
	// The refresh token is spent: the next refresh is refused.
	p := oauthRow(t, c, rt.srv.URL, time.Now().Add(time.Minute))
	if _, ok, err := c.refresh(ctx, p); ok || err != errRefreshRefused {
		t.Errorf("refresh with a spent token = %t, %v", ok, err)
	}
	after, _ := c.Store.Plugin(ctx, "cal")
	if after.CheckFailure != CheckSignIn {
		t.Errorf("a refused refresh recorded %q, want sign_in", after.CheckFailure)
	}
	if c.pluginReady(after, PluginSettings{ThirdPartyOn: true}) {
		t.Error("a signed-out OAuth plugin is ready")
	}
	// No refresh token at all: none possible, signed out too.
	c2 := &Client{Store: &MemoryStore{}}
	p2 := oauthRow(t, c2, rt.srv.URL, time.Now())
	cred, _ := ParseOAuthCredential(p2.Credential)
	cred.RefreshToken = ""
	p2.Credential = cred.Encode()
	c2.Store.PutPlugin(ctx, p2)
	if _, _, err := c2.refresh(ctx, p2); err != errRefreshRefused {
		t.Errorf("refresh with no refresh token = %v", err)
	}
}

// TestRefreshUnreachableKeepsSignIn: a token endpoint that cannot be
// reached, or whose host is off, leaves the sign-in as it was, and a check
// that needed it says unreachable, not signed out.
func TestRefreshUnreachableKeepsSignIn(t *testing.T) {
	ctx := context.Background()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/token"
	gone.Close()
	for _, tc := range []struct {
		name     string
		endpoint string
		egress   Egress
		says     string
	}{
		{"unreachable", goneURL, nil, "could not be reached"},
		{"host off", "https://auth.example/token", EgressFunc(func(h string) bool { return h != "auth.example" }), "auth.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{Store: &MemoryStore{}, Egress: tc.egress}
			p := oauthRow(t, c, tc.endpoint, time.Now().Add(time.Minute))
			_, ok, err := c.refresh(ctx, p)
			if ok || err == nil || err == errRefreshRefused || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("refresh = %t, %v", ok, err)
			}
			after, _ := c.Store.Plugin(ctx, "cal")
			if after.Credential != p.Credential || after.CheckFailure != CheckOK {
				t.Errorf("the sign-in changed: %v", after)
			}
			if strings.Contains(err.Error(), "refresh-0") || strings.Contains(err.Error(), "access-0") {
				t.Errorf("the error holds a token: %v", err)
			}
		})
	}

	// A check whose server refuses the token, with the token endpoint out of
	// reach: unreachable, and the tokens kept.
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool { refuse(w, 401, ""); return true })
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	p := oauthRow(t, c, goneURL, time.Now().Add(time.Hour))
	p.URL, p.Hosts = s.URL(), []string{"127.0.0.1"}
	c.Store.PutPlugin(ctx, p)
	got, err := c.Check(ctx, "cal")
	if err != nil || got.CheckFailure != CheckUnreachable || got.Credential != p.Credential {
		t.Errorf("check = %v, %v; want unreachable with the sign-in kept", got, err)
	}
}
