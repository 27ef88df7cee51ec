package registry

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// registryDir writes a REGISTRY_DIR holding list, signed with the key at
// keyPath, and the example icons (plus one the list does not name).
func registryDir(t *testing.T, list []byte, keyPath string) string {
	t.Helper()
	dir := t.TempDir()
	writeSigned(t, dir, list, keyPath)
	icons := filepath.Join(dir, "icons")
	if err := os.MkdirAll(icons, 0o755); err != nil {
		t.Fatal(err)
	}
	err := fs.WalkDir(EmbeddedRegistryIcons(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(EmbeddedRegistryIcons(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(icons, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(icons, "unlisted.svg"), []byte(okSVG), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("not for serving"), 0o644)
	return dir
}

func writeSigned(t *testing.T, dir string, list []byte, keyPath string) {
	t.Helper()
	key, err := LoadPrivateKey(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := SignBytes(key, list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugins.json"), list, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugins.json.sigstore.json"), bundle, 0o644); err != nil {
		t.Fatal(err)
	}
}

func newTestServer(t *testing.T, cfg Config) (*Server, http.Handler) {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	s.Mount(r)
	return s, r
}

func get(t *testing.T, h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestServerEmbeddedCopy(t *testing.T) {
	s, h := newTestServer(t, Config{})
	if s.Status() != "ok" || !s.Verified() {
		t.Fatalf("status %q", s.Status())
	}
	if l := s.List(); l == nil || l.Lookup("ledgerly") == nil {
		t.Fatal("List")
	}

	rec := get(t, h, "/plugins.json")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), registryJSON) {
		t.Fatalf("GET /plugins.json: %d, body equal %v", rec.Code, bytes.Equal(rec.Body.Bytes(), registryJSON))
	}
	wantHeaders(t, rec, "application/json")
	if rec.Header().Get("ETag") == "" || !strings.Contains(rec.Header().Get("Cache-Control"), "max-age=300") {
		t.Errorf("caching headers %v", rec.Header())
	}
	if again := get(t, h, "/plugins.json", "If-None-Match", rec.Header().Get("ETag")); again.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d", again.Code)
	}

	rec = get(t, h, "/plugins.json.sigstore.json")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), registryBundle) {
		t.Fatalf("GET bundle: %d", rec.Code)
	}
	wantHeaders(t, rec, "application/json")
	// What is served verifies, as a client would check it.
	if _, err := VerifyList(get(t, h, "/plugins.json").Body.Bytes(), rec.Body.Bytes(), Trust{PublicKey: DevPublicKey()}, nil); err != nil {
		t.Errorf("served copy does not verify: %v", err)
	}

	rec = get(t, h, "/first-party/plugins.json")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), firstPartyJSON) {
		t.Fatalf("GET first-party: %d", rec.Code)
	}
	wantHeaders(t, rec, "application/json")

	for name, ctype := range map[string]string{"ledgerly.svg": "image/svg+xml", "recipe-box.png": "image/png"} {
		rec = get(t, h, "/icons/"+name)
		want, _ := fs.ReadFile(EmbeddedRegistryIcons(), name)
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatalf("GET /icons/%s: %d", name, rec.Code)
		}
		wantHeaders(t, rec, ctype)
	}

	req := httptest.NewRequest(http.MethodHead, "/plugins.json", nil)
	hr := httptest.NewRecorder()
	h.ServeHTTP(hr, req)
	if hr.Code != 200 || hr.Body.Len() != 0 || hr.Header().Get("Content-Length") != fmt.Sprint(len(registryJSON)) {
		t.Errorf("HEAD: %d body %d length %q", hr.Code, hr.Body.Len(), hr.Header().Get("Content-Length"))
	}
	req = httptest.NewRequest(http.MethodPost, "/plugins.json", nil)
	pr := httptest.NewRecorder()
	h.ServeHTTP(pr, req)
	if pr.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", pr.Code)
	}
}

