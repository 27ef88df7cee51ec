package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// ErrNotVerified is wrapped by every failure to verify a signature: a
// tampered file, another key, another identity, a malformed or missing bundle.
// Errors that do not wrap it are configuration errors (a bad key, a bad
// regular expression).
var ErrNotVerified = errors.New("signature does not verify")

// Trust says whose signature is accepted: either a public key (a key pair's
// bundle), or an OIDC issuer and identity (a keyless bundle, checked against
// a Sigstore trusted root).
type Trust struct {
	// PublicKey is a PEM public key ("PUBLIC KEY"). When set, only bundles
	// signed with its private key verify.
	PublicKey []byte
	// Issuer is the OIDC issuer a keyless certificate must name, exactly
	// (https://token.actions.githubusercontent.com for GitHub Actions).
	Issuer string
	// Identity is a regular expression, anchored with ^ and $, that the
	// certificate's identity (its subject alternative name: for GitHub
	// Actions the workflow URL with its ref) must match.
	Identity string
	// TrustedRoot is a Sigstore trusted_root.json for keyless bundles; nil
	// means the public-good root built in ([PublicGoodTrustedRoot]).
	TrustedRoot []byte
}

// IsZero reports whether t names no trust at all.
func (t Trust) IsZero() bool {
	return len(t.PublicKey) == 0 && t.Issuer == "" && t.Identity == ""
}

// String describes the trust for logs and messages.
func (t Trust) String() string {
	switch {
	case len(t.PublicKey) > 0:
		return "public key " + KeyFingerprint(t.PublicKey)
	case t.Issuer != "" || t.Identity != "":
		return fmt.Sprintf("keyless, issuer %s, identity %s", t.Issuer, t.Identity)
	default:
		return "no trust configured"
	}
}

// KeyFingerprint is a short SHA-256 fingerprint of a PEM public key, or
// "(unreadable)".
func KeyFingerprint(pemKey []byte) string {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return "(unreadable)"
	}
	sum := sha256.Sum256(block.Bytes)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// timeZero leaves a trusted key's validity unbounded.
var timeZero time.Time

// readLimited reads a file of at most max bytes.
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", path, max)
	}
	return data, nil
}

// Verifier checks Sigstore bundles against one [Trust]. It is safe for
// concurrent use.
type Verifier struct {
	trust    Trust
	sv       *verify.Verifier
	keyed    bool
	identity verify.CertificateIdentity
}

// NewVerifier prepares a verifier. It fails on a configuration that cannot
// work: both a key and an identity, an unreadable key, an issuer without an
// identity or the reverse, an identity not anchored with ^ and $, or an
// unreadable trusted root.
func NewVerifier(t Trust) (*Verifier, error) {
	keyed := len(t.PublicKey) > 0
	keyless := t.Issuer != "" || t.Identity != ""
	switch {
	case keyed && keyless:
		return nil, errors.New("trust: give a public key or an issuer and identity, not both")
	case !keyed && !keyless:
		return nil, errors.New("trust: give a public key, or an issuer and identity for keyless bundles")
	}
	v := &Verifier{trust: t, keyed: keyed}
	if keyed {
		key, err := ParsePublicKey(t.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("trust: %w", err)
		}
		sigVerifier, err := signature.LoadDefaultVerifier(key)
		if err != nil {
			return nil, fmt.Errorf("trust: the public key: %w", err)
		}
		expiring := root.NewExpiringKey(sigVerifier, timeZero, timeZero)
		material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return expiring, nil
		})
		v.sv, err = verify.NewVerifier(material, verify.WithNoObserverTimestamps())
		if err != nil {
			return nil, fmt.Errorf("trust: %w", err)
		}
		return v, nil
	}

	if t.Issuer == "" || t.Identity == "" {
		return nil, errors.New("trust: keyless verification needs both an issuer and an identity")
	}
	if err := checkAnchored(t.Identity); err != nil {
		return nil, err
	}
	rootJSON := t.TrustedRoot
	if len(rootJSON) == 0 {
		rootJSON = PublicGoodTrustedRoot()
	}
	tr, err := root.NewTrustedRootFromJSON(rootJSON)
	if err != nil {
		return nil, fmt.Errorf("trust: reading the trusted root: %w", err)
	}
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
	// A root that names certificate transparency logs (the public-good one
	// does) requires the certificate to carry a timestamp from one of them.
	if len(tr.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	v.sv, err = verify.NewVerifier(tr, opts...)
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	v.identity, err = verify.NewShortCertificateIdentity(t.Issuer, "", "", "^(?:"+t.Identity+")$")
	if err != nil {
		return nil, fmt.Errorf("trust: identity: %w", err)
	}
	return v, nil
}

// checkAnchored refuses an identity expression that could match more than
// meant: it must start with ^, end with $ and compile.
func checkAnchored(re string) error {
	if !strings.HasPrefix(re, "^") || !strings.HasSuffix(re, "$") || strings.HasSuffix(re, `\$`) {
		return fmt.Errorf("trust: the identity %q must be a regular expression anchored with ^ and $ (^https://github\\.com/org/repo/\\.github/workflows/registry\\.yml@refs/heads/main$)", re)
	}
	if _, err := regexp.Compile(re); err != nil {
		return fmt.Errorf("trust: the identity is not a regular expression: %v", err)
	}
	return nil
}

// Trust returns the trust the verifier was built from.
func (v *Verifier) Trust() Trust { return v.trust }

// Verify checks that bundleJSON is a Sigstore bundle over exactly artifact,
// signed as the verifier's trust requires. Every failure wraps
// [ErrNotVerified].
func (v *Verifier) Verify(artifact, bundleJSON []byte) error {
	if len(bytes.TrimSpace(bundleJSON)) == 0 {
		return fmt.Errorf("%w: the bundle is missing or empty", ErrNotVerified)
	}
	if len(bundleJSON) > MaxBundleBytes {
		return fmt.Errorf("%w: the bundle is %d bytes; the most is %d", ErrNotVerified, len(bundleJSON), MaxBundleBytes)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return fmt.Errorf("%w: not a Sigstore bundle: %v", ErrNotVerified, err)
	}
	var policy verify.PolicyBuilder
	if v.keyed {
		policy = verify.NewPolicy(verify.WithArtifact(bytes.NewReader(artifact)), verify.WithKey())
	} else {
		policy = verify.NewPolicy(verify.WithArtifact(bytes.NewReader(artifact)), verify.WithCertificateIdentity(v.identity))
	}
	if _, err := v.sv.Verify(&b, policy); err != nil {
		return fmt.Errorf("%w: %v", ErrNotVerified, err)
	}
	return nil
}

// VerifyFile verifies file against its bundle (file+".sigstore.json" when
// bundlePath is "") under trust.
func VerifyFile(trust Trust, file, bundlePath string) error {
	v, err := NewVerifier(trust)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the signed file: %w", err)
	}
	if bundlePath == "" {
		bundlePath = file + BundleSuffix
	}
	b, err := readLimited(bundlePath, MaxBundleBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: no bundle at %s", ErrNotVerified, bundlePath)
		}
		return fmt.Errorf("reading the bundle: %w", err)
	}
	return v.Verify(data, b)
}
