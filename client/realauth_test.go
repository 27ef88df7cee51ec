package client

// The parts the sign-in tests run for real: authorization-server software
// from npm run by node (client/testdata/authservers, installed by `npm ci`),
// an MCP server made with the Go SDK that accepts only that server's tokens
// (its bearer-token middleware and protected-resource metadata), the plugin
// host serving its real OAuth pages over TLS, and Debian's chromium, driven
// by chromedp, playing the user.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/surfsense/pluginhost/oauthpage"
)

// authServersDir holds the authorization servers' node project.
const authServersDir = "testdata/authservers"

// pluginHostName is the name the TLS plugin host answers as. It is under
// .test, which never resolves: chromium maps it to 127.0.0.1, and the
// metadata-document fetch of Better Auth connects to 127.0.0.1 itself, so a
// missed mapping fails rather than leaving the machine. (A loopback address
// would make the SDK register a native client, which may not use https.)
const pluginHostName = "plugins.test"

// needNode skips t unless node and the authorization servers' modules are
// installed.
func needNode(t *testing.T, module string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: no node on PATH (the real authorization servers run on node; apt-get install nodejs)")
	}
	if _, err := os.Stat(filepath.Join(authServersDir, "node_modules", module, "package.json")); err != nil {
		t.Skipf("skipping: %s is not installed; run `npm ci` in client/%s", module, authServersDir)
	}
	return node
}

// needChromium skips t unless a chromium binary is found.
func needChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_BIN"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping the browser sign-in: no chromium binary on PATH (Debian: apt-get install -y chromium; or set CHROMIUM_BIN)")
	return ""
}

// nodeAuthServer is what an authorization server script prints once it
// listens: its issuer, and the resource server's client when it makes one.
type nodeAuthServer struct {
	Issuer   string `json:"issuer"`
	RSID     string `json:"rs_id"`
	RSSecret string `json:"rs_secret"`
}

// startAuthServer runs script (in authServersDir) with env and returns what
// it prints; it is stopped at the test's cleanup.
func startAuthServer(t *testing.T, node, script string, env ...string) nodeAuthServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = authServersDir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s's stderr:\n%s", script, tail(stderr.String()))
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "{") {
				line <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		var v nodeAuthServer
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Issuer == "" {
			t.Fatalf("%s printed no issuer", script)
		}
		return v
	case <-time.After(60 * time.Second):
		cancel()
		cmd.Wait()
		t.Fatalf("%s did not start within 60 s; stderr:\n%s", script, tail(stderr.String()))
	}
	return nodeAuthServer{}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// protectedServer is an MCP server that accepts only its authorization
// server's tokens: the Go SDK's bearer-token middleware, verifying each token
// by introspection (RFC 7662) as the resource server's own client, and its
// protected resource metadata naming the authorization server.
type protectedServer struct {
	srv *httptest.Server

	mu         sync.Mutex
	issuer     string
	introspect string // the introspection endpoint
	rsID       string
	rsSecret   string
	revoked    map[string]bool // access tokens the test had the server refuse
	refused    int             // 401s answered
	accepted   int             // requests let through
}

func newProtectedServer(t *testing.T, tools ...string) *protectedServer {
	t.Helper()
	ps := &protectedServer{revoked: map[string]bool{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "calendar", Version: "1"}, nil)
	for _, name := range tools {
		server.AddTool(&mcp.Tool{
			Name: name, Description: "Does " + name + ".", InputSchema: map[string]any{"type": "object"},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	ps.srv = httptest.NewServer(mux)
	t.Cleanup(ps.srv.Close)
	prmURL := ps.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		ps.mu.Lock()
		prm := &oauthex.ProtectedResourceMetadata{Resource: ps.URL(), AuthorizationServers: []string{ps.issuer}, ScopesSupported: []string{"mcp"}}
		ps.mu.Unlock()
		auth.ProtectedResourceMetadataHandler(prm).ServeHTTP(w, r)
	})
	protected := auth.RequireBearerToken(ps.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(mcpHandler)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		protected.ServeHTTP(rec, r)
		ps.mu.Lock()
		if rec.status == http.StatusUnauthorized {
			ps.refused++
		} else {
			ps.accepted++
		}
		ps.mu.Unlock()
	}))
	return ps
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
	r.ResponseWriter.WriteHeader(s)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (ps *protectedServer) URL() string { return ps.srv.URL + "/mcp" }

// trust sets the authorization server whose tokens the server accepts.
func (ps *protectedServer) trust(t *testing.T, issuer, rsID, rsSecret string) {
	t.Helper()
	asm, err := auth.GetAuthServerMetadata(context.Background(), issuer, http.DefaultClient)
	if err != nil || asm == nil || asm.IntrospectionEndpoint == "" {
		t.Fatalf("the authorization server at %s publishes no introspection endpoint (%v)", issuer, err)
	}
	ps.mu.Lock()
	ps.issuer, ps.introspect, ps.rsID, ps.rsSecret = issuer, asm.IntrospectionEndpoint, rsID, rsSecret
	ps.mu.Unlock()
}

