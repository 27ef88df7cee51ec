package client

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/surfsense/pluginhost/registry"
)

// Sign-in limits (the app's plugin_sign_ins.py and start_sign_in.py).
const (
	// SignInLifetime is how long a sign-in lives in memory, from its start:
	// one still waiting then fails, and any is forgotten.
	SignInLifetime = 10 * time.Minute
	// SignInStartTimeout bounds how long starting a sign-in waits for the
	// authorization URL (discovery and registration) before it is 502
	// plugin_sign_in_failed.
	SignInStartTimeout = 60 * time.Second
	// MaxSignIns bounds the sign-ins in memory at once; one plugin has at
	// most one.
	MaxSignIns = 64
)

// Codes of the app's sign-in routes.
const (
	CodeNotOAuth       = "plugin_not_oauth"     // 422: signing in again a plugin that does not sign in with an account
	CodeNeedsAccount   = "plugin_needs_account" // 422: connecting again an OAuth plugin: sign in again instead
	CodeSignInNotFound = "sign_in_not_found"    // 404: a sign-in the API does not hold (never started, abandoned, or forgotten)
)

// SignInStatus is where a sign-in is.
type SignInStatus string

const (
	SignInWaiting   SignInStatus = "waiting"   // the user has not come back from the provider yet
	SignInConnected SignInStatus = "connected" // signed in, listed and stored
	SignInFailed    SignInStatus = "failed"    // ended; Failure says why
)

// SignInFailure is why a sign-in failed, as a code the screen has its own
// words for (the app's sign_in_failure.py); [SignIn.Message] says it in a
// sentence.
type SignInFailure string

const (
	FailDeclined         SignInFailure = "declined"              // the user declined at the provider (access_denied)
	FailProviderError    SignInFailure = "provider_error"        // the provider ended it with another error
	FailExpired          SignInFailure = "expired"               // ten minutes passed
	FailReplaced         SignInFailure = "replaced"              // a newer sign-in for the same plugin started
	FailRegistration     SignInFailure = "registration_failed"   // the authorization server would not register SurfSense
	FailTokenExchange    SignInFailure = "token_exchange_failed" // the code could not be exchanged for a token
	FailServerRefused    SignInFailure = "server_refused"        // the plugin's server refused the new token
	FailServerUnreach    SignInFailure = "server_unreachable"    // the plugin's server could not be listed
	FailAlreadyConnected SignInFailure = "already_connected"     // the plugin was connected meanwhile
	FailRemoved          SignInFailure = "plugin_removed"        // signing in again a plugin removed meanwhile
	FailEgress           SignInFailure = "egress_disabled"       // a host of the sign-in is not allowed
	FailOther            SignInFailure = "failed"                // anything else
)

// SignIn is a sign-in as GET /plugins/sign-ins/{id} answers it. It holds
// no secret: the authorization URL carries the state and the PKCE
// challenge, never the verifier or a code.
type SignIn struct {
	ID       string `json:"id"`
	PluginID string `json:"plugin_id"`
	Name     string `json:"name"`
	// AuthorizationURL is the provider's page the screen opens in the
	// browser.
	AuthorizationURL string        `json:"authorization_url"`
	Status           SignInStatus  `json:"status"`
	Failure          SignInFailure `json:"failure,omitempty"`
	Message          string        `json:"message,omitempty"`
	// Again is true for signing an existing plugin in again.
	Again     bool      `json:"again,omitempty"`
	StartedAt time.Time `json:"started_at"`
}

// SignInAs says who the app signs in to OAuth servers as (the app's
// sign_in_client.py). The zero value is what the build implies: with the
// production plugin host (a packaged app), SurfSense's one public client,
// https://plugins.surfsense.com/oauth/client.json, a client ID metadata
// document whose redirect is the plugin host's callback page, and dynamic
// registration with that redirect where a server does not take such
// documents; with a local plugin host (SURFSENSE_LOCAL_PLUGIN_HOST_URL),
// dynamic registration with the API's own loopback callback (RFC 8252). A
// registry entry's auth.client_id is always used as a client registered in
// advance, with its auth.scopes. No client secret ships.
type SignInAs struct {
	// PublicClient is the origin of the plugin host whose /oauth/client.json
	// and /oauth/callback the app signs in with, such as
	// https://plugins.surfsense.com. It must be https. Set it to sign in as
	// a packaged app through another plugin host.
	PublicClient string
	// Unpackaged signs in as an unpackaged API does, with dynamic
	// registration and http://127.0.0.1:<CallbackPort>/plugins/oauth/callback,
	// whatever Host is.
	Unpackaged bool
}