func wantHeaders(t *testing.T, rec *httptest.ResponseRecorder, ctype string) {
	t.Helper()
	h := rec.Header()
	if h.Get("Content-Type") != ctype {
		t.Errorf("Content-Type %q, want %q", h.Get("Content-Type"), ctype)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
	if h.Get("Content-Security-Policy") != "sandbox" {
		t.Errorf("Content-Security-Policy %q", h.Get("Content-Security-Policy"))
	}
}

// rawGet sends a request line exactly as written, so that no client cleans
// or re-encodes the path, and returns the status and body.
func rawGet(t *testing.T, addr, target string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServerIconTraversal(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	dir := registryDir(t, registryJSON, keyPath)
	_, h := newTestServer(t, Config{Dir: dir, PublicKey: string(readFile(t, pubPath))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	if code, _ := rawGet(t, addr, "/icons/ledgerly.svg"); code != 200 {
		t.Fatalf("a listed icon: %d", code)
	}
	attempts := []string{
		"/icons/../plugins.json",
		"/icons/..%2fplugins.json",
		"/icons/..%2Fplugins.json",
		"/icons/%2e%2e%2fplugins.json",
		"/icons/%2e%2e/plugins.json",
		"/icons/%2E%2E%2Fsecret.txt",
		"/icons/..%5csecret.txt",
		`/icons/..\secret.txt`,
		`/icons/..\..\etc\passwd`,
		"/icons/%252e%252e%252fplugins.json",
		"/icons/%25%32%65%25%32%65/secret.txt",
		"/icons/ledgerly.svg%00.png",
		"/icons/ledgerly.svg%00",
		"/icons/%6cedgerly.svg",
		"/icons/ledgerly%2esvg",
		"/icons/./ledgerly.svg",
		"/icons//ledgerly.svg",
		"/icons/ledgerly.svg/",
		"/icons/ledgerly.svg/..",
		"/icons/",
		"/icons/unlisted.svg",
		"/icons/LEDGERLY.SVG",
		"/icons/.ledgerly.svg",
		"/icons/ledgerly.svg?x=../../secret.txt#",
		"/icons/%c0%ae%c0%ae/secret.txt",
		"/icons/..%c0%afsecret.txt",
		"/icons/..%u2215secret.txt",
		"/icons/secret.txt",
		"/icons/" + strings.Repeat("a", 200) + ".svg",
	}
	for _, target := range attempts {
		code, body := rawGet(t, addr, target)
		t.Logf("%s -> %d", target, code)
		if target == "/icons/ledgerly.svg?x=../../secret.txt#" {
			// The query is not part of the path: this is the listed icon.
			if code != 200 || !strings.Contains(body, "<svg") {
				t.Errorf("%s: %d", target, code)
			}
			continue
		}
		if code == 200 {
			t.Errorf("%s: 200, body %.60q", target, body)
		}
		if strings.Contains(body, "not for serving") || strings.Contains(body, `"schema_version"`) {
			t.Errorf("%s leaked a file: %.80q", target, body)
		}
	}
	// Without chi, reached by path alone, the handler holds the same line.
	for _, target := range []string{"/icons/..%2fplugins.json", "/x/icons/%2e%2e", "/icons/unlisted.svg", "/nothing"} {
		s, _ := newTestServer(t, Config{Dir: dir, PublicKey: string(readFile(t, pubPath))})
		rec := httptest.NewRecorder()
		s.ServeIcon(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("ServeIcon %s: %d", target, rec.Code)
		}
	}
}

func TestServerRegistryDirWithKey(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	dir := registryDir(t, registryJSON, keyPath)
	pem := string(readFile(t, pubPath))
	for name, key := range map[string]string{
		"PEM text":         pem,
		"PEM file":         pubPath,
		"PEM with \\n":     strings.ReplaceAll(strings.TrimSpace(pem), "\n", `\n`),
		"PEM with padding": "  " + pem + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Dir: dir, PublicKey: key}
			s, h := newTestServer(t, cfg)
			if s.Status() != "ok" {
				t.Fatalf("status %q", s.Status())
			}
			if rec := get(t, h, "/plugins.json"); rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), registryJSON) {
				t.Errorf("GET: %d", rec.Code)
			}
		})
	}
}

