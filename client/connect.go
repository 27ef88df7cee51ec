package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/registry"
)

// ConnectFirstParty connects one of SurfSense's own plugins
// (POST /plugins/first-party/{id}): an id not listed is 404
// plugin_not_found; one connected already, or whose URL is, is 409
// plugin_already_connected; a host not allowed is 403 egress_disabled. The
// server's tools are listed with the license and the plugin is stored with
// source first_party and credential_kind license. A 401 or 403 still
// connects it, its check saying why, since a missing license is the
// server's to report; any other failure is 502 plugin_unreachable.
func (c *Client) ConnectFirstParty(ctx context.Context, id string) (InstalledPlugin, error) {
	e := c.firstParty().Lookup(id)
	if e == nil {
		return InstalledPlugin{}, &Error{Status: 404, Code: CodeNotFound, Name: id}
	}
	u, err := CanonicalURL(e.URL)
	if err != nil {
		return InstalledPlugin{}, &Error{Status: 502, Code: CodeUnreachable, Name: e.Name, Err: err}
	}
	if err := c.connected(ctx, e.ID, u, e.Name); err != nil {
		return InstalledPlugin{}, err
	}
	hosts := entryHosts(e)
	if off := notAllowed(c.Egress, PurposePlugin, hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	p := InstalledPlugin{
		ID: e.ID, Name: e.Name, Kind: "remote", Source: SourceFirstParty, URL: u, Entry: e.ID,
		Publisher: registry.PublisherSurfSense, Hosts: hosts, Enabled: true,
	}
	if e.Auth.Type == registry.AuthLicense {
		p.CredentialKind = CredentialLicense
	}
	listed, err := c.lister().ListTools(ctx, u, c.Headers(p, false))
	if err != nil {
		var ref *RefusalError
		if !errors.As(err, &ref) || (ref.StatusCode != 401 && ref.StatusCode != 403) {
			return InstalledPlugin{}, unreachable(e.Name, err)
		}
		p.CheckFailure = failureOf(err)
		listed = nil
	}
	return c.store(ctx, p, listed)
}

// ConnectRegistry connects a registry plugin (POST /plugins/registry/{id}),
// with token for a token entry: third-party plugins off is 403
// third_party_off; an id not listed is 404; one connected already, or whose
// URL is, is 409 plugin_already_connected; any of the entry's hosts not
// allowed is 403 egress_disabled naming them all. An oauth entry needs a
// sign-in: a [*SignInRequiredError] with what discovery found. Any other
// lists the server's tools with the token as Authorization: Bearer, refused
// as a server added by URL is, and is stored with source registry, its
// publisher and entry.
func (c *Client) ConnectRegistry(ctx context.Context, id, token string) (InstalledPlugin, error) {
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return InstalledPlugin{}, err
	}
	if !st.ThirdPartyOn {
		return InstalledPlugin{}, &Error{Status: 403, Code: CodeThirdPartyOff, Name: id}
	}
	var e *registry.Entry
	if c.Registry != nil {
		list, _ := c.Registry.Held()
		if list == nil {
			// Nothing held yet: fetch it as GET /plugins/registry would.
			if _, err := c.RegistryPlugins(ctx); err != nil {
				return InstalledPlugin{}, err
			}
			list, _ = c.Registry.Held()
		}
		if list != nil {
			if found := list.Lookup(id); found != nil {
				cp := *found
				e = &cp
			}
		}
	}
	if e == nil {
		return InstalledPlugin{}, &Error{Status: 404, Code: CodeNotFound, Name: id}
	}
	u, err := CanonicalURL(e.URL)
	if err != nil {
		return InstalledPlugin{}, &Error{Status: 502, Code: CodeUnreachable, Name: e.Name, Err: err}
	}
	if err := c.connected(ctx, e.ID, u, e.Name); err != nil {
		return InstalledPlugin{}, err
	}
	hosts := entryHosts(e)
	if off := notAllowed(c.Egress, PurposePlugin, hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	if e.Auth.Type == registry.AuthOAuth {
		t := signInTarget{id: e.ID, name: e.Name, url: u, source: SourceRegistry, entry: e.ID, publisher: e.Author, hosts: hosts}
		return InstalledPlugin{}, c.signIn(ctx, t, nil, e)
	}
	token = strings.TrimSpace(token)
	if e.Auth.Type == registry.AuthToken && token == "" {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsKey, Name: e.Name}
	}
	if !validSecret(token) {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeBadKey, Name: e.Name}
	}
	p := InstalledPlugin{
		ID: e.ID, Name: e.Name, Kind: "remote", Source: SourceRegistry, URL: u, Entry: e.ID,
		Publisher: e.Author, Hosts: hosts, Enabled: true,
	}
	if token != "" {
		p.CredentialKind, p.Credential = CredentialToken, token
	}
	listed, err := c.lister().ListTools(ctx, u, c.Headers(p, false))
	if err != nil {
		return InstalledPlugin{}, c.refusedByURL(ctx, p, token, err, e)
	}
	return c.store(ctx, p, listed)
}

