// Command devsign re-signs the registry built into the binary
// (registry/plugins.json) with a dev key, writing
// registry/plugins.json.sigstore.json and registry/dev-registry.pub. Run it
// through `go generate ./registry` after changing the registry.
//
// By default it makes a new key pair in memory and throws the private key
// away once the list is signed: the dev key only proves that the embedded
// copy is the one the repository holds, so nobody needs to keep it. With
// -key it signs with a held private key (PEM, as `pluginhost registry keygen`
// writes) instead.
//
// It refuses to sign a registry that breaks its rules.
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/surfsense/pluginhost/registry"
)

func main() {
	dir := flag.String("dir", ".", "the registry folder (holding plugins.json and icons/)")
	keyPath := flag.String("key", "", "a held private key to sign with (default: a new key, thrown away)")
	flag.Parse()
	if err := run(*dir, *keyPath); err != nil {
		fmt.Fprintln(os.Stderr, "devsign:", err)
		os.Exit(1)
	}
}

func run(dir, keyPath string) error {
	listPath := filepath.Join(dir, "plugins.json")
	data, err := os.ReadFile(listPath)
	if err != nil {
		return err
	}
	if _, ps := registry.Check(registry.ThirdParty, data, os.DirFS(filepath.Join(dir, "icons"))); len(ps) > 0 {
		return fmt.Errorf("%s breaks the registry's rules; fix it before signing:\n%s", listPath, ps.Error())
	}
	var key crypto.Signer
	if keyPath != "" {
		if key, err = registry.LoadPrivateKey(keyPath); err != nil {
			return err
		}
	} else if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return err
	}
	bundle, err := registry.SignBytes(key, data)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, "dev-registry.pub"), pub, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(listPath+registry.BundleSuffix, bundle, 0o644); err != nil {
		return err
	}
	fmt.Printf("signed %s; public key in %s\n", listPath, filepath.Join(dir, "dev-registry.pub"))
	return nil
}