// CallbackPath is where the app's API serves [Client.CallbackHandler].
const CallbackPath = "/plugins/oauth/callback"

// signInClient is the client a sign-in registers as.
type signInClient struct {
	metadataURL string // "" for loopback
	redirectURL string
}

func (c *Client) signInClient() (signInClient, error) {
	if c.CallbackPort < 1024 || c.CallbackPort > 65535 {
		return signInClient{}, fmt.Errorf("the client serves no sign-in callback: set Client.CallbackPort to the API's port (1024-65535), where CallbackHandler is served at %s", CallbackPath)
	}
	public := ""
	switch {
	case c.SignInAs.Unpackaged:
	case c.SignInAs.PublicClient != "":
		public = strings.TrimRight(c.SignInAs.PublicClient, "/")
	case !c.Host.IsLocal():
		public = ProductionHostURL
	}
	if public == "" {
		return signInClient{redirectURL: fmt.Sprintf("http://127.0.0.1:%d%s", c.CallbackPort, CallbackPath)}, nil
	}
	if u, err := url.Parse(public); err != nil || u.Scheme != "https" || u.Host == "" {
		return signInClient{}, fmt.Errorf("SignInAs.PublicClient %q: want the https origin of a plugin host, such as %s", public, ProductionHostURL)
	}
	return signInClient{metadataURL: public + "/oauth/client.json", redirectURL: public + "/oauth/callback"}, nil
}

// signInTarget is what a sign-in connects: a new plugin, or a row signed in
// again.
type signInTarget struct {
	id, name  string
	url       string
	source    Source
	entry     string
	publisher string
	hosts     []string
	again     bool
	clientID  string   // a registry entry's client registered in advance
	scopes    []string // and the scopes it asks for
	earlier   OAuthCredential
	who       signInClient // who it signs in as, set when it starts
}

// signIn is a sign-in in memory.
type signIn struct {
	pub      SignIn
	target   signInTarget
	nonce    string // the SDK's own state; the state sent is <port>.<nonce>
	cancel   context.CancelCauseFunc
	urlReady chan struct{}       // closed once the authorization URL is set
	done     chan struct{}       // closed once it has ended
	callback chan callbackResult // the browser's return, at most one
}

type callbackResult struct {
	code, iss         string
	errCode, errDescr string
}

// signIns holds the sign-ins in memory.
type signIns struct {
	mu       sync.Mutex
	byID     map[string]*signIn
	byNonce  map[string]*signIn
	byPlugin map[string]*signIn
}

var (
	errExpired   = errors.New("the sign-in was not finished within ten minutes")
	errReplaced  = errors.New("a newer sign-in for this plugin started")
	errAbandoned = errors.New("the sign-in was abandoned")
)

func (c *Client) signInCount() int {
	c.signs.mu.Lock()
	defer c.signs.mu.Unlock()
	return len(c.signs.byID)
}

func (c *Client) lifetime() time.Duration {
	if c.signInLifetime > 0 {
		return c.signInLifetime
	}
	return SignInLifetime
}

// SignInStatus returns a sign-in's progress (GET /plugins/sign-ins/{id}):
// waiting, connected, or failed with why. One the API does not hold (never
// started, abandoned, or forgotten after ten minutes) is 404
// sign_in_not_found.
func (c *Client) SignInStatus(id string) (SignIn, error) {
	c.signs.mu.Lock()
	defer c.signs.mu.Unlock()
	s := c.signs.byID[id]
	if s == nil {
		return SignIn{}, &Error{Status: 404, Code: CodeSignInNotFound, Name: cleanText(id, 64)}
	}
	return s.pub, nil
}

// AbandonSignIn ends and forgets a sign-in (DELETE /plugins/sign-ins/{id}):
// nothing of it is stored. One the API does not hold is 404.
func (c *Client) AbandonSignIn(id string) error {
	c.signs.mu.Lock()
	s := c.signs.byID[id]
	if s != nil {
		c.forgetLocked(s)
	}
	c.signs.mu.Unlock()
	if s == nil {
		return &Error{Status: 404, Code: CodeSignInNotFound, Name: cleanText(id, 64)}
	}
	s.cancel(errAbandoned)
	<-s.done
	return nil
}