func TestServerNeverServesUnverified(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	_, otherPub := testKeys(t)
	pub := string(readFile(t, pubPath))

	tampered := registryDir(t, registryJSON, keyPath)
	os.WriteFile(filepath.Join(tampered, "plugins.json"), bytes.Replace(registryJSON, []byte("mcp.ledgerly.app/mcp"), []byte("mcp.ledgerly.app/steal"), 1), 0o644)

	noBundle := registryDir(t, registryJSON, keyPath)
	os.Remove(filepath.Join(noBundle, "plugins.json.sigstore.json"))

	noList := t.TempDir()

	missingIcon := registryDir(t, registryJSON, keyPath)
	os.Remove(filepath.Join(missingIcon, "icons", "ledgerly.svg"))

	breaksRules := registryDir(t, bytes.Replace(registryJSON, []byte(`"publisher": "community"`), []byte(`"publisher": "surfsense"`), 1), keyPath)

	schema2 := registryDir(t, bytes.Replace(registryJSON, []byte(`"schema_version": 1`), []byte(`"schema_version": 2`), 1), keyPath)

	firstPartyID := registryDir(t, bytes.Replace(registryJSON, []byte(`"id": "arxiv-lookup"`), []byte(`"id": "amazon"`), 1), keyPath)

	cases := map[string]struct {
		cfg  Config
		want string
	}{
		"tampered list":           {Config{Dir: tampered, PublicKey: pub}, "signature does not verify"},
		"wrong key":               {Config{Dir: registryDir(t, registryJSON, keyPath), PublicKey: otherPub}, "signature does not verify"},
		"missing bundle":          {Config{Dir: noBundle, PublicKey: pub}, "no signature"},
		"missing list":            {Config{Dir: noList, PublicKey: pub}, "plugins.json"},
		"no trust for a dir":      {Config{Dir: registryDir(t, registryJSON, keyPath)}, "REGISTRY_PUBLIC_KEY"},
		"keyless, dev-signed":     {Config{Issuer: GitHubActionsIssuer, Identity: workflowIdentity}, "signature does not verify"},
		"wrong key for embedded":  {Config{PublicKey: otherPub}, "signature does not verify"},
		"icon missing":            {Config{Dir: missingIcon, PublicKey: pub}, "ledgerly.svg"},
		"signed but breaks rules": {Config{Dir: breaksRules, PublicKey: pub}, "breaks its rules"},
		"unknown schema":          {Config{Dir: schema2, PublicKey: pub}, "schema_version"},
		"takes a first-party id":  {Config{Dir: firstPartyID, PublicKey: pub}, "SurfSense's own plugin"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, h := newTestServer(t, c.cfg)
			st := s.Status()
			if !strings.HasPrefix(st, "unverified: ") || !strings.Contains(st, c.want) || s.Verified() || s.List() != nil {
				t.Fatalf("status %q, want unverified: …%s…", st, c.want)
			}
			for _, p := range []string{"/plugins.json", "/plugins.json.sigstore.json", "/icons/ledgerly.svg"} {
				rec := get(t, h, p)
				if rec.Code != http.StatusServiceUnavailable {
					t.Errorf("%s: %d", p, rec.Code)
				}
				var body map[string]string
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["reason"] != "registry_unverified" {
					t.Errorf("%s: body %s", p, rec.Body)
				}
				if rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" {
					t.Errorf("%s: headers %v", p, rec.Header())
				}
				if bytes.Contains(rec.Body.Bytes(), []byte(`"plugins"`)) {
					t.Errorf("%s served list content", p)
				}
			}
			if rec := get(t, h, "/first-party/plugins.json"); rec.Code != 200 {
				t.Errorf("first-party list must not depend on the registry: %d", rec.Code)
			}
		})
	}
}

