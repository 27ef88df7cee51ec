package registry

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const workflowRef = "surfsense/pluginhost/.github/workflows/registry.yml@refs/heads/main"
const workflowIdentity = `^https://github\.com/surfsense/pluginhost/\.github/workflows/registry\.yml@refs/heads/main$`

// testKeys makes a key pair in a temporary folder and returns the paths.
func testKeys(t *testing.T) (keyPath, pubPath string) {
	t.Helper()
	keyPath, pubPath, err := Keygen(filepath.Join(t.TempDir(), "test"))
	if err != nil {
		t.Fatal(err)
	}
	return keyPath, pubPath
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestKeygenWritesPEMPairWithModes(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "maint")
	keyPath, pubPath, err := Keygen(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if keyPath != prefix+".key" || pubPath != prefix+".pub" {
		t.Fatalf("paths %s %s", keyPath, pubPath)
	}
	ki, _ := os.Stat(keyPath)
	pi, _ := os.Stat(pubPath)
	if ki.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %04o, want 0600", ki.Mode().Perm())
	}
	if pi.Mode().Perm()&0o044 == 0 {
		t.Errorf("public key mode %04o should be readable", pi.Mode().Perm())
	}
	if !bytes.HasPrefix(readFile(t, keyPath), []byte("-----BEGIN PRIVATE KEY-----")) {
		t.Error("private key is not PKCS #8 PEM")
	}
	if _, err := ParsePublicKey(readFile(t, pubPath)); err != nil {
		t.Error(err)
	}
	if _, err := LoadPrivateKey(keyPath); err != nil {
		t.Error(err)
	}
	if _, _, err := Keygen(prefix); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second keygen over the same prefix: %v, want a refusal", err)
	}
	if _, _, err := Keygen(""); err == nil {
		t.Error("empty prefix accepted")
	}
}

func TestLoadPrivateKeyRefusals(t *testing.T) {
	dir := t.TempDir()
	keyPath, _ := testKeys(t)
	open := filepath.Join(dir, "open.key")
	os.WriteFile(open, readFile(t, keyPath), 0o644)
	if _, err := LoadPrivateKey(open); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable key: %v", err)
	}
	enc := filepath.Join(dir, "enc.key")
	os.WriteFile(enc, []byte("-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n"), 0o600)
	if _, err := LoadPrivateKey(enc); err == nil || !strings.Contains(err.Error(), "encrypted") {
		t.Errorf("encrypted key: %v", err)
	}
	junk := filepath.Join(dir, "junk.key")
	os.WriteFile(junk, []byte("not a key"), 0o600)
	if _, err := LoadPrivateKey(junk); err == nil {
		t.Error("junk accepted as a key")
	}
	if _, err := LoadPrivateKey(filepath.Join(dir, "absent.key")); err == nil {
		t.Error("absent key accepted")
	}
	if _, err := ParsePublicKey([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")); err == nil {
		t.Error("a certificate accepted as a public key")
	}
}

func TestSignFileVerifyFile(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	file := filepath.Join(t.TempDir(), "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	bundlePath, err := SignFile(keyPath, file)
	if err != nil {
		t.Fatal(err)
	}
	if bundlePath != file+".sigstore.json" {
		t.Fatalf("bundle path %s", bundlePath)
	}
	b := readFile(t, bundlePath)
	for _, want := range []string{`"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"`, `"publicKey"`, `"messageSignature"`, `"SHA2_256"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("bundle lacks %s:\n%s", want, b)
		}
	}
	trust := Trust{PublicKey: readFile(t, pubPath)}
	if err := VerifyFile(trust, file, ""); err != nil {
		t.Fatalf("verify: %v", err)
	}

	t.Run("tampered", func(t *testing.T) {
		tampered := bytes.Replace(registryJSON, []byte("Ledgerly Ltd"), []byte("Ledgerly Inc"), 1)
		os.WriteFile(file+".t", tampered, 0o644)
		err := VerifyFile(trust, file+".t", bundlePath)
		if !errors.Is(err, ErrNotVerified) {
			t.Fatalf("tampered list: %v", err)
		}
	})
	t.Run("one byte appended", func(t *testing.T) {
		os.WriteFile(file+".n", append(bytes.Clone(registryJSON), '\n'), 0o644)
		if err := VerifyFile(trust, file+".n", bundlePath); !errors.Is(err, ErrNotVerified) {
			t.Fatalf("appended byte: %v", err)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		_, otherPub := testKeys(t)
		err := VerifyFile(Trust{PublicKey: readFile(t, otherPub)}, file, "")
		if !errors.Is(err, ErrNotVerified) {
			t.Fatalf("wrong key: %v", err)
		}
	})
	t.Run("missing bundle", func(t *testing.T) {
		err := VerifyFile(trust, file, filepath.Join(t.TempDir(), "none.json"))
		if !errors.Is(err, ErrNotVerified) || !strings.Contains(err.Error(), "no bundle") {
			t.Fatalf("missing bundle: %v", err)
		}
	})
	t.Run("empty and garbage bundles", func(t *testing.T) {
		v, err := NewVerifier(trust)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]byte{nil, []byte("  "), []byte("{}"), []byte("not json"), []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`)} {
			if err := v.Verify(registryJSON, bad); !errors.Is(err, ErrNotVerified) {
				t.Errorf("bundle %q: %v", bad, err)
			}
		}
	})
	t.Run("keyless trust refuses a key-signed bundle", func(t *testing.T) {
		err := VerifyFile(Trust{Issuer: standInIssuer, Identity: workflowIdentity}, file, "")
		if !errors.Is(err, ErrNotVerified) {
			t.Fatalf("key bundle under keyless trust: %v", err)
		}
	})
}

