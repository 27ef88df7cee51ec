package registry

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cosignBinary finds cosign: $COSIGN, else cosign on PATH. The interop
// tests skip without it; build one with
//
//	GOBIN=/tmp/bin go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3
//	COSIGN=/tmp/bin/cosign go test ./registry -run Cosign
func cosignBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COSIGN"); p != "" {
		return p
	}
	p, err := exec.LookPath("cosign")
	if err != nil {
		t.Skip("cosign not found: set COSIGN to a cosign v3 binary or put cosign on PATH to run the interop tests")
	}
	return p
}

func runCosign(t *testing.T, bin, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// No network: point TUF at an empty cache so nothing is fetched silently.
	cmd.Env = append(os.Environ(), append(env, "TUF_ROOT="+filepath.Join(dir, ".sigstore"), "SIGSTORE_NO_CACHE=true")...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCosignVerifiesOurKeyBundle(t *testing.T) {
	bin := cosignBinary(t)
	dir := t.TempDir()
	keyPath, pubPath, err := Keygen(filepath.Join(dir, "maint"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	bundle, err := SignFile(keyPath, file)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := runCosign(t, bin, dir, nil, "verify-blob", "--key", pubPath, "--bundle", bundle, "--insecure-ignore-tlog=true", file); err != nil {
		t.Fatalf("cosign refused our bundle: %v\n%s", err, out)
	}
	os.WriteFile(file, append([]byte(" "), registryJSON...), 0o644)
	if out, err := runCosign(t, bin, dir, nil, "verify-blob", "--key", pubPath, "--bundle", bundle, "--insecure-ignore-tlog=true", file); err == nil {
		t.Fatalf("cosign accepted a changed file:\n%s", out)
	}
}

func TestCosignVerifiesTheEmbeddedRegistry(t *testing.T) {
	bin := cosignBinary(t)
	dir := t.TempDir()
	list, bundle := EmbeddedRegistry()
	os.WriteFile(filepath.Join(dir, "plugins.json"), list, 0o644)
	os.WriteFile(filepath.Join(dir, "plugins.json.sigstore.json"), bundle, 0o644)
	os.WriteFile(filepath.Join(dir, "dev.pub"), DevPublicKey(), 0o644)
	if out, err := runCosign(t, bin, dir, nil, "verify-blob", "--key", "dev.pub", "--bundle", "plugins.json.sigstore.json", "--insecure-ignore-tlog=true", "plugins.json"); err != nil {
		t.Fatalf("cosign refused the embedded registry: %v\n%s", err, out)
	}
}

func TestWeVerifyCosignKeyBundle(t *testing.T) {
	bin := cosignBinary(t)
	dir := t.TempDir()
	env := []string{"COSIGN_PASSWORD=interop-test"}
	if out, err := runCosign(t, bin, dir, env, "generate-key-pair"); err != nil {
		t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	out, err := runCosign(t, bin, dir, env, "sign-blob", "--yes", "--key", "cosign.key", "--bundle", "cosign.bundle",
		"--tlog-upload=false", "--use-signing-config=false", "plugins.json")
	if err != nil {
		t.Fatalf("cosign sign-blob: %v\n%s", err, out)
	}
	trust := Trust{PublicKey: readFile(t, filepath.Join(dir, "cosign.pub"))}
	if err := VerifyFile(trust, file, filepath.Join(dir, "cosign.bundle")); err != nil {
		t.Fatalf("cosign's bundle does not verify here: %v", err)
	}
	if _, err := VerifyList(registryJSON, readFile(t, filepath.Join(dir, "cosign.bundle")), trust, nil); err != nil {
		t.Fatalf("VerifyList of cosign's bundle: %v", err)
	}
	// Our CLI refuses cosign's encrypted private key with a clear message.
	if code, _, errOut := runCLI(t, "sign", "--key", filepath.Join(dir, "cosign.key"), file); code != 1 || !strings.Contains(errOut, "encrypted") {
		t.Errorf("cosign key: %d %s", code, errOut)
	}
}

func TestCosignVerifiesOurKeylessBundle(t *testing.T) {
	bin := cosignBinary(t)
	s := newSigstoreStandIn(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plugins.json")
	os.WriteFile(file, registryJSON, 0o644)
	bundle, err := SignKeyless(context.Background(), s.options(workflowToken(workflowRef)), file)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "root.json"), s.trustedRoot, 0o644)
	args := []string{"verify-blob", "--bundle", bundle, "--trusted-root", "root.json",
		"--certificate-oidc-issuer", standInIssuer, "--certificate-identity-regexp", workflowIdentity,
		// The stand-in root names no certificate transparency log.
		"--insecure-ignore-sct", file}
	if out, err := runCosign(t, bin, dir, nil, args...); err != nil {
		t.Fatalf("cosign refused our keyless bundle: %v\n%s", err, out)
	}
	args[8] = `^https://github\.com/someone/else/.*$`
	out, err := runCosign(t, bin, dir, nil, args...)
	if err == nil {
		t.Fatalf("cosign accepted another identity:\n%s", out)
	}
	if !strings.Contains(out, "someone/else") {
		t.Errorf("cosign refused for another reason than the identity:\n%s", out)
	}
}
