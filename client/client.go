package client

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/surfsense/pluginhost/registry"
)

// Client does what the SurfSense app does with plugins: it connects them,
// checks them, decides which tools are ready and which ask first, and asks
// the plugin host for the license verdict. Its state is in Store.
//
// Set the fields before first use and do not change them after; a Client
// is safe for concurrent use. Only Store is required.
type Client struct {
	// Store keeps the plugin tables. Required.
	Store Store
	// Host is the plugin host this build reaches; the zero value is
	// production. Use PluginHostFromEnv for SURFSENSE_LOCAL_PLUGIN_HOST_URL.
	Host PluginHost
	// License is the imported license; nil means none is imported.
	License License
	// Egress is the user's consent per host; nil allows every host.
	Egress Egress
	// FirstParty is SurfSense's own list as this build packages it, with
	// its URLs on plugins.surfsense.com (they are moved to Host when it is
	// local). nil means no first-party plugin is listed.
	FirstParty *registry.List
	// Registry fetches and keeps the third-party registry; nil means no
	// registry is reached and registry ids are not listed.
	Registry *Registry
	// Lister lists servers' tools; nil means a Lister with its defaults.
	Lister *Lister
	// HTTPClient makes the other requests (OAuth discovery, GET /license);
	// nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// CallbackPort is the port of the app's API on 127.0.0.1, where
	// [Client.CallbackHandler] is served at [CallbackPath] and where the
	// browser comes back from an OAuth sign-in. 0 means the client serves no
	// callback: a server that asks for OAuth is reported as a
	// [*SignInRequiredError] and no sign-in starts.
	CallbackPort int
	// SignInAs is who the client signs in to OAuth servers as; the zero
	// value is what Host implies (see [SignInAs]).
	SignInAs SignInAs

	mu      sync.Mutex // serializes a connect's or a check's read-then-write of the tables
	checks  singleflight.Group
	verdict verdictState

	signs              signIns
	signInLifetime     time.Duration // tests shorten SignInLifetime
	signInStartTimeout time.Duration // and SignInStartTimeout
	refreshing         sync.Map      // plugin id → chan struct{}: one refresh at a time per plugin
	agentChecks        singleflight.Group

	fpOnce sync.Once
	fp     *registry.List
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

func (c *Client) lister() *Lister {
	if c.Lister != nil {
		return c.Lister
	}
	return &Lister{}
}

var defaultOtherClient = &http.Client{Timeout: 30 * time.Second}

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return defaultOtherClient
}

// consentedHTTP is the client's HTTP client refusing hosts egress does not
// allow before a request leaves, redirects included.
func (c *Client) consentedHTTP() *http.Client {
	base := c.httpClient()
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc := *base
	hc.Transport = &consentedTransport{base: rt, egress: c.Egress}
	return &hc
}

// firstParty returns the first-party list with its URLs and hosts moved to
// the plugin host this build reaches.
func (c *Client) firstParty() *registry.List {
	c.fpOnce.Do(func() { c.fp = rewriteList(c.Host, c.FirstParty) })
	return c.fp
}

func (c *Client) licenseKey() string {
	if c.License == nil {
		return ""
	}
	return c.License.LicenseKey()
}

// Headers returns the headers requests to p's server carry: the license key
// as "Authorization: License <key>" only for a license plugin on the plugin
// host this build reaches, read from the imported license each time; a key
// or an OAuth access token as "Authorization: Bearer"; and, when turn is true
// (opencode's calls in an agent turn), x-surfsense-text-only: 1 only to the
// plugin host. A disconnected plugin gets no credential.
func (c *Client) Headers(p InstalledPlugin, turn bool) http.Header {
	secret := ""
	switch p.CredentialKind {
	case CredentialLicense:
		secret = c.licenseKey()
	case CredentialToken:
		secret = p.Credential
	case CredentialOAuth:
		secret = accessToken(p.Credential)
	}
	if p.Disconnected() {
		secret = ""
	}
	return c.Host.Headers(p.URL, p.CredentialKind, secret, turn)
}

// storeErr keeps a store's ErrNotFound as the app's 404 for the plugin.
func storeErr(id string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return &Error{Status: 404, Code: CodeNotFound, Name: id}
	}
	return err
}

// row returns the plugin with id, or the app's 404.
func (c *Client) row(ctx context.Context, id string) (InstalledPlugin, error) {
	p, err := c.Store.Plugin(ctx, id)
	if err != nil {
		return InstalledPlugin{}, storeErr(id, err)
	}
	return p, nil
}
