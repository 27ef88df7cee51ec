package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// CodeSignInFailed is the app's 502 for a sign-in that could not start: the
// server asks for OAuth but its metadata could not be read.
const CodeSignInFailed = "plugin_sign_in_failed"

// SignInRequiredError reports a server that asks the user to sign in with
// an account (OAuth): where the app answers 202 with a sign-in. Nothing is
// stored until the sign-in finishes. It carries what discovery found and,
// when the client serves a callback ([Client.CallbackPort]), the sign-in
// started: open its AuthorizationURL and poll [Client.SignInStatus].
type SignInRequiredError struct {
	PluginID string // the id the plugin would take
	Name     string
	URL      string // the server's URL, in its one spelling
	// ResourceMetadataURL is the protected resource metadata (RFC 9728) the
	// server's 401 named, "" when it named none and the server's origin is
	// its own authorization server.
	ResourceMetadataURL string
	ResourceMetadata    *oauthex.ProtectedResourceMetadata
	// AuthorizationServer is the issuer used: the metadata's first
	// authorization server, or the server's origin.
	AuthorizationServer string
	AuthServerMetadata  *oauthex.AuthServerMeta
	// Hosts are the server's host and the authorization server's, which
	// join the plugin's hosts.
	Hosts []string
	// ClientID and Scopes are a registry entry's client registered in
	// advance and the scopes it asks for; empty otherwise.
	ClientID string
	Scopes   []string
	// SignIn is the sign-in started, nil when the client serves no
	// callback.
	SignIn *SignIn
}

func (e *SignInRequiredError) Error() string {
	if e.SignIn != nil {
		return fmt.Sprintf("202 sign-in %s started: %s asks to sign in with an account (OAuth, authorization server %s); open its authorization URL", e.SignIn.ID, e.URL, e.AuthorizationServer)
	}
	return fmt.Sprintf("202 sign-in: %s asks to sign in with an account (OAuth, authorization server %s); start a sign-in", e.URL, e.AuthorizationServer)
}

// errNotOAuth is a refusal that names no OAuth server.
var errNotOAuth = errors.New("the server names no OAuth authorization server")

// discovery is what discoverOAuth found.
type discovery struct {
	resourceMetadataURL string
	resource            *oauthex.ProtectedResourceMetadata
	issuer              string
	server              *oauthex.AuthServerMeta
}

// discoverOAuth finds the authorization server of a server that refused a
// listing with ref (which may be nil when there was no 401): the protected
// resource metadata its WWW-Authenticate names, whose first authorization
// server is the one used, or else /.well-known/oauth-authorization-server on
// its origin, which makes the server its own. errNotOAuth when it names
// neither. Each host is asked about before any request reaches it.
func (c *Client) discoverOAuth(ctx context.Context, serverURL string, ref *RefusalError) (*discovery, error) {
	hc := c.consentedHTTP()
	d := &discovery{}
	if ref != nil {
		d.resourceMetadataURL = resourceMetadataParam(ref.WWWAuthenticate)
	}
	if d.resourceMetadataURL != "" {
		mu, err := url.Parse(d.resourceMetadataURL)
		if err != nil || !mu.IsAbs() || (mu.Scheme != "https" && !(mu.Scheme == "http" && IsLoopbackHost(mu.Host))) {
			return nil, fmt.Errorf("resource_metadata %q is not an https URL", cleanText(d.resourceMetadataURL, 200))
		}
		if off := notAllowed(c.Egress, PurposePlugin, mu.Hostname()); len(off) > 0 {
			return nil, egressError(PurposePlugin, off)
		}
		prm, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, hc, d.resourceMetadataURL)
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		if !sameResource(prm.Resource, serverURL) {
			return nil, fmt.Errorf("protected resource metadata is for %q, not %s", cleanText(prm.Resource, 200), serverURL)
		}
		d.resource = prm
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata names no authorization server")
		}
		d.issuer = prm.AuthorizationServers[0]
	} else {
		u, _ := url.Parse(serverURL)
		d.issuer = u.Scheme + "://" + u.Host
	}
	iu, err := url.Parse(d.issuer)
	if err != nil || !iu.IsAbs() || iu.Host == "" || (iu.Scheme != "https" && !(iu.Scheme == "http" && IsLoopbackHost(iu.Host))) {
		return nil, fmt.Errorf("authorization server %q is not an https URL", cleanText(d.issuer, 200))
	}
	// The authorization server's host is asked about before any request
	// reaches it.
	if off := notAllowed(c.Egress, PurposePlugin, iu.Hostname()); len(off) > 0 {
		return nil, egressError(PurposePlugin, off)
	}
	for _, mu := range authServerMetadataURLs(iu) {
		asm, err := oauthex.GetAuthServerMeta(ctx, mu, d.issuer, hc)
		if err != nil {
			if d.resource == nil {
				// The origin fallback: a server whose origin is not a valid
				// authorization server is not OAuth.
				return nil, errNotOAuth
			}
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if asm != nil {
			d.server = asm
			return d, nil
		}
	}
	if d.resource == nil {
		return nil, errNotOAuth
	}
	return nil, fmt.Errorf("authorization server %s publishes no metadata", d.issuer)
}

// authServerMetadataURLs are where RFC 8414 and OpenID Connect Discovery put
// an issuer's metadata, in the order MCP clients try them.
func authServerMetadataURLs(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	path := strings.TrimRight(issuer.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}
}

// resourceMetadataParam returns the resource_metadata parameter of the
// first challenge that carries one, "" when none does or the header cannot
// be read.
func resourceMetadataParam(headers []string) string {
	if len(headers) == 0 {
		return ""
	}
	chs, err := oauthex.ParseWWWAuthenticate(headers)
	if err != nil {
		return ""
	}
	for _, ch := range chs {
		if v := strings.TrimSpace(ch.Params["resource_metadata"]); v != "" {
			return v
		}
	}
	return ""
}

// sameResource reports whether the metadata's resource is the server's
// URL, both in their one spelling; a resource naming a parent path of the
// server's URL also matches.
func sameResource(resource, serverURL string) bool {
	r, err1 := CanonicalURL(resource)
	s, err2 := CanonicalURL(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	return r == s || strings.HasPrefix(s, r+"/")
}

// getJSON GETs url and decodes its JSON body, at most 1 MiB.
func getJSON[T any](ctx context.Context, hc *http.Client, rawURL string) (*T, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("GET %s: HTTP %d", rawURL, resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return nil, fmt.Errorf("GET %s: content type %q, want application/json", rawURL, cleanText(resp.Header.Get("Content-Type"), 80))
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, fmt.Errorf("GET %s: %v", rawURL, err)
	}
	return &v, nil
}
