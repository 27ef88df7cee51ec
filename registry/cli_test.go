package registry

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// copyList writes data and the icons folder beside it into a new folder.
func copyList(t *testing.T, data []byte, icons map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "icons"), 0o755)
	for n, b := range icons {
		os.WriteFile(filepath.Join(dir, "icons", n), b, 0o644)
	}
	path := filepath.Join(dir, "plugins.json")
	os.WriteFile(path, data, 0o644)
	return path
}

func TestCLICheckRepositoryFiles(t *testing.T) {
	// Tests run in registry/; the defaults find the repository root above.
	code, out, errOut := runCLI(t, "check")
	if code != 0 {
		t.Fatalf("check: %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "first_party/plugins.json: ok (8 plugins)") || !strings.Contains(out, "registry/plugins.json: ok (4 plugins, 1 removed)") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestCLICheckListsEveryFailure(t *testing.T) {
	bad := bytes.Replace(registryJSON, []byte(`"url": "https://mcp.ledgerly.app/mcp"`), []byte(`"url": "http://mcp.ledgerly.app/mcp"`), 1)
	bad = bytes.Replace(bad, []byte(`"privacy_policy": "https://recipe-box.net/privacy",`), nil, 1)
	bad = bytes.Replace(bad, []byte(`"id": "arxiv-lookup"`), []byte(`"id": "amazon"`), 1)
	regPath := copyList(t, bad, map[string][]byte{"ledgerly.svg": []byte(okSVG), "orbit-docs.svg": []byte(okSVG)})
	code, _, errOut := runCLI(t, "check", "--registry", regPath)
	if code != 1 {
		t.Fatalf("check of a broken registry: exit %d", code)
	}
	for _, want := range []string{
		regPath + `: ledgerly: url: "http://mcp.ledgerly.app/mcp" must be an https:// URL`,
		regPath + ": recipe-box: privacy_policy: missing",
		regPath + ": recipe-box: icon: recipe-box.png is not in the icons folder",
		regPath + ": amazon: icon: arxiv-lookup.svg is not in the icons folder",
		regPath + `: amazon: id: "amazon" is SurfSense's own plugin's id`,
		"FAILED",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestCLICheckPrevious(t *testing.T) {
	prev := copyList(t, registryJSON, nil)
	// The next list drops ledgerly outright instead of moving it to removed.
	next := bytes.Replace(registryJSON, []byte(`"id": "ledgerly"`), []byte(`"id": "ledgerly-two"`), 1)
	next = bytes.Replace(next, []byte("2026-11-27T09:30:00Z"), []byte("2026-11-28T09:30:00Z"), 1)
	icons := map[string][]byte{}
	for _, n := range []string{"ledgerly.svg", "orbit-docs.svg", "arxiv-lookup.svg", "recipe-box.png"} {
		b, _ := os.ReadFile(filepath.Join("icons", n))
		icons[n] = b
	}
	nextPath := copyList(t, next, icons)
	code, _, errOut := runCLI(t, "check", "--registry", nextPath, "--previous", prev)
	if code != 1 || !strings.Contains(errOut, "ledgerly: id: was listed and is gone") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	same := copyList(t, registryJSON, icons)
	if code, _, errOut := runCLI(t, "check", "--registry", same, "--previous", prev); code != 0 {
		t.Fatalf("unchanged list against itself: %d\n%s", code, errOut)
	}
	if code, _, _ := runCLI(t, "check", "--registry", same, "--previous", filepath.Join(t.TempDir(), "none")); code != 1 {
		t.Error("an unreadable previous list passed")
	}
}

func TestCLIKeygenSignVerify(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "maint")
	if code, out, errOut := runCLI(t, "keygen", "--out", prefix); code != 0 || !strings.Contains(out, "maint.key") {
		t.Fatalf("keygen: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "keygen", "--out", prefix); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("keygen over existing files: %d %s", code, errOut)
	}
	file := filepath.Join(dir, "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	// Flags after the file work too.
	if code, out, errOut := runCLI(t, "sign", file, "--key", prefix+".key"); code != 0 || !strings.Contains(out, "plugins.json.sigstore.json") {
		t.Fatalf("sign: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "verify", "--key", prefix+".pub", file); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("verify: %d %s %s", code, out, errOut)
	}
	_, otherPub := testKeys(t)
	if code, _, errOut := runCLI(t, "verify", "--key", otherPub, file); code != 1 || !strings.Contains(errOut, "does not verify") {
		t.Errorf("verify with another key: %d %s", code, errOut)
	}
	os.WriteFile(file+".changed", append(bytes.Clone(registryJSON), ' '), 0o644)
	if code, _, _ := runCLI(t, "verify", "--key", prefix+".pub", "--bundle", file+".sigstore.json", file+".changed"); code != 1 {
		t.Error("a changed file verified")
	}
	if code, _, errOut := runCLI(t, "verify", "--key", prefix+".pub", file+".changed"); code != 1 || !strings.Contains(errOut, "no bundle") {
		t.Errorf("missing bundle: %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "verify", "--issuer", GitHubActionsIssuer, "--identity", workflowIdentity, file); code != 1 {
		t.Error("a key-signed file verified keyless")
	}
}

func TestCLIKeylessAgainstStandIn(t *testing.T) {
	s := newSigstoreStandIn(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	rootPath := filepath.Join(dir, "root.json")
	os.WriteFile(rootPath, s.trustedRoot, 0o644)
	tokenPath := filepath.Join(dir, "token")
	os.WriteFile(tokenPath, []byte(workflowToken(workflowRef)+"\n"), 0o600)

	code, out, errOut := runCLI(t, "sign", "--keyless", "--identity-token-file", tokenPath,
		"--fulcio-url", s.fulcio.URL, "--rekor-url", s.rekor.URL, "--trusted-root", rootPath, file)
	if code != 0 || !strings.Contains(out, "signed as https://github.com/"+workflowRef) {
		t.Fatalf("keyless sign: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "verify", "--issuer", standInIssuer, "--identity", workflowIdentity, "--trusted-root", rootPath, file); code != 0 {
		t.Fatalf("keyless verify: %d %s %s", code, out, errOut)
	}
	if code, _, _ := runCLI(t, "verify", "--issuer", standInIssuer, "--identity", `^https://github\.com/other/.*$`, "--trusted-root", rootPath, file); code != 1 {
		t.Error("another identity verified")
	}
	if code, _, errOut := runCLI(t, "verify", "--issuer", standInIssuer, "--identity", "https://github.com/", "--trusted-root", rootPath, file); code != 1 || !strings.Contains(errOut, "anchored") {
		t.Errorf("unanchored identity: %d %s", code, errOut)
	}
	// With no token anywhere, keyless signing says where one comes from.
	t.Setenv("SIGSTORE_ID_TOKEN", "")
	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_URL", "")
	if code, _, errOut := runCLI(t, "sign", "--keyless", file); code != 1 || !strings.Contains(errOut, "id-token: write") {
		t.Errorf("no token: %d %s", code, errOut)
	}
}

func TestCLIUsage(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"check", "extra"},
		{"check", "--nope"},
		{"keygen"},
		{"sign", "file"},
		{"sign", "--key", "k", "--keyless", "file"},
		{"sign", "--key", "k"},
		{"verify", "file"},
		{"verify", "--key", "k", "--issuer", "i", "--identity", "^x$", "file"},
		{"verify", "--key", "k"},
	}
	for _, args := range cases {
		if code, _, errOut := runCLI(t, args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
	if code, out, _ := runCLI(t, "help"); code != 0 || !strings.Contains(out, "pluginhost registry") {
		t.Errorf("help: %d", code)
	}
}
