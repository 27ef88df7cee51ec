package oauthpage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ClientMetadata is the OAuth Client ID Metadata Document
// (draft-ietf-oauth-client-id-metadata-document, as the MCP 2025-11-25
// authorization spec uses it) that identifies SurfSense to authorization
// servers. ClientID is the document's own URL; no client secret exists.
type ClientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	LogoURI                 string   `json:"logo_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// metadataCacheControl lets authorization servers (and caches between) keep
// the document an hour, the draft's suggested default.
const metadataCacheControl = "public, max-age=3600"

func newClientMetadata(publicURL, clientURI string) ClientMetadata {
	return ClientMetadata{
		ClientID:                publicURL + ClientMetadataPath,
		ClientName:              "SurfSense",
		ClientURI:               clientURI,
		LogoURI:                 publicURL + LogoPath,
		RedirectURIs:            []string{publicURL + CallbackPath},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
	}
}

// encodeDocument returns a JSON body and its strong ETag.
func encodeDocument(v any) ([]byte, string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, "", err
	}
	b = append(b, '\n')
	return b, etagOf(b), nil
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// serveStatic answers a fixed document: conditional requests and HEAD are
// handled by http.ServeContent.
func serveStatic(w http.ResponseWriter, r *http.Request, contentType, cacheControl, etag string, body []byte) {
	h := w.Header()
	setSecurityHeaders(h, cspDocument)
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// normalizeOrigin checks PUBLIC_URL and returns it in the normal form RFC
// 3986 section 6.2.2-6.2.3 gives (lower-case scheme and host, no default
// port), with no trailing slash. The draft has authorization servers compare
// client_id with the document's by simple string comparison, so the host
// must write it normalized.
func normalizeOrigin(raw string) (origin string, err error) {
	bad := func(rule string) error {
		return fmt.Errorf("oauthpage: PUBLIC_URL %q %s; set it to the host's public origin, such as https://plugins.surfsense.com", raw, rule)
	}
	if raw == "" {
		return "", bad("is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", bad("is not a URL (" + err.Error() + ")")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return "", bad("is not an http or https URL")
	case u.Opaque != "" || u.Host == "":
		return "", bad("has no host")
	case u.User != nil:
		return "", bad("has a user name or password")
	case u.Path != "" && u.Path != "/":
		return "", bad("has a path; give only scheme, host and port")
	case u.RawQuery != "" || u.ForceQuery:
		return "", bad("has a query")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", bad("has a fragment")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", bad("has no host")
	}
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if port != "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	return scheme + "://" + host, nil
}