// WaitSignIn waits until the sign-in has ended, or ctx is done, and returns
// it as it ended.
func (c *Client) WaitSignIn(ctx context.Context, id string) (SignIn, error) {
	c.signs.mu.Lock()
	s := c.signs.byID[id]
	c.signs.mu.Unlock()
	if s == nil {
		return SignIn{}, &Error{Status: 404, Code: CodeSignInNotFound, Name: cleanText(id, 64)}
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return SignIn{}, ctx.Err()
	}
	c.signs.mu.Lock()
	defer c.signs.mu.Unlock()
	return s.pub, nil
}

func (c *Client) forgetLocked(s *signIn) {
	if c.signs.byID[s.pub.ID] == s {
		delete(c.signs.byID, s.pub.ID)
	}
	if s.nonce != "" && c.signs.byNonce[s.nonce] == s {
		delete(c.signs.byNonce, s.nonce)
	}
	if c.signs.byPlugin[s.pub.PluginID] == s {
		delete(c.signs.byPlugin, s.pub.PluginID)
	}
}

// SignInAgain signs an OAuth plugin in again (POST /plugins/{id}/sign-in):
// the same row, so its tool settings stay, reusing the client an earlier
// sign-in registered dynamically while its redirect still matches. A plugin
// that does not sign in with an account is 422 plugin_not_oauth; hosts not
// allowed are 403 egress_disabled.
func (c *Client) SignInAgain(ctx context.Context, id string) (SignIn, error) {
	p, err := c.row(ctx, id)
	if err != nil {
		return SignIn{}, err
	}
	if p.CredentialKind != CredentialOAuth {
		return SignIn{}, &Error{Status: 422, Code: CodeNotOAuth, Name: p.Name}
	}
	if off := notAllowed(c.Egress, PurposePlugin, p.Hosts...); len(off) > 0 {
		return SignIn{}, egressError(PurposePlugin, off)
	}
	if _, err := c.signInClient(); err != nil {
		return SignIn{}, &Error{Status: 502, Code: CodeSignInFailed, Name: p.Name, Err: err}
	}
	earlier, _ := ParseOAuthCredential(p.Credential)
	t := signInTarget{
		id: p.ID, name: p.Name, url: p.URL, source: p.Source, entry: p.Entry, publisher: p.Publisher,
		hosts: slices.Clone(p.Hosts), again: true, earlier: earlier,
	}
	if e := c.entryOf(p); e != nil && e.Auth.Type == registry.AuthOAuth {
		t.clientID, t.scopes = e.Auth.ClientID, slices.Clone(e.Auth.Scopes)
	}
	serr := c.signIn(ctx, t, nil, nil)
	var se *SignInRequiredError
	if errors.As(serr, &se) && se.SignIn != nil {
		return *se.SignIn, nil
	}
	if serr == nil || errors.Is(serr, errNotOAuth) || errors.As(serr, &se) {
		return SignIn{}, &Error{Status: 502, Code: CodeSignInFailed, Name: p.Name, Err: errors.New("the server no longer asks for a sign-in with an account")}
	}
	return SignIn{}, serr
}

// entryOf returns the registry entry a registry plugin was connected from,
// nil when none is held.
func (c *Client) entryOf(p InstalledPlugin) *registry.Entry {
	if p.Source != SourceRegistry || c.Registry == nil {
		return nil
	}
	list, _ := c.Registry.Held()
	if list == nil {
		return nil
	}
	return list.Lookup(p.Entry)
}