func TestNewVerifierConfigErrors(t *testing.T) {
	_, pubPath := testKeys(t)
	pub := readFile(t, pubPath)
	cases := map[string]Trust{
		"nothing":                {},
		"key and identity":       {PublicKey: pub, Issuer: standInIssuer, Identity: workflowIdentity},
		"bad key":                {PublicKey: []byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")},
		"issuer only":            {Issuer: standInIssuer},
		"identity only":          {Identity: workflowIdentity},
		"unanchored":             {Issuer: standInIssuer, Identity: `https://github\.com/surfsense/.*`},
		"anchored at start only": {Issuer: standInIssuer, Identity: `^https://github\.com/surfsense/`},
		"escaped dollar":         {Issuer: standInIssuer, Identity: `^https://x\$`},
		"bad regexp":             {Issuer: standInIssuer, Identity: `^(unclosed$`},
		"bad trusted root":       {Issuer: standInIssuer, Identity: workflowIdentity, TrustedRoot: []byte("{")},
	}
	for name, trust := range cases {
		if _, err := NewVerifier(trust); err == nil {
			t.Errorf("%s: accepted", name)
		} else if errors.Is(err, ErrNotVerified) {
			t.Errorf("%s: a configuration error must not read as a failed signature: %v", name, err)
		}
	}
	if _, err := NewVerifier(Trust{Issuer: GitHubActionsIssuer, Identity: workflowIdentity}); err != nil {
		t.Errorf("public-good keyless trust: %v", err)
	}
}

func TestKeylessSignAndVerifyAgainstStandIn(t *testing.T) {
	s := newSigstoreStandIn(t)
	data := registryJSON
	out, err := SignKeylessBytes(context.Background(), s.options(workflowToken(workflowRef)), data)
	if err != nil {
		t.Fatalf("keyless signing: %v", err)
	}
	if s.fulcioCalls.Load() != 1 || s.rekorCalls.Load() != 1 {
		t.Errorf("calls: fulcio %d rekor %d, want 1 each", s.fulcioCalls.Load(), s.rekorCalls.Load())
	}
	issuer, identity, err := BundleIdentity(out)
	if err != nil {
		t.Fatal(err)
	}
	if issuer != standInIssuer || identity != "https://github.com/"+workflowRef {
		t.Errorf("identity %q issuer %q", identity, issuer)
	}
	for _, want := range []string{`"x509CertificateChain"`, `"certificate"`, `"tlogEntries"`, `"inclusionProof"`, `"inclusionPromise"`} {
		if want == `"x509CertificateChain"` {
			continue // v0.3 bundles carry the leaf alone
		}
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("bundle lacks %s", want)
		}
	}

	good := Trust{Issuer: standInIssuer, Identity: workflowIdentity, TrustedRoot: s.trustedRoot}
	v, err := NewVerifier(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(data, out); err != nil {
		t.Fatalf("verify: %v", err)
	}
	refusals := map[string]struct {
		trust Trust
		data  []byte
	}{
		"wrong identity":          {Trust{Issuer: standInIssuer, Identity: `^https://github\.com/surfsense/pluginhost/\.github/workflows/other\.yml@refs/heads/main$`, TrustedRoot: s.trustedRoot}, data},
		"identity of another ref": {Trust{Issuer: standInIssuer, Identity: `^https://github\.com/surfsense/pluginhost/\.github/workflows/registry\.yml@refs/heads/dev$`, TrustedRoot: s.trustedRoot}, data},
		"prefix is not enough":    {Trust{Issuer: standInIssuer, Identity: `^https://github\.com/surfsense/pluginhost/$|^x$`, TrustedRoot: s.trustedRoot}, data},
		"wrong issuer":            {Trust{Issuer: "https://accounts.google.com", Identity: workflowIdentity, TrustedRoot: s.trustedRoot}, data},
		"public-good root":        {Trust{Issuer: standInIssuer, Identity: workflowIdentity}, data},
		"tampered":                {good, bytes.Replace(data, []byte("arXiv"), []byte("arXiV"), 1)},
	}
	for name, c := range refusals {
		v, err := NewVerifier(c.trust)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = v.Verify(c.data, out)
		if !errors.Is(err, ErrNotVerified) {
			t.Errorf("%s: %v, want ErrNotVerified", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	_, pubPath := testKeys(t)
	if err := (mustVerifier(t, Trust{PublicKey: readFile(t, pubPath)})).Verify(data, out); !errors.Is(err, ErrNotVerified) {
		t.Errorf("keyless bundle under key trust: %v", err)
	}
}

func mustVerifier(t *testing.T, trust Trust) *Verifier {
	t.Helper()
	v, err := NewVerifier(trust)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestKeylessSigningRefusals(t *testing.T) {
	s := newSigstoreStandIn(t)
	ctx := context.Background()
	cases := map[string]KeylessOptions{
		"no token":           {FulcioURL: s.fulcio.URL, RekorURL: s.rekor.URL, TrustedRoot: s.trustedRoot},
		"wrong audience":     s.options(standInToken(map[string]any{"iss": standInIssuer, "aud": "github", "sub": "x"})),
		"not a JWT":          s.options("opaque-token"),
		"bad Fulcio URL":     {IDToken: workflowToken(workflowRef), FulcioURL: "ftp://x", RekorURL: s.rekor.URL},
		"Rekor v2 alone":     {IDToken: workflowToken(workflowRef), FulcioURL: s.fulcio.URL, RekorURL: s.rekor.URL, RekorVersion: 2},
		"Rekor v3":           {IDToken: workflowToken(workflowRef), FulcioURL: s.fulcio.URL, RekorURL: s.rekor.URL, RekorVersion: 3},
		"untrusted services": {IDToken: workflowToken(workflowRef), FulcioURL: s.fulcio.URL, RekorURL: s.rekor.URL}, // checked against the public-good root
	}
	for name, opts := range cases {
		opts.Timeout = 5e9
		_, err := SignKeylessBytes(ctx, opts, []byte("x"))
		if err == nil {
			t.Errorf("%s: signed", name)
		}
		t.Logf("%s: %v", name, err)
	}
}

func TestSignKeylessWritesBundleFile(t *testing.T) {
	s := newSigstoreStandIn(t)
	file := filepath.Join(t.TempDir(), "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	path, err := SignKeyless(context.Background(), s.options(workflowToken(workflowRef)), file)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyFile(Trust{Issuer: standInIssuer, Identity: workflowIdentity, TrustedRoot: s.trustedRoot}, file, path); err != nil {
		t.Fatal(err)
	}
}

func TestGitHubActionsIDToken(t *testing.T) {
	var gotAuth, gotAudience, gotOther string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		gotAudience = r.URL.Query().Get("audience")
		gotOther = r.URL.Query().Get("api-version")
		if gotAuth != "Bearer request-token" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Write([]byte(`{"value":"the.oidc.token"}`))
	}))
	defer srv.Close()
	env := map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": srv.URL + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token"}
	tok, err := GitHubActionsIDToken(context.Background(), srv.Client(), func(k string) string { return env[k] }, "sigstore")
	if err != nil {
		t.Fatal(err)
	}
	if tok != "the.oidc.token" || gotAudience != "sigstore" || gotOther != "2.0" {
		t.Errorf("token %q audience %q api-version %q", tok, gotAudience, gotOther)
	}
	env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "wrong"
	if _, err := GitHubActionsIDToken(context.Background(), srv.Client(), func(k string) string { return env[k] }, "sigstore"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("refused request: %v", err)
	}
	if _, err := GitHubActionsIDToken(context.Background(), srv.Client(), func(string) string { return "" }, "sigstore"); err == nil || !strings.Contains(err.Error(), "id-token: write") {
		t.Errorf("outside Actions: %v", err)
	}
}

func TestEmbeddedRegistryVerifiesWithDevKey(t *testing.T) {
	list, bundle := EmbeddedRegistry()
	err := mustVerifier(t, Trust{PublicKey: DevPublicKey()}).Verify(list, bundle)
	if err != nil {
		t.Fatalf("the embedded registry does not verify with registry/dev-registry.pub: %v\n"+
			"after changing registry/plugins.json, run `go generate ./registry` to re-sign it", err)
	}
}

func TestPublicGoodTrustedRootParses(t *testing.T) {
	root := PublicGoodTrustedRoot()
	if !bytes.Contains(root, []byte("https://rekor.sigstore.dev")) || !bytes.Contains(root, []byte("https://fulcio.sigstore.dev")) {
		t.Fatal("the embedded trusted root is not the public-good one")
	}
	if _, err := NewVerifier(Trust{Issuer: GitHubActionsIssuer, Identity: workflowIdentity, TrustedRoot: root}); err != nil {
		t.Fatal(err)
	}
}

func TestKeyFingerprint(t *testing.T) {
	_, a := testKeys(t)
	_, b := testKeys(t)
	fa, fb := KeyFingerprint(readFile(t, a)), KeyFingerprint(readFile(t, b))
	if !regexp.MustCompile(`^sha256:[0-9a-f]{16}$`).MatchString(fa) || fa == fb {
		t.Errorf("fingerprints %s %s", fa, fb)
	}
	if KeyFingerprint([]byte("junk")) != "(unreadable)" {
		t.Error("junk fingerprinted")
	}
}
