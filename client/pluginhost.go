package client

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// ProductionHostURL is the plugin host a packaged build reaches.
const ProductionHostURL = "https://plugins.surfsense.com"

// productionHostname is the host every listed first-party URL is on.
const productionHostname = "plugins.surfsense.com"

// LocalHostEnv names the variable that moves every listed URL and host on
// plugins.surfsense.com to a plugin host run locally, such as
// http://127.0.0.1:8000, and the license key with them.
const LocalHostEnv = "SURFSENSE_LOCAL_PLUGIN_HOST_URL"

// Header names the plugin host reads.
const (
	HeaderAuthorization = "Authorization"
	HeaderTextOnly      = "X-Surfsense-Text-Only" // x-surfsense-text-only
)

// PluginHost is the plugin host this build reaches. The zero value is
// production, https://plugins.surfsense.com.
type PluginHost struct {
	base *url.URL // nil: production
}

// NewPluginHost returns the plugin host at localURL, or production when
// localURL is empty. localURL is an http or https origin, optionally with a
// path prefix; it carries no user, query or fragment.
func NewPluginHost(localURL string) (PluginHost, error) {
	localURL = strings.TrimSpace(localURL)
	if localURL == "" {
		return PluginHost{}, nil
	}
	u, err := url.Parse(localURL)
	if err != nil {
		return PluginHost{}, fmt.Errorf("plugin host URL %q: %v", localURL, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return PluginHost{}, fmt.Errorf("plugin host URL %q: want an origin such as http://127.0.0.1:8000", localURL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return PluginHost{}, fmt.Errorf("plugin host URL %q: give the origin alone, with no user, query or fragment", localURL)
	}
	u.Host = canonicalHost(u.Scheme, u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return PluginHost{base: u}, nil
}

// PluginHostFromEnv returns the plugin host named by
// SURFSENSE_LOCAL_PLUGIN_HOST_URL, or production when it is unset.
func PluginHostFromEnv() (PluginHost, error) {
	h, err := NewPluginHost(os.Getenv(LocalHostEnv))
	if err != nil {
		return PluginHost{}, fmt.Errorf("%s: %w", LocalHostEnv, err)
	}
	return h, nil
}

// MustPluginHost is like [NewPluginHost] but panics on a bad URL. It is for
// tests and constants.
func MustPluginHost(localURL string) PluginHost {
	h, err := NewPluginHost(localURL)
	if err != nil {
		panic(err)
	}
	return h
}

func (h PluginHost) url() *url.URL {
	if h.base != nil {
		return h.base
	}
	return &url.URL{Scheme: "https", Host: productionHostname}
}

// IsLocal reports whether the build reaches a plugin host other than
// production.
func (h PluginHost) IsLocal() bool { return h.base != nil }

// URL returns the plugin host's origin and path prefix, with no trailing
// slash.
func (h PluginHost) URL() string { return h.url().String() }

// Hostname returns the host name egress consent is asked about for the
// plugin host: plugins.surfsense.com, or the local host's name.
func (h PluginHost) Hostname() string { return h.url().Hostname() }

// Endpoint returns the URL of path (such as "/license") on the plugin host.
func (h PluginHost) Endpoint(path string) string {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return h.URL() + path
}

// String returns the plugin host's URL.
func (h PluginHost) String() string { return h.URL() }

// Rewrite moves a listed URL on plugins.surfsense.com to the local plugin
// host, keeping its path and query. Other URLs, and every URL in a
// production build, are returned unchanged.
func (h PluginHost) Rewrite(rawURL string) string {
	if h.base == nil {
		return rawURL
	}
	u, err := url.Parse(rawURL)
	if err != nil || !isProductionHost(u) {
		return rawURL
	}
	out := *h.base
	out.Path = h.base.Path + u.Path
	out.RawPath = ""
	if u.RawPath != "" {
		out.RawPath = h.base.Path + u.RawPath
	}
	out.RawQuery = u.RawQuery
	return out.String()
}

// RewriteHost moves a listed host, plugins.surfsense.com, to the local
// plugin host's name. Other hosts are returned unchanged.
func (h PluginHost) RewriteHost(host string) string {
	if h.base != nil && strings.EqualFold(strings.TrimSuffix(host, "."), productionHostname) {
		return h.base.Hostname()
	}
	return host
}

func isProductionHost(u *url.URL) bool {
	if !strings.EqualFold(u.Scheme, "https") || u.User != nil {
		return false
	}
	if !strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), productionHostname) {
		return false
	}
	return u.Port() == "" || u.Port() == "443"
}

// Reaches reports whether rawURL is on the plugin host this build reaches:
// same scheme, host and port, under its path prefix. Only such URLs are sent
// the license key and x-surfsense-text-only.
func (h PluginHost) Reaches(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.User != nil || u.Opaque != "" {
		return false
	}
	b := h.url()
	if !strings.EqualFold(u.Scheme, b.Scheme) {
		return false
	}
	if canonicalHost(strings.ToLower(u.Scheme), u.Host) != canonicalHost(b.Scheme, b.Host) {
		return false
	}
	if b.Path == "" {
		return true
	}
	return u.Path == b.Path || strings.HasPrefix(u.Path, b.Path+"/")
}

// Headers returns the headers a request to serverURL carries for a plugin
// whose credential is of kind kind: the license key as
// "Authorization: License <key>" only when serverURL is on this plugin host,
// a token as "Authorization: Bearer <token>" anywhere, and, when turn is
// true (opencode's calls in an agent turn), x-surfsense-text-only: 1 only
// on this plugin host. An empty secret adds no Authorization.
func (h PluginHost) Headers(serverURL string, kind CredentialKind, secret string, turn bool) http.Header {
	hd := http.Header{}
	on := h.Reaches(serverURL)
	switch kind {
	case CredentialLicense:
		if on && secret != "" {
			hd.Set(HeaderAuthorization, "License "+secret)
		}
	case CredentialToken, CredentialOAuth:
		if secret != "" {
			hd.Set(HeaderAuthorization, "Bearer "+secret)
		}
	}
	if turn && on {
		hd.Set(HeaderTextOnly, "1")
	}
	return hd
}

// canonicalHost lowercases host and drops the scheme's default port.
func canonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	hn, port, err := net.SplitHostPort(host)
	if err != nil {
		// No port (or a bare IPv6 literal in brackets).
		return strings.TrimSuffix(host, ":")
	}
	if port == "" || (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		if strings.Contains(hn, ":") {
			return "[" + hn + "]"
		}
		return hn
	}
	return host
}