func TestServerConfigErrors(t *testing.T) {
	_, pubPath := testKeys(t)
	cases := map[string]Config{
		"unanchored identity":  {Issuer: GitHubActionsIssuer, Identity: "https://github.com/surfsense/.*"},
		"issuer alone":         {Issuer: GitHubActionsIssuer},
		"bad PEM":              {PublicKey: "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----"},
		"absent key file":      {PublicKey: filepath.Join(t.TempDir(), "none.pub")},
		"key and identity":     {PublicKey: pubPath, Issuer: GitHubActionsIssuer, Identity: workflowIdentity},
		"absent trusted root":  {Issuer: GitHubActionsIssuer, Identity: workflowIdentity, TrustedRoot: "/nonexistent/root.json"},
		"garbage trusted root": {Issuer: GitHubActionsIssuer, Identity: workflowIdentity, TrustedRoot: pubPath},
	}
	for name, cfg := range cases {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestServerKeyless(t *testing.T) {
	st := newSigstoreStandIn(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "icons"), 0o755)
	registryIcons := EmbeddedRegistryIcons()
	for _, n := range []string{"ledgerly.svg", "orbit-docs.svg", "arxiv-lookup.svg", "recipe-box.png"} {
		b, _ := fs.ReadFile(registryIcons, n)
		os.WriteFile(filepath.Join(dir, "icons", n), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "plugins.json"), registryJSON, 0o644)
	if _, err := SignKeyless(t.Context(), st.options(workflowToken(workflowRef)), filepath.Join(dir, "plugins.json")); err != nil {
		t.Fatal(err)
	}
	rootPath := filepath.Join(t.TempDir(), "root.json")
	os.WriteFile(rootPath, st.trustedRoot, 0o644)

	s, _ := newTestServer(t, Config{Dir: dir, Issuer: standInIssuer, Identity: workflowIdentity, TrustedRoot: rootPath})
	if s.Status() != "ok" {
		t.Fatalf("keyless: %s", s.Status())
	}
	s, _ = newTestServer(t, Config{Dir: dir, Issuer: standInIssuer, Identity: `^https://github\.com/someone/else/.*$`, TrustedRoot: rootPath})
	if !strings.Contains(s.Status(), "unverified") {
		t.Fatalf("wrong identity: %s", s.Status())
	}
}

func TestServerReload(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	dir := registryDir(t, registryJSON, keyPath)
	s, h := newTestServer(t, Config{Dir: dir, PublicKey: pubPath})
	if s.Status() != "ok" {
		t.Fatal(s.Status())
	}

	newer := bytes.Replace(registryJSON, []byte("2026-11-27T09:30:00Z"), []byte("2026-11-28T09:30:00Z"), 1)
	newer = bytes.Replace(newer, []byte("Mira Okafor"), []byte("Mira O. Okafor"), 1)
	writeSigned(t, dir, newer, keyPath)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, h, "/plugins.json"); !bytes.Equal(rec.Body.Bytes(), newer) {
		t.Fatal("reload did not serve the newer list")
	}

	// A replayed older list, validly signed, is refused; the newer stays.
	writeSigned(t, dir, registryJSON, keyPath)
	if err := s.Reload(); !errors.Is(err, ErrOlderList) {
		t.Fatalf("older list: %v", err)
	}
	if rec := get(t, h, "/plugins.json"); !bytes.Equal(rec.Body.Bytes(), newer) {
		t.Fatal("an older list replaced the newer one")
	}

	// A tampered list is refused; the verified one stays served.
	os.WriteFile(filepath.Join(dir, "plugins.json"), bytes.Replace(newer, []byte("Ledgerly Ltd"), []byte("Ledgerly Evil"), 1), 0o644)
	if err := s.Reload(); !errors.Is(err, ErrNotVerified) {
		t.Fatalf("tampered: %v", err)
	}
	if s.Status() != "ok" || !bytes.Equal(get(t, h, "/plugins.json").Body.Bytes(), newer) {
		t.Fatal("tampered reload changed what is served")
	}
}