// revoke has the server refuse token from now on, as one the authorization
// server revoked would be.
func (ps *protectedServer) revoke(token string) {
	ps.mu.Lock()
	ps.revoked[token] = true
	ps.mu.Unlock()
}

func (ps *protectedServer) counts() (refused, accepted int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.refused, ps.accepted
}

// verify introspects token at the authorization server: it must be active
// and for this server (its audience or resource).
func (ps *protectedServer) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	ps.mu.Lock()
	endpoint, id, secret, revoked := ps.introspect, ps.rsID, ps.rsSecret, ps.revoked[token]
	ps.mu.Unlock()
	if revoked || endpoint == "" {
		return nil, auth.ErrInvalidToken
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v struct {
		Active bool   `json:"active"`
		Scope  string `json:"scope"`
		Exp    int64  `json:"exp"`
		Aud    any    `json:"aud"`
		Sub    string `json:"sub"`
	}
	if resp.StatusCode != 200 || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v) != nil || !v.Active {
		return nil, auth.ErrInvalidToken
	}
	if !audienceHas(v.Aud, ps.URL()) {
		return nil, fmt.Errorf("%w: the token is for another resource", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Scopes: strings.Fields(v.Scope), Expiration: time.Unix(v.Exp, 0), UserID: v.Sub}, nil
}

func audienceHas(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return strings.TrimRight(a, "/") == want
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok && strings.TrimRight(s, "/") == want {
				return true
			}
		}
	}
	return false
}

// tlsPluginHost is the plugin host's OAuth pages (package oauthpage, which
// the host mounts) served over TLS at
// https://plugins.test:<port>, with a certificate made for it.
type tlsPluginHost struct {
	URL    string // https://plugins.test:<port>
	CAFile string // the certificate, PEM, for node to trust
	srv    *httptest.Server
	hits   func() int
}

func startTLSPluginHost(t *testing.T) *tlsPluginHost {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	public := fmt.Sprintf("https://%s:%d", pluginHostName, port)
	// The host's OAuth pages, as host.New mounts them.
	pages, err := oauthpage.New(oauthpage.Config{PublicURL: public, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	router := chi.NewRouter()
	pages.Mount(router)
	handler := http.Handler(router)
	cert, pemBytes := selfSignedCert(t, pluginHostName)
	var mu sync.Mutex
	callbacks := 0
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/callback" {
			mu.Lock()
			callbacks++
			mu.Unlock()
		}
		handler.ServeHTTP(w, r)
	})}}
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "plugins-test.pem")
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return &tlsPluginHost{URL: public, CAFile: caFile, srv: srv, hits: func() int { mu.Lock(); defer mu.Unlock(); return callbacks }}
}

// selfSignedCert makes a certificate for name and 127.0.0.1.
func selfSignedCert(t *testing.T, name string) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{name}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return cert, certPEM
}

// callbackServer serves a client's callback at 127.0.0.1 on a port fixed
// before the client is built; use says which client's.
func callbackServer(t *testing.T) (port int, use func(*Client)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var current atomic.Pointer[Client]
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := current.Load()
		if r.URL.Path != CallbackPath || c == nil {
			http.NotFound(w, r)
			return
		}
		c.CallbackHandler().ServeHTTP(w, r)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return ln.Addr().(*net.TCPAddr).Port, current.Store
}

// browse runs headless chromium through steps, with plugins.test mapped to
// 127.0.0.1, and returns the text of the page it ends on.
func browse(t *testing.T, bin string, steps ...chromedp.Action[chromedp.Void]) string {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.DisableGPU, chromedp.NoSandbox,
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.Flag("host-resolver-rules", "MAP "+pluginHostName+" 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	// The first run starts the browser, which lives as long as ctx: no
	// timeout on it, only on the steps.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("chromium did not start: %v", err)
	}
	stepsCtx, cancelSteps := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSteps()
	if err := chromedp.Do(stepsCtx, steps...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("chromium: %v (at %s, saying %.300q)", err, redactQuery(loc), text)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatalf("chromium: reading the last page: %v", err)
	}
	return strings.TrimSpace(text)
}

// redactQuery drops a URL's query, which may hold a code.
func redactQuery(s string) string {
	if i := strings.IndexByte(s, '?'); i >= 0 {
		return s[:i] + "?…"
	}
	return s
}

// waitText waits until the page's body contains want.
func waitText(want string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			text, err := chromedp.Text(chromedp.CSS("body"))(ctx, tg)
			if err == nil && strings.Contains(text, want) {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("the page never said %q: %w", want, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