// startSignIn starts a sign-in for t against the authorization server d
// found, and returns it once its authorization URL is ready, within
// SignInStartTimeout; 502 plugin_sign_in_failed otherwise. A sign-in
// already running for the same plugin is cancelled.
func (c *Client) startSignIn(ctx context.Context, t signInTarget, ref *RefusalError, d *discovery) (*SignIn, error) {
	fail := func(err error) error { return &Error{Status: 502, Code: CodeSignInFailed, Name: t.name, Err: err} }
	who, err := c.signInClient()
	if err != nil {
		return nil, fail(err)
	}
	t.who = who
	id, err := randomID()
	if err != nil {
		return nil, err
	}
	flowCtx, cancelTimeout := context.WithTimeoutCause(context.Background(), c.lifetime(), errExpired)
	flowCtx, cancel := context.WithCancelCause(flowCtx)
	s := &signIn{
		pub: SignIn{
			ID: id, PluginID: t.id, Name: t.name, Status: SignInWaiting, Again: t.again, StartedAt: c.now(),
		},
		target:   t,
		cancel:   cancel,
		urlReady: make(chan struct{}),
		done:     make(chan struct{}),
		callback: make(chan callbackResult, 1),
	}

	c.signs.mu.Lock()
	if c.signs.byID == nil {
		c.signs.byID, c.signs.byNonce, c.signs.byPlugin = map[string]*signIn{}, map[string]*signIn{}, map[string]*signIn{}
	}
	earlier := c.signs.byPlugin[t.id]
	if earlier == nil && len(c.signs.byID) >= MaxSignIns {
		c.signs.mu.Unlock()
		cancel(nil)
		cancelTimeout()
		return nil, fail(fmt.Errorf("%d sign-ins are in progress, the most this API holds; finish or cancel one first", MaxSignIns))
	}
	c.signs.byID[id] = s
	c.signs.byPlugin[t.id] = s
	c.signs.mu.Unlock()
	if earlier != nil {
		earlier.cancel(errReplaced)
	}

	h, cp, err := c.codeHandler(t, who, s)
	if err != nil {
		c.endSignIn(s, FailOther, "SurfSense could not set up the sign-in.", err)
		cancelTimeout()
		return nil, fail(err)
	}
	req, _ := http.NewRequestWithContext(flowCtx, http.MethodPost, t.url, nil)
	resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{}, Body: http.NoBody, Request: req}
	if ref != nil {
		resp.Header["Www-Authenticate"] = slices.Clone(ref.WWWAuthenticate)
	}
	go func() {
		defer cancelTimeout()
		c.runSignIn(flowCtx, s, h, cp, req, resp, d)
	}()

	wait := SignInStartTimeout
	if c.signInStartTimeout > 0 {
		wait = c.signInStartTimeout
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-s.urlReady:
		c.signs.mu.Lock()
		defer c.signs.mu.Unlock()
		pub := s.pub
		return &pub, nil
	case <-s.done:
	case <-timer.C:
		cancel(fmt.Errorf("the authorization server did not get the sign-in ready within %v", wait))
		<-s.done
	case <-ctx.Done():
		// The caller never learns the sign-in's id: forget it.
		cancel(ctx.Err())
		<-s.done
		c.signs.mu.Lock()
		c.forgetLocked(s)
		c.signs.mu.Unlock()
		return nil, ctx.Err()
	}
	c.signs.mu.Lock()
	pub := s.pub
	c.forgetLocked(s)
	c.signs.mu.Unlock()
	return nil, &Error{Status: 502, Code: CodeSignInFailed, Name: t.name, Err: errors.New(pub.Message)}
}

// captured is what the SDK's handler settled on, read once it has
// exchanged the code.
type captured struct {
	mu     sync.Mutex
	config *oauth2.Config
	token  *oauth2.Token
}

// codeHandler builds the MCP SDK's authorization-code handler for a
// sign-in: registration (SurfSense's client ID metadata document, an
// entry's client registered in advance, or dynamic registration), PKCE
// S256, the code exchange, and every request through the consented client.
func (c *Client) codeHandler(t signInTarget, who signInClient, s *signIn) (*auth.AuthorizationCodeHandler, *captured, error) {
	cp := &captured{}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              who.redirectURL,
		AuthorizationCodeFetcher: c.codeFetcher(s),
		RequestRefreshToken:      true,
		AcceptUnadvertisedIss:    true,
		Client:                   c.consentedHTTP(),
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			cp.mu.Lock()
			cp.config, cp.token = oc, tok
			cp.mu.Unlock()
			return oauth2.StaticTokenSource(tok), nil
		},
	}
	switch {
	case t.clientID != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: t.clientID}
		if len(t.scopes) > 0 {
			scopes := slices.Clone(t.scopes)
			cfg.ScopeFilter = func([]string) []string { return scopes }
		}
	default:
		if who.metadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: who.metadataURL}
		}
		if e := t.earlier; e.Registration == RegistrationDynamic && e.ClientID != "" && e.RedirectURL == who.redirectURL {
			// Reuse the client an earlier sign-in registered.
			pc := &oauthex.ClientCredentials{ClientID: e.ClientID}
			if e.ClientSecret != "" {
				pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.ClientSecret}
			}
			cfg.PreregisteredClient = pc
		} else {
			cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
				Metadata: &oauthex.ClientRegistrationMetadata{
					RedirectURIs:            []string{who.redirectURL},
					TokenEndpointAuthMethod: "none",
					GrantTypes:              []string{"authorization_code", "refresh_token"},
					ResponseTypes:           []string{"code"},
					ClientName:              "SurfSense",
				},
			}
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	return h, cp, err
}