// CustomPlugin is a server added by its URL (POST /plugins/custom).
type CustomPlugin struct {
	URL   string
	Name  string
	Token string // optional: sent as Authorization: Bearer
}

// ConnectCustom connects a server by its URL, in the app's order: the URL
// put in one spelling; a name already in use is 409 plugin_name_taken and a
// server already connected 409 plugin_already_connected; a server off this
// computer not on https is 422 plugin_needs_https; a host not allowed is 403
// egress_disabled (purpose plugin, the host recorded off); the tools are
// listed with the token as Authorization: Bearer. A 401 to a request with no
// key from a server that asks for OAuth is a [*SignInRequiredError]; any
// other 401 or 403 is 422 plugin_needs_sign_in, anything else 502
// plugin_unreachable. The plugin is stored with its key (encrypted by a
// [FileStore]) and every tool it listed on.
func (c *Client) ConnectCustom(ctx context.Context, in CustomPlugin) (InstalledPlugin, error) {
	// 1. One spelling.
	u, err := CanonicalURL(in.URL)
	if err != nil {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeBadURL, Name: in.Name, Err: err}
	}
	name := strings.TrimSpace(in.Name)
	// 2. The id, never surfsense nor a listed id; a name in use; a URL connected.
	id, err := PluginID(name, c.reservedID)
	if err != nil {
		return InstalledPlugin{}, err
	}
	if err := c.nameTaken(ctx, id, name); err != nil {
		return InstalledPlugin{}, err
	}
	if err := c.connected(ctx, "", u, name); err != nil {
		return InstalledPlugin{}, err
	}
	// 3. TLS off this computer.
	pu, _ := url.Parse(u)
	if pu.Scheme != "https" && !IsLoopbackHost(pu.Host) {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsHTTPS, Name: name}
	}
	// 4. Consent.
	hosts := []string{normHost(pu.Hostname())}
	if off := notAllowed(c.Egress, PurposePlugin, hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	token := strings.TrimSpace(in.Token)
	if !validSecret(token) {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeBadKey, Name: name}
	}
	// 5. The listing.
	p := InstalledPlugin{ID: id, Name: name, Kind: "remote", Source: SourceCustom, URL: u, Hosts: hosts, Enabled: true}
	if token != "" {
		p.CredentialKind, p.Credential = CredentialToken, token
	}
	listed, err := c.lister().ListTools(ctx, u, c.Headers(p, false))
	if err != nil {
		return InstalledPlugin{}, c.refusedByURL(ctx, p, token, err, nil)
	}
	// 6. Stored, every tool on.
	return c.store(ctx, p, listed)
}

// refusedByURL maps a failed listing of a registry or custom server to the
// app's answer.
func (c *Client) refusedByURL(ctx context.Context, p InstalledPlugin, token string, err error, e *registry.Entry) error {
	var ref *RefusalError
	if !errors.As(err, &ref) || (ref.StatusCode != 401 && ref.StatusCode != 403) {
		return unreachable(p.Name, err)
	}
	if ref.StatusCode == 401 && token == "" {
		t := signInTarget{id: p.ID, name: p.Name, url: p.URL, source: p.Source, entry: p.Entry, publisher: p.Publisher, hosts: p.Hosts}
		serr := c.signIn(ctx, t, ref, e)
		if !errors.Is(serr, errNotOAuth) {
			return serr
		}
	}
	return &Error{Status: 422, Code: CodeNeedsSignIn, Name: p.Name, Err: err}
}

// signIn discovers the OAuth server of a plugin that needs a sign-in and
// starts one: the [*SignInRequiredError] the app answers 202 with, its
// SignIn set once the authorization URL is ready (nil when the client serves
// no callback). It may instead return errNotOAuth, an egress refusal, or 502
// plugin_sign_in_failed.
func (c *Client) signIn(ctx context.Context, t signInTarget, ref *RefusalError, e *registry.Entry) error {
	if ref == nil {
		// Ask the server without a key, to read its 401.
		_, err := c.lister().ListTools(ctx, t.url, nil)
		errors.As(err, &ref)
		if ref != nil && ref.StatusCode != 401 {
			ref = nil
		}
	}
	d, err := c.discoverOAuth(ctx, t.url, ref)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ae *Error
		if errors.As(err, &ae) {
			return ae // a host not allowed
		}
		if errors.Is(err, errNotOAuth) && (e == nil || e.Auth.Type != registry.AuthOAuth) {
			return errNotOAuth
		}
		return &Error{Status: 502, Code: CodeSignInFailed, Name: t.name, Err: err}
	}
	se := &SignInRequiredError{
		PluginID: t.id, Name: t.name, URL: t.url,
		ResourceMetadataURL: d.resourceMetadataURL, ResourceMetadata: d.resource,
		AuthorizationServer: d.issuer, AuthServerMetadata: d.server,
		Hosts: slices.Clone(t.hosts),
	}
	if h := urlHost(d.issuer); h != "" && !slices.Contains(se.Hosts, h) {
		se.Hosts = append(se.Hosts, h)
	}
	if e != nil {
		t.clientID, t.scopes = e.Auth.ClientID, slices.Clone(e.Auth.Scopes)
	}
	se.ClientID, se.Scopes = t.clientID, slices.Clone(t.scopes)
	if c.CallbackPort == 0 {
		return se
	}
	t.hosts = slices.Clone(se.Hosts)
	si, err := c.startSignIn(ctx, t, ref, d)
	if err != nil {
		return err
	}
	se.SignIn = si
	return se
}

