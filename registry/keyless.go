package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/sign"
)

// The public-good Sigstore services keyless signing uses unless told
// otherwise. The embedded trusted root ([PublicGoodTrustedRoot]) holds their
// keys; Rekor v1 is the default because that root carries no Rekor v2 log key.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
)

// GitHubActionsIssuer is the OIDC issuer of GitHub Actions' tokens, the
// issuer the registry's keyless signatures carry.
const GitHubActionsIssuer = "https://token.actions.githubusercontent.com"

// KeylessOptions configure keyless signing: an OIDC token is exchanged with
// Fulcio for a short-lived certificate naming the token's identity, the
// signature is recorded in Rekor, and the bundle carries both.
type KeylessOptions struct {
	// IDToken is the OIDC token (a JWT) whose identity the certificate
	// names. Required; see [GitHubActionsIDToken] for CI.
	IDToken string
	// FulcioURL and RekorURL are the services' origins; empty means the
	// public-good ones.
	FulcioURL string
	RekorURL  string
	// RekorVersion is Rekor's API version, 1 (the default when 0) or 2.
	// Rekor v2 gives no timestamp: it needs TSAURL.
	RekorVersion uint32
	// TSAURL, when set, is an RFC 3161 timestamp authority's full URL
	// (https://timestamp.sigstore.dev/api/v1/timestamp) whose timestamp the
	// bundle also carries.
	TSAURL string
	// TrustedRoot is the Sigstore trusted_root.json the new bundle is checked
	// against before it is written; nil means [PublicGoodTrustedRoot].
	TrustedRoot []byte
	// Transport carries the requests to Fulcio and the timestamp authority;
	// nil is http.DefaultTransport. Rekor v1 is reached with its own client.
	Transport http.RoundTripper
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
}

// SignKeylessBytes signs data keyless and returns the bundle, after checking
// it verifies against the trusted root for the identity its certificate names.
func SignKeylessBytes(ctx context.Context, opts KeylessOptions, data []byte) ([]byte, error) {
	if strings.TrimSpace(opts.IDToken) == "" {
		return nil, errors.New("keyless signing needs an OIDC token (--identity-token, SIGSTORE_ID_TOKEN, or GitHub Actions with id-token: write)")
	}
	fulcioURL, err := serviceURL("Fulcio", opts.FulcioURL, DefaultFulcioURL)
	if err != nil {
		return nil, err
	}
	rekorURL, err := serviceURL("Rekor", opts.RekorURL, DefaultRekorURL)
	if err != nil {
		return nil, err
	}
	version := opts.RekorVersion
	if version == 0 {
		version = 1
	}
	if version != 1 && version != 2 {
		return nil, fmt.Errorf("Rekor API version %d: use 1 or 2", version)
	}
	if version == 2 && opts.TSAURL == "" {
		return nil, errors.New("Rekor v2 gives no timestamp: give a timestamp authority URL too (--tsa-url)")
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if ctx == nil {
		ctx = context.Background()
	}

	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("making the signing key: %w", err)
	}
	bo := sign.BundleOptions{
		Context:                    ctx,
		CertificateProvider:        sign.NewFulcio(&sign.FulcioOptions{BaseURL: fulcioURL, Timeout: timeout, Retries: 1, Transport: opts.Transport}),
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: strings.TrimSpace(opts.IDToken)},
		TransparencyLogs:           []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: rekorURL, Timeout: timeout, Retries: 1, Version: version})},
	}
	if opts.TSAURL != "" {
		tsaURL, err := serviceURL("timestamp authority", opts.TSAURL, "")
		if err != nil {
			return nil, err
		}
		bo.TimestampAuthorities = []*sign.TimestampAuthority{sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: tsaURL, Timeout: timeout, Retries: 1, Transport: opts.Transport})}
	}
	b, err := sign.Bundle(&sign.PlainData{Data: data}, kp, bo)
	if err != nil {
		return nil, fmt.Errorf("keyless signing: %w", err)
	}
	out, err := marshalBundle(b)
	if err != nil {
		return nil, err
	}
	issuer, san, err := BundleIdentity(out)
	if err != nil {
		return nil, fmt.Errorf("the new bundle: %w", err)
	}
	v, err := NewVerifier(Trust{Issuer: issuer, Identity: "^" + regexp.QuoteMeta(san) + "$", TrustedRoot: opts.TrustedRoot})
	if err != nil {
		return nil, err
	}
	if err := v.Verify(data, out); err != nil {
		return nil, fmt.Errorf("the new bundle does not verify against the trusted root: %w", err)
	}
	return out, nil
}

// SignKeyless signs file keyless and writes file+".sigstore.json", returning
// that path.
func SignKeyless(ctx context.Context, opts KeylessOptions, file string) (bundlePath string, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading the file to sign: %w", err)
	}
	out, err := SignKeylessBytes(ctx, opts, data)
	if err != nil {
		return "", err
	}
	bundlePath = file + BundleSuffix
	if err := writeReplace(bundlePath, out, 0o644); err != nil {
		return "", fmt.Errorf("writing the bundle: %w", err)
	}
	return bundlePath, nil
}

func serviceURL(what, given, def string) (string, error) {
	if given == "" {
		given = def
	}
	u, err := url.Parse(given)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("the %s URL %q is not an http(s) origin", what, given)
	}
	return strings.TrimSuffix(given, "/"), nil
}

// BundleIdentity returns the OIDC issuer and the identity (the certificate's
// subject alternative name: an email, or a workflow URL for GitHub Actions)
// that a keyless bundle's certificate names. It does not verify the bundle.
func BundleIdentity(bundleJSON []byte) (issuer, identity string, err error) {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return "", "", fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return "", "", fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	cert := vc.Certificate()
	if cert == nil {
		return "", "", errors.New("the bundle was signed with a key, not keyless: it names no identity")
	}
	sum, err := certificate.SummarizeCertificate(cert)
	if err != nil {
		return "", "", fmt.Errorf("reading the bundle's certificate: %w", err)
	}
	return sum.Extensions.Issuer, sum.SubjectAlternativeName, nil
}

// GitHubActionsIDToken asks GitHub Actions for an OIDC token for audience
// ("sigstore" for Fulcio), from ACTIONS_ID_TOKEN_REQUEST_URL with
// ACTIONS_ID_TOKEN_REQUEST_TOKEN, which a job has when its permissions grant
// id-token: write. getenv nil reads the process environment.
func GitHubActionsIDToken(ctx context.Context, client *http.Client, getenv func(string) string, audience string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	reqURL, reqToken := getenv("ACTIONS_ID_TOKEN_REQUEST_URL"), getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
	if reqURL == "" || reqToken == "" {
		return "", errors.New("no GitHub Actions OIDC token: the job needs permissions id-token: write")
	}
	u, err := url.Parse(reqURL)
	if err != nil {
		return "", fmt.Errorf("ACTIONS_ID_TOKEN_REQUEST_URL: %w", err)
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+reqToken)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking GitHub Actions for an OIDC token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", fmt.Errorf("reading GitHub Actions' OIDC token: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GitHub Actions refused an OIDC token: HTTP %d", resp.StatusCode)
	}
	var out struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Value == "" {
		return "", errors.New("GitHub Actions answered without an OIDC token")
	}
	return out.Value, nil
}
