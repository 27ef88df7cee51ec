package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"golang.org/x/oauth2"
)

// RefreshWindow is how close to its expiry an OAuth plugin's token is
// refreshed before an agent turn.
const RefreshWindow = 30 * time.Minute

// errRefreshRefused is a refresh the authorization server refused, or one
// not possible (no refresh token): the plugin is recorded as signed out.
var errRefreshRefused = errors.New("the authorization server refused to refresh the sign-in; sign in again")

// refresh refreshes p's OAuth tokens (the app's token_refresh.py), one at a
// time per plugin, since providers rotate refresh tokens: a caller that
// finds another's refresh done since it read p uses that one. It returns
// the row with its new credential and true; a refused refresh, or none
// possible, records check_failure sign_in and returns errRefreshRefused; a
// token endpoint that cannot be reached, or whose host is not allowed,
// leaves the sign-in as it was and returns why.
func (c *Client) refresh(ctx context.Context, p InstalledPlugin) (InstalledPlugin, bool, error) {
	v, _ := c.refreshing.LoadOrStore(p.ID, make(chan struct{}, 1))
	sem := v.(chan struct{})
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return p, false, ctx.Err()
	}
	defer func() { <-sem }()

	cur, err := c.row(ctx, p.ID)
	if err != nil {
		return p, false, err
	}
	if cur.CredentialKind != CredentialOAuth || cur.Disconnected() {
		return cur, false, errRefreshRefused
	}
	if at := accessToken(cur.Credential); at != "" && at != accessToken(p.Credential) {
		return cur, true, nil // refreshed by another caller meanwhile
	}
	cred, err := ParseOAuthCredential(cur.Credential)
	if err != nil {
		return cur, false, err
	}
	if cred.RefreshToken == "" || cred.TokenEndpoint == "" {
		return c.refreshRefused(ctx, p.ID)
	}
	te, err := url.Parse(cred.TokenEndpoint)
	if err != nil || te.Host == "" {
		return cur, false, fmt.Errorf("the sign-in's token endpoint is not a URL")
	}
	if off := notAllowed(c.Egress, PurposePlugin, te.Hostname()); len(off) > 0 {
		return cur, false, egressError(PurposePlugin, off)
	}
	cfg := oauth2.Config{
		ClientID: cred.ClientID, ClientSecret: cred.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: cred.TokenEndpoint, AuthStyle: cred.AuthStyle},
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, c.consentedHTTP())
	tok, err := cfg.TokenSource(hctx, &oauth2.Token{RefreshToken: cred.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && (re.Response.StatusCode == 400 || re.Response.StatusCode == 401) {
			return c.refreshRefused(ctx, p.ID)
		}
		var ae *Error
		if errors.As(err, &ae) {
			return cur, false, ae
		}
		if ctx.Err() != nil {
			return cur, false, ctx.Err()
		}
		if errors.As(err, &re) && re.Response != nil {
			return cur, false, fmt.Errorf("the token endpoint %s answered HTTP %d; the sign-in is kept", urlHost(cred.TokenEndpoint), re.Response.StatusCode)
		}
		return cur, false, fmt.Errorf("the token endpoint %s could not be reached; the sign-in is kept", urlHost(cred.TokenEndpoint))
	}
	cred.AccessToken, cred.TokenType, cred.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry.UTC()
	if tok.RefreshToken != "" {
		cred.RefreshToken = tok.RefreshToken
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	row, err := c.row(ctx, p.ID)
	if err != nil {
		return cur, false, err
	}
	row.Credential = cred.Encode()
	if err := c.Store.PutPlugin(ctx, row); err != nil {
		return cur, false, err
	}
	return row, true, nil
}

// refreshRefused records a refused refresh: the plugin is signed out
// (check_failure sign_in), so it is not ready until it signs in again.
func (c *Client) refreshRefused(ctx context.Context, id string) (InstalledPlugin, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	row, err := c.row(ctx, id)
	if err != nil {
		return row, false, err
	}
	row.CheckFailure = CheckSignIn
	row.CheckedAt = c.now()
	if err := c.Store.PutPlugin(ctx, row); err != nil {
		return row, false, err
	}
	return row, false, errRefreshRefused
}

// RefreshExpiring refreshes the tokens of every ready OAuth plugin that
// expire within [RefreshWindow] (the agent's before a turn), one at a time
// per plugin, and returns how many it refreshed. A refused refresh marks
// its plugin signed out; a token endpoint out of reach leaves the sign-in as
// it was. Neither stops the others.
func (c *Client) RefreshExpiring(ctx context.Context) (int, error) {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return 0, err
	}
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	now := c.now()
	for _, p := range rows {
		if p.CredentialKind != CredentialOAuth || !c.pluginReady(p, st) {
			continue
		}
		cred, err := ParseOAuthCredential(p.Credential)
		if err != nil || !cred.SignedIn() || !cred.ExpiresWithin(now, RefreshWindow) {
			continue
		}
		if _, ok, _ := c.refresh(ctx, p); ok {
			n++
		}
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
	return n, nil
}
