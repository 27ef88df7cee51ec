package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/surfsense/pluginhost/client"
	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/registry"
	"github.com/surfsense/pluginhost/scrapers"
)

// startHelloHost runs a plugin host in process with one plugin, hello,
// whose greet tool is read-only (the host adds get_result, for results
// delivered later).
func startHelloHost() (*httptest.Server, error) {
	type args struct {
		Name string `json:"name"`
	}
	hello := func(scrapers.Env) (scrapers.Plugin, error) {
		greet := scrapers.NewTool("greet", "Greet", "Says hello.", nil, func(_ context.Context, call *scrapers.Call, a args) error {
			call.Add(map[string]string{"url": "https://example.com/", "greeting": "hello, " + a.Name})
			return nil
		})
		return scrapers.Plugin{ID: "hello", Name: "Hello", Tools: []scrapers.Tool{greet}}, nil
	}
	cfg := host.Defaults()
	cfg.License.Backend = "dev" // any non-empty key is valid
	h, err := host.New(cfg, host.Options{
		Plugins: []scrapers.Constructor{hello},
		Backend: license.Dev{},
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(h.Handler()), nil
}

// helloList is a first-party list naming hello on plugins.surfsense.com,
// which the client moves to the local host.
func helloList() *registry.List {
	return &registry.List{SchemaVersion: 1, Plugins: []registry.Entry{{
		ID: "hello", Name: "Hello", Description: "Says hello.", Author: "SurfSense", Publisher: registry.PublisherSurfSense,
		URL: "https://plugins.surfsense.com/hello/mcp", Hosts: []string{"plugins.surfsense.com"},
		Access: registry.AccessLicense, Auth: registry.Auth{Type: registry.AuthLicense}, Tools: []string{"greet"}, Added: "2026-11",
	}}}
}

// Connecting one of SurfSense's own plugins on a plugin host run locally
// (SURFSENSE_LOCAL_PLUGIN_HOST_URL): its tools are listed with the license,
// and it is stored with credential_kind license; the key itself is never
// stored. Without a license it still connects, its check saying why.
func ExampleClient_ConnectFirstParty() {
	srv, err := startHelloHost()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx := context.Background()

	c := &client.Client{
		Store:      &client.MemoryStore{},
		Host:       client.MustPluginHost(srv.URL),
		License:    client.StaticLicense{Key: "dev-key"},
		FirstParty: helloList(),
	}
	p, err := c.ConnectFirstParty(ctx, "hello")
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := c.Store.Tools(ctx, "hello")
	fmt.Println(p.ID, p.Source, p.CredentialKind, p.URL == srv.URL+"/hello/mcp", p.CheckFailure == client.CheckOK)
	for _, t := range tools {
		fmt.Println("tool:", t.Name, "on:", t.Enabled)
	}
	fmt.Println("header:", c.Headers(p, false).Get("Authorization") == "License dev-key")

	unlicensed := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(srv.URL), FirstParty: helloList()}
	p, err = unlicensed.ConnectFirstParty(ctx, "hello")
	fmt.Println("without a license:", p.CheckFailure, err)
	// Output:
	// hello first_party license true true
	// tool: get_result on: true
	// tool: greet on: true
	// header: true
	// without a license: needs_license <nil>
}

// A check lists the server again and records what it found: here the
// license is refused, so the plugin is not ready, and its tools are kept as
// last recorded.
func ExampleClient_Check() {
	srv, err := startHelloHost()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx := context.Background()
	store := &client.MemoryStore{}
	withKey := &client.Client{Store: store, Host: client.MustPluginHost(srv.URL), License: client.StaticLicense{Key: "dev-key"}, FirstParty: helloList()}
	if _, err := withKey.ConnectFirstParty(ctx, "hello"); err != nil {
		fmt.Println(err)
		return
	}
	// The same tables, after the license was removed.
	removed := &client.Client{Store: store, Host: client.MustPluginHost(srv.URL), FirstParty: helloList()}
	p, err := removed.Check(ctx, "hello")
	ready, _ := removed.ReadyTools(ctx)
	tools, _ := store.Tools(ctx, "hello")
	fmt.Println(p.CheckFailure, err, "ready:", len(ready), "kept:", len(tools))

	p, _ = withKey.Check(ctx, "hello")
	ready, _ = withKey.ReadyTools(ctx)
	fmt.Println(p.CheckFailure == client.CheckOK, "ready:", len(ready))
	// Output:
	// needs_license <nil> ready: 0 kept: 2
	// true ready: 2
}

// ReadyTools is the one answer to which tools the agent may use now, and
// NeedsApproval which of them ask first: a first-party read-only tool never
// does; a custom plugin's tool that does not say it is read-only or
// harmless always does, and Always allow is refused for it.
func ExampleClient_ReadyTools() {
	srv, err := startHelloHost()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx := context.Background()

	custom := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	custom.AddTool(&mcp.Tool{Name: "append", Description: "Appends a note.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	notes := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return custom }, nil))
	defer notes.Close()

	c := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(srv.URL), License: client.StaticLicense{Key: "dev-key"}, FirstParty: helloList()}
	c.ConnectFirstParty(ctx, "hello")
	if _, err := c.ConnectCustom(ctx, client.CustomPlugin{URL: notes.URL, Name: "Notes"}); err != nil {
		fmt.Println(err)
		return
	}
	show := func() {
		ready, _ := c.ReadyTools(ctx)
		for _, t := range ready {
			fmt.Printf("%s asks first: %t\n", t.QualifiedName, t.NeedsApproval)
		}
	}
	show()
	fmt.Println("-- third-party plugins allowed")
	c.SetThirdPartyAllowed(ctx, true)
	show()
	fmt.Println(c.SetToolApproval(ctx, "notes", "append", client.ApprovalAlways))
	// Output:
	// hello__get_result asks first: false
	// hello__greet asks first: false
	// -- third-party plugins allowed
	// hello__get_result asks first: false
	// hello__greet asks first: false
	// notes__append asks first: true
	// 422 tool_always_asks: this tool does not say it is read-only or harmless, so it always asks
}

// Signing in with an account: a server that asks for OAuth starts a
// sign-in (the app's 202). The browser opens its authorization URL, the
// provider sends it back to the client's callback, and the sign-in ends
// connected: the tools listed with the new token and the plugin stored with
// credential_kind oauth, its tokens encrypted by a FileStore and never
// printed. The authorization server here is a small one in this file, which
// consents at once; client's tests sign in against Better Auth and
// oidc-provider with chromium.
func ExampleClient_SignInStatus() {
	as, mcpURL := startOAuthPlugin()
	defer as.Close()
	ctx := context.Background()

	ln, _ := net.Listen("tcp", "127.0.0.1:0") // the app's API
	c := &client.Client{
		Store:        &client.MemoryStore{},
		CallbackPort: ln.Addr().(*net.TCPAddr).Port,
		SignInAs:     client.SignInAs{Unpackaged: true}, // its own loopback callback
	}
	api := &http.Server{Handler: c.CallbackHandler()}
	go api.Serve(ln)
	defer api.Close()
	c.SetThirdPartyAllowed(ctx, true)

	_, err := c.ConnectCustom(ctx, client.CustomPlugin{URL: mcpURL, Name: "Calendar"})
	var started *client.SignInRequiredError
	if !errors.As(err, &started) || started.SignIn == nil {
		fmt.Println(err)
		return
	}
	si := started.SignIn
	u, _ := url.Parse(si.AuthorizationURL)
	fmt.Println("open:", u.Path, u.Query().Get("code_challenge_method"), strings.HasPrefix(u.Query().Get("state"), fmt.Sprint(c.CallbackPort)+"."))
	st, _ := c.SignInStatus(si.ID)
	fmt.Println(st.Status)

	// The browser.
	resp, err := http.Get(si.AuthorizationURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(string(page), "Signed in to Calendar"))

	st, _ = c.SignInStatus(si.ID)
	p, _ := c.Store.Plugin(ctx, "calendar")
	ready, _ := c.ReadyTools(ctx)
	fmt.Println(st.Status, p.CredentialKind, len(ready), ready[0].QualifiedName)
	fmt.Printf("%v\n", strings.Contains(fmt.Sprintf("%+v", p), "[hidden]"))
	// Output:
	// open: /authorize S256 true
	// waiting
	// 200 true
	// connected oauth 1 calendar__list_events
	// true
}

// startOAuthPlugin runs a minimal authorization server (metadata, dynamic
// registration, an authorization endpoint that consents at once, and a
// token endpoint that checks PKCE) and an MCP server that takes only its
// tokens, with the Go SDK's bearer-token middleware and protected resource
// metadata. It returns the server to close and the MCP server's URL.
func startOAuthPlugin() (*httptest.Server, string) {
	var mu sync.Mutex
	codes := map[string]string{} // code → PKCE challenge
	tokens := map[string]bool{}
	n := 0
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	base := srv.URL
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, oauthex.AuthServerMeta{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
			RegistrationEndpoint: base + "/register", ResponseTypesSupported: []string{"code"}, CodeChallengeMethodsSupported: []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "client-1"
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		n++
		code := fmt.Sprintf("code-%d", n)
		codes[code] = q.Get("code_challenge")
		mu.Unlock()
		back := q.Get("redirect_uri") + "?" + url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back, http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		mu.Lock()
		challenge, ok := codes[r.Form.Get("code")]
		delete(codes, r.Form.Get("code"))
		token := fmt.Sprintf("token-%d", n)
		if ok && challenge == base64.RawURLEncoding.EncodeToString(sum[:]) {
			tokens[token] = true
		} else {
			ok = false
		}
		mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600})
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "calendar", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "list_events", Description: "Lists events.", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		if !tokens[token] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: base + "/mcp", AuthorizationServers: []string{base}}))
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/mcp"})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})))
	return srv, base + "/mcp"
}
