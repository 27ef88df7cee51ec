package registry

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
)

// BundleSuffix is appended to a signed file's name to name its Sigstore
// bundle: plugins.json is signed by plugins.json.sigstore.json.
const BundleSuffix = ".sigstore.json"

// MaxBundleBytes bounds a bundle read from disk or the network.
const MaxBundleBytes = 1 << 20

// Keygen writes a new ECDSA P-256 key pair: prefix+".key", the private key as
// PKCS #8 PEM ("PRIVATE KEY", unencrypted) readable only by its owner (mode
// 0600), and prefix+".pub", the public key as PKIX PEM ("PUBLIC KEY"), the
// form cosign reads. It never overwrites a file: remove an old pair first.
func Keygen(prefix string) (keyPath, pubPath string, err error) {
	if prefix == "" {
		return "", "", errors.New("keygen: give a path prefix for the key files (--out PREFIX)")
	}
	keyPath, pubPath = prefix+".key", prefix+".pub"
	for _, p := range []string{keyPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("keygen: %s exists; remove it or choose another prefix", p)
		}
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("keygen: %w", err)
	}
	keyPEM, pubPEM, err := encodeKeyPair(priv)
	if err != nil {
		return "", "", err
	}
	if err := writeNew(keyPath, keyPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("keygen: %w", err)
	}
	if err := writeNew(pubPath, pubPEM, 0o644); err != nil {
		os.Remove(keyPath)
		return "", "", fmt.Errorf("keygen: %w", err)
	}
	return keyPath, pubPath, nil
}

func encodeKeyPair(priv *ecdsa.PrivateKey) (keyPEM, pubPEM []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the private key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// writeNew creates path with data and mode, failing if it exists.
func writeNew(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// writeReplace writes path through a temporary file and a rename, so a
// reader never sees half a file.
func writeReplace(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// LoadPrivateKey reads an ECDSA private key from a PEM file written by
// [Keygen] ("PRIVATE KEY", PKCS #8) or OpenSSL ("EC PRIVATE KEY"). It refuses
// a key file others can read, and encrypted keys (cosign's): export one
// unencrypted, or sign keyless.
func LoadPrivateKey(path string) (crypto.Signer, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading the private key: %w", err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the private key %s can be read by others (mode %04o); run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the private key: %w", err)
	}
	return ParsePrivateKey(data)
}

// ParsePrivateKey parses an ECDSA private key in PEM.
func ParsePrivateKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("the private key file holds no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "ENCRYPTED PRIVATE KEY", "ENCRYPTED SIGSTORE PRIVATE KEY", "ENCRYPTED COSIGN PRIVATE KEY":
		return nil, fmt.Errorf("the private key is encrypted (%s); this command reads unencrypted PEM keys made by `registry keygen`", block.Type)
	default:
		return nil, fmt.Errorf("the PEM block is %q, not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing the private key: %w", err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the private key is %T; registry signing uses ECDSA keys", key)
	}
	if _, err := ecdsaDetails(ec.Curve); err != nil {
		return nil, err
	}
	return ec, nil
}

// ParsePublicKey parses a PEM public key ("PUBLIC KEY", PKIX), as written by
// [Keygen] and cosign.
func ParsePublicKey(data []byte) (crypto.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("the public key holds no PEM block")
	}
	if block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("the PEM block is %q, not a PUBLIC KEY", block.Type)
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing the public key: %w", err)
	}
	return key, nil
}

func ecdsaDetails(curve elliptic.Curve) (signature.AlgorithmDetails, error) {
	var alg protocommon.PublicKeyDetails
	switch curve {
	case elliptic.P256():
		alg = protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
	case elliptic.P384():
		alg = protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_384
	case elliptic.P521():
		alg = protocommon.PublicKeyDetails_PKIX_ECDSA_P521_SHA_512
	default:
		return signature.AlgorithmDetails{}, errors.New("the key's curve is not P-256, P-384 or P-521")
	}
	return signature.GetAlgorithmDetails(alg)
}

// keyPair adapts a held ECDSA key to sigstore-go's sign.Keypair.
type keyPair struct {
	priv *ecdsa.PrivateKey
	alg  signature.AlgorithmDetails
	hint []byte
}

func newKeyPair(signer crypto.Signer) (*keyPair, error) {
	priv, ok := signer.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the key is %T; registry signing uses ECDSA keys", signer)
	}
	alg, err := ecdsaDetails(priv.Curve)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &keyPair{priv: priv, alg: alg, hint: []byte(base64.StdEncoding.EncodeToString(sum[:]))}, nil
}

func (k *keyPair) GetHashAlgorithm() protocommon.HashAlgorithm { return k.alg.GetProtoHashType() }
func (k *keyPair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.alg.GetSignatureAlgorithm()
}
func (k *keyPair) GetHint() []byte                { return k.hint }
func (k *keyPair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *keyPair) GetPublicKey() crypto.PublicKey { return k.priv.Public() }
func (k *keyPair) GetPublicKeyPem() (string, error) {
	der, err := x509.MarshalPKIXPublicKey(k.priv.Public())
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}
func (k *keyPair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	h := k.alg.GetHashType().New()
	h.Write(data)
	digest := h.Sum(nil)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, digest)
	if err != nil {
		return nil, nil, err
	}
	return sig, digest, nil
}

// SignBytes signs data with a held key and returns the Sigstore bundle
// (JSON, media type v0.3, the public key's hint, no transparency log entry),
// which `cosign verify-blob --key KEY.pub --bundle B --insecure-ignore-tlog`
// accepts. The bundle is checked against the key before it is returned.
func SignBytes(key crypto.Signer, data []byte) ([]byte, error) {
	kp, err := newKeyPair(key)
	if err != nil {
		return nil, err
	}
	b, err := sign.Bundle(&sign.PlainData{Data: data}, kp, sign.BundleOptions{})
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	out, err := marshalBundle(b)
	if err != nil {
		return nil, err
	}
	pubPEM, err := kp.GetPublicKeyPem()
	if err != nil {
		return nil, err
	}
	v, err := NewVerifier(Trust{PublicKey: []byte(pubPEM)})
	if err != nil {
		return nil, err
	}
	if err := v.Verify(data, out); err != nil {
		return nil, fmt.Errorf("the new bundle does not verify: %w", err)
	}
	return out, nil
}

// SignFile signs file with the private key at keyPath and writes the bundle
// beside it as file+".sigstore.json", returning that path.
func SignFile(keyPath, file string) (bundlePath string, err error) {
	key, err := LoadPrivateKey(keyPath)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading the file to sign: %w", err)
	}
	out, err := SignBytes(key, data)
	if err != nil {
		return "", err
	}
	bundlePath = file + BundleSuffix
	if err := writeReplace(bundlePath, out, 0o644); err != nil {
		return "", fmt.Errorf("writing the bundle: %w", err)
	}
	return bundlePath, nil
}

// marshalBundle writes a bundle as indented JSON (protojson's own spacing
// varies from build to build).
func marshalBundle(b *protobundle.Bundle) ([]byte, error) {
	raw, err := protojson.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encoding the bundle: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("encoding the bundle: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