var packagedFirstParty = sync.OnceValue(func() *registry.List {
	l, err := registry.FirstPartyList()
	if err != nil {
		return &registry.List{}
	}
	return l
})

func unreachable(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the caller gave up; the server said nothing
	}
	return &Error{Status: 502, Code: CodeUnreachable, Name: name, Err: err}
}

// validSecret reports whether a key can be sent in a header: printable
// ASCII, at most 8 KiB.
func validSecret(s string) bool {
	if len(s) > 8<<10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// reservedID reports whether id is a listed plugin's: first-party (the list
// the client was built with, and the one this module packages, so that a
// client built without the list still keeps SurfSense's ids), or the
// registry's held copy, removed ids included.
func (c *Client) reservedID(id string) bool {
	if c.firstParty().Lookup(id) != nil || packagedFirstParty().Lookup(id) != nil {
		return true
	}
	if c.Registry != nil {
		if list, _ := c.Registry.Held(); list != nil {
			if list.Lookup(id) != nil {
				return true
			}
			if _, removed := list.RemovedReason(id); removed {
				return true
			}
		}
	}
	return false
}

// connected returns 409 plugin_already_connected when a row has id (when
// not empty) or url.
func (c *Client) connected(ctx context.Context, id, u, name string) error {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return err
	}
	for _, p := range rows {
		if (id != "" && p.ID == id) || p.URL == u {
			return &Error{Status: 409, Code: CodeAlreadyConnected, Name: name}
		}
	}
	return nil
}

// nameTaken returns 409 plugin_name_taken when a row has id or name.
func (c *Client) nameTaken(ctx context.Context, id, name string) error {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return err
	}
	for _, p := range rows {
		if p.ID == id || strings.EqualFold(p.Name, name) {
			return &Error{Status: 409, Code: CodeNameTaken, Name: name}
		}
	}
	return nil
}

// store keeps a newly connected plugin and its listed tools, every one on;
// a plugin connected meanwhile by another call is 409.
func (c *Client) store(ctx context.Context, p InstalledPlugin, listed []*mcp.Tool) (InstalledPlugin, error) {
	now := c.now()
	p.ConnectedAt, p.CheckedAt = now, now
	if p.CheckFailure == CheckOK {
		p.ListedAt = now
	}
	tools := firstTools(listed, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.Store.Plugin(ctx, p.ID); err == nil {
		return InstalledPlugin{}, &Error{Status: 409, Code: CodeAlreadyConnected, Name: p.Name}
	} else if !errors.Is(err, ErrNotFound) {
		return InstalledPlugin{}, err
	}
	if err := c.Store.PutPlugin(ctx, p); err != nil {
		if errors.Is(err, ErrURLTaken) {
			return InstalledPlugin{}, &Error{Status: 409, Code: CodeAlreadyConnected, Name: p.Name}
		}
		return InstalledPlugin{}, err
	}
	if err := c.Store.PutTools(ctx, p.ID, tools); err != nil {
		c.Store.DeletePlugin(ctx, p.ID)
		return InstalledPlugin{}, err
	}
	return p, nil
}

// firstTools are a first listing's tools: every one on, asking, direct.
func firstTools(listed []*mcp.Tool, now time.Time) []PluginTool {
	out := make([]PluginTool, 0, len(listed))
	for i, t := range listed {
		pt := listing(t)
		pt.Position = i
		pt.Enabled = true
		pt.Approval = ApprovalAsk
		pt.Exposure = ExposureDirect
		pt.FirstSeenAt = now
		out = append(out, pt)
	}
	return out
}

// listing is the part of a tool row its server gives.
func listing(t *mcp.Tool) PluginTool {
	pt := PluginTool{Name: t.Name, Title: t.Title, Description: t.Description}
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil {
			pt.InputSchema = b
		}
	}
	if a := t.Annotations; a != nil {
		pt.Annotations = Annotations{
			Title:           a.Title,
			ReadOnlyHint:    bptrIf(a.ReadOnlyHint),
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  bptrIf(a.IdempotentHint),
			OpenWorldHint:   a.OpenWorldHint,
		}.clone()
		if pt.Title == "" {
			pt.Title = a.Title
		}
	}
	return pt
}

func bptrIf(b bool) *bool {
	if !b {
		return nil
	}
	return &b
}
