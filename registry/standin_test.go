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
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/runtime"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1"
	rekorutil "github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore/pkg/signature"
)

// sigstoreStandIn is a Fulcio and a Rekor v1 on loopback, with a trusted
// root naming their keys, so keyless signing runs end to end without the
// network. Fulcio checks the token's audience and the proof of possession,
// and issues a certificate naming the token's workflow (as Fulcio does for
// GitHub Actions) or subject; Rekor canonicalizes the proposed entry, signs
// an inclusion promise and a one-leaf inclusion proof.
type sigstoreStandIn struct {
	fulcio, rekor *httptest.Server
	trustedRoot   []byte
	fulcioCalls   atomic.Int32
	rekorCalls    atomic.Int32
}

const standInIssuer = "https://token.actions.githubusercontent.com"

func newSigstoreStandIn(t testing.TB) *sigstoreStandIn {
	t.Helper()
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	interCert, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	rekorKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := &sigstoreStandIn{}
	s.fulcio = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fulcioCalls.Add(1)
		s.serveFulcio(w, r, interCert, interKey)
	}))
	t.Cleanup(s.fulcio.Close)
	s.rekor = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.rekorCalls.Add(1)
		s.serveRekor(w, r, rekorKey)
	}))
	t.Cleanup(s.rekor.Close)

	pubDER, err := x509.MarshalPKIXPublicKey(rekorKey.Public())
	if err != nil {
		t.Fatal(err)
	}
	logID := sha256.Sum256(pubDER)
	now := time.Now()
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{&root.FulcioCertificateAuthority{
			Root: rootCert, Intermediates: []*x509.Certificate{interCert},
			ValidityPeriodStart: now.Add(-time.Hour), URI: s.fulcio.URL,
		}},
		nil, nil,
		map[string]*root.TransparencyLog{hex.EncodeToString(logID[:]): {
			BaseURL: s.rekor.URL, ID: logID[:], ValidityPeriodStart: now.Add(-time.Hour),
			HashFunc: crypto.SHA256, PublicKey: rekorKey.Public(), SignatureHashFunc: crypto.SHA256,
		}})
	if err != nil {
		t.Fatal(err)
	}
	if s.trustedRoot, err = tr.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	return s
}

// standInToken makes an unsigned-looking OIDC token (the stand-in Fulcio
// does not check its signature) with the claims Fulcio reads.
func standInToken(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString([]byte("sig"))
}

func workflowToken(ref string) string {
	return standInToken(map[string]any{
		"iss": standInIssuer, "aud": "sigstore", "sub": "repo:surfsense/pluginhost:ref:refs/heads/main",
		"job_workflow_ref": ref, "exp": time.Now().Add(time.Hour).Unix(),
	})
}

func (s *sigstoreStandIn) serveFulcio(w http.ResponseWriter, r *http.Request, interCert *x509.Certificate, interKey *ecdsa.PrivateKey) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(token, ".")
	if !ok || len(parts) != 3 {
		http.Error(w, "no bearer token", http.StatusUnauthorized)
		return
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	if claims["aud"] != "sigstore" {
		http.Error(w, "wrong audience", http.StatusUnauthorized)
		return
	}
	var req struct {
		PublicKeyRequest struct {
			PublicKey struct {
				Algorithm string `json:"algorithm"`
				Content   string `json:"content"`
			} `json:"publicKey"`
			ProofOfPossession string `json:"proofOfPossession"`
		} `json:"publicKeyRequest"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	pub, err := ParsePublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
	if err != nil {
		http.Error(w, "bad public key", http.StatusBadRequest)
		return
	}
	ecPub, ok := pub.(*ecdsa.PublicKey)
	sig, err := base64.StdEncoding.DecodeString(req.PublicKeyRequest.ProofOfPossession)
	sub, _ := claims["sub"].(string)
	digest := sha256.Sum256([]byte(sub))
	if !ok || err != nil || !ecdsa.VerifyASN1(ecPub, digest[:], sig) {
		http.Error(w, "proof of possession does not verify", http.StatusBadRequest)
		return
	}
	issuer, _ := claims["iss"].(string)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{{
			Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(issuer),
		}},
	}
	if ref, ok := claims["job_workflow_ref"].(string); ok {
		u, _ := url.Parse("https://github.com/" + ref)
		tmpl.URIs = []*url.URL{u}
	} else {
		tmpl.EmailAddresses = []string{sub}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, interCert, pub, interKey)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	chain := []string{
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: interCert.Raw})),
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": chain}}})
}

func (s *sigstoreStandIn) serveRekor(w http.ResponseWriter, r *http.Request, key *ecdsa.PrivateKey) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	ctx := context.Background()
	pe, err := models.UnmarshalProposedEntry(r.Body, runtime.JSONConsumer())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	entry, err := types.CreateVersionedEntry(pe)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, err := types.CanonicalizeEntry(ctx, entry)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(key.Public())
	logIDRaw := sha256.Sum256(pubDER)
	logID := hex.EncodeToString(logIDRaw[:])
	integrated := time.Now().Unix()
	logIndex := int64(0)
	bodyB64 := base64.StdEncoding.EncodeToString(body)

	signer, err := signature.LoadECDSASignerVerifier(key, crypto.SHA256)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	promise, _ := json.Marshal(map[string]any{"body": bodyB64, "integratedTime": integrated, "logID": logID, "logIndex": logIndex})
	canonical, err := jsoncanonicalizer.Transform(promise)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	set, err := signer.SignMessage(bytes.NewReader(canonical))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	leaf := sha256.Sum256(append([]byte{0}, body...))
	checkpoint, err := rekorutil.CreateAndSignCheckpoint(ctx, strings.TrimPrefix(s.rekor.URL, "http://"), 1, 1, leaf[:], signer)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	uuid := hex.EncodeToString(leaf[:])
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", s.rekor.URL+"/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{uuid: map[string]any{
		"body": bodyB64, "integratedTime": integrated, "logID": logID, "logIndex": logIndex,
		"verification": map[string]any{
			"signedEntryTimestamp": base64.StdEncoding.EncodeToString(set),
			"inclusionProof": map[string]any{
				"checkpoint": string(checkpoint), "hashes": []string{}, "logIndex": 0,
				"rootHash": hex.EncodeToString(leaf[:]), "treeSize": 1,
			},
		},
	}})
}

func (s *sigstoreStandIn) options(token string) KeylessOptions {
	return KeylessOptions{IDToken: token, FulcioURL: s.fulcio.URL, RekorURL: s.rekor.URL, TrustedRoot: s.trustedRoot, Timeout: 10 * time.Second}
}

var _ = fmt.Sprint