// codeFetcher is the SDK's AuthorizationCodeFetcher: it sends the state as
// <port>.<nonce>, the nonce being the SDK's own state, publishes the
// authorization URL, and waits for the browser to come back to the
// callback.
func (c *Client) codeFetcher(s *signIn) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		nonce := q.Get("state")
		if nonce == "" || strings.ContainsAny(nonce, ".&=#") {
			return nil, fmt.Errorf("the OAuth client made no usable state")
		}
		q.Set("state", strconv.Itoa(c.CallbackPort)+"."+nonce)
		u.RawQuery = q.Encode()
		c.signs.mu.Lock()
		if c.signs.byID[s.pub.ID] != s || s.nonce != "" {
			// Forgotten already, or asked twice: one sign-in, one page.
			c.signs.mu.Unlock()
			return nil, errors.Join(context.Cause(ctx), errors.New("the sign-in has ended"))
		}
		s.nonce = nonce
		c.signs.byNonce[nonce] = s
		s.pub.AuthorizationURL = u.String()
		c.signs.mu.Unlock()
		close(s.urlReady)

		select {
		case r := <-s.callback:
			if r.errCode != "" {
				return nil, &providerError{code: r.errCode, description: r.errDescr}
			}
			return &auth.AuthorizationResult{Code: r.code, State: nonce, Iss: r.iss}, nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// providerError is the provider's error, from the browser's return.
type providerError struct{ code, description string }

func (e *providerError) Error() string {
	s := "the provider ended the sign-in: " + cleanText(e.code, 64)
	if e.description != "" {
		s += " (" + cleanText(e.description, 200) + ")"
	}
	return s
}

// runSignIn runs the SDK's flow, then lists the tools with the new token and
// stores the plugin.
func (c *Client) runSignIn(ctx context.Context, s *signIn, h *auth.AuthorizationCodeHandler, cp *captured, req *http.Request, resp *http.Response, d *discovery) {
	err := h.Authorize(ctx, req, resp)
	if err != nil {
		code, msg := signInFailureOf(ctx, err)
		c.endSignIn(s, code, msg, err)
		return
	}
	cp.mu.Lock()
	oc, tok := cp.config, cp.token
	cp.mu.Unlock()
	if oc == nil || tok == nil || tok.AccessToken == "" {
		c.endSignIn(s, FailTokenExchange, "The provider gave no access token.", nil)
		return
	}
	cred := OAuthCredential{
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry.UTC(),
		ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, AuthStyle: oc.Endpoint.AuthStyle,
		RedirectURL: oc.RedirectURL, TokenEndpoint: oc.Endpoint.TokenURL, Scopes: slices.Clone(oc.Scopes),
		Resource: s.target.url,
	}
	if d != nil {
		cred.Issuer = d.issuer
		if d.resource != nil && d.resource.Resource != "" {
			cred.Resource = d.resource.Resource
		}
	}
	switch {
	case s.target.clientID != "" && oc.ClientID == s.target.clientID:
		cred.Registration = RegistrationPreregistered
	case s.target.who.metadataURL != "" && oc.ClientID == s.target.who.metadataURL:
		cred.Registration = RegistrationMetadataDocument
	default:
		cred.Registration = RegistrationDynamic
	}
	t := s.target
	p := InstalledPlugin{CredentialKind: CredentialOAuth, Credential: cred.Encode()}
	listed, lerr := c.lister().ListTools(ctx, t.url, c.Host.Headers(t.url, CredentialOAuth, cred.AccessToken, false))
	if lerr != nil {
		if ctx.Err() != nil {
			code, msg := signInFailureOf(ctx, context.Cause(ctx))
			c.endSignIn(s, code, msg, nil)
			return
		}
		var ref *RefusalError
		if errors.As(lerr, &ref) && (ref.StatusCode == 401 || ref.StatusCode == 403) {
			c.endSignIn(s, FailServerRefused, fmt.Sprintf("%s refused the sign-in (HTTP %d).", t.name, ref.StatusCode), lerr)
		} else {
			c.endSignIn(s, FailServerUnreach, fmt.Sprintf("%s could not be reached after signing in.", t.name), lerr)
		}
		return
	}
	var serr error
	if t.again {
		_, serr = c.storeSignedInAgain(ctx, t.id, p.Credential, listed)
	} else {
		p.ID, p.Name, p.Kind, p.Source, p.URL, p.Entry, p.Publisher = t.id, t.name, "remote", t.source, t.url, t.entry, t.publisher
		p.Hosts, p.Enabled = slices.Clone(t.hosts), true
		if t.source == SourceCustom {
			if err := c.nameTaken(ctx, t.id, t.name); err != nil {
				c.endSignIn(s, FailAlreadyConnected, fmt.Sprintf("A plugin named %s was connected meanwhile.", t.name), nil)
				return
			}
		}
		_, serr = c.store(ctx, p, listed)
	}
	switch {
	case serr == nil:
		c.endSignIn(s, "", "", nil)
	case IsCode(serr, CodeAlreadyConnected):
		c.endSignIn(s, FailAlreadyConnected, fmt.Sprintf("%s was connected meanwhile.", t.name), nil)
	case IsCode(serr, CodeNotFound):
		c.endSignIn(s, FailRemoved, fmt.Sprintf("%s was removed meanwhile.", t.name), nil)
	default:
		c.endSignIn(s, FailOther, "SurfSense could not save the plugin.", serr)
	}
}

// storeSignedInAgain puts a new sign-in on an existing row, which is
// connected again and listed as a check, keeping its tool settings.
func (c *Client) storeSignedInAgain(ctx context.Context, id, credential string, listed []*mcp.Tool) (InstalledPlugin, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	p.CredentialKind, p.Credential = CredentialOAuth, credential
	p.DisconnectedAt = time.Time{}
	return c.recordListingLocked(ctx, p, listed)
}

// signInFailureOf says why the SDK's flow ended: the provider's error, or
// why the sign-in was ended (its lifetime, a newer one, the user, the start
// timeout), or what the flow could not do.
func signInFailureOf(ctx context.Context, err error) (SignInFailure, string) {
	var pe *providerError
	var ae *Error
	cause := context.Cause(ctx)
	if ctx.Err() == nil {
		cause = nil
	}
	switch {
	case errors.As(err, &pe) && pe.code == "access_denied":
		return FailDeclined, "You declined the sign-in."
	case errors.As(err, &pe):
		return FailProviderError, "The provider ended the sign-in: " + strings.TrimPrefix(pe.Error(), "the provider ended the sign-in: ") + "."
	case errors.Is(cause, errExpired) || errors.Is(err, errExpired):
		return FailExpired, "The sign-in was not finished within ten minutes."
	case errors.Is(cause, errReplaced) || errors.Is(err, errReplaced):
		return FailReplaced, "A newer sign-in for this plugin started."
	case errors.Is(cause, errAbandoned) || errors.Is(err, errAbandoned):
		return FailOther, "The sign-in was cancelled."
	case cause != nil:
		return FailOther, "The sign-in ended: " + cleanText(cause.Error(), 200) + "."
	case errors.As(err, &ae) && ae.Code == CodeEgressDisabled:
		return FailEgress, fmt.Sprintf("Allow %s in Settings › Network to sign in.", strings.Join(ae.Hosts, ", "))
	case strings.Contains(err.Error(), "register client") || strings.Contains(err.Error(), "registration"):
		return FailRegistration, "The provider would not register SurfSense as a client."
	case strings.Contains(err.Error(), "token exchange"):
		return FailTokenExchange, "The provider would not exchange the sign-in for a token."
	}
	return FailOther, "The sign-in failed: " + cleanText(err.Error(), 200) + "."
}

// endSignIn records how a sign-in ended, forgets its state, and forgets
// the sign-in itself once its ten minutes are over.
func (c *Client) endSignIn(s *signIn, code SignInFailure, msg string, _ error) {
	c.signs.mu.Lock()
	if code == "" {
		s.pub.Status, s.pub.Failure, s.pub.Message = SignInConnected, "", ""
	} else {
		s.pub.Status, s.pub.Failure, s.pub.Message = SignInFailed, code, msg
	}
	if s.nonce != "" && c.signs.byNonce[s.nonce] == s {
		delete(c.signs.byNonce, s.nonce)
	}
	if c.signs.byPlugin[s.pub.PluginID] == s {
		delete(c.signs.byPlugin, s.pub.PluginID)
	}
	left := c.lifetime() - c.now().Sub(s.pub.StartedAt)
	if code == FailExpired || left <= 0 {
		c.forgetLocked(s)
	}
	c.signs.mu.Unlock()
	close(s.done)
	if left > 0 && code != FailExpired {
		time.AfterFunc(left, func() {
			c.signs.mu.Lock()
			c.forgetLocked(s)
			c.signs.mu.Unlock()
		})
	}
}

func randomID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
