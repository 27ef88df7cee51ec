package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	tok, err := refreshGrant(ctx, c.consentedHTTP(), cred, c.now())
	if err != nil {
		var te *tokenError
		var ae *Error
		switch {
		case errors.As(err, &te) && (te.status == 400 || te.status == 401):
			return c.refreshRefused(ctx, p.ID)
		case errors.As(err, &ae):
			return cur, false, ae
		case ctx.Err() != nil:
			return cur, false, ctx.Err()
		case errors.As(err, &te):
			return cur, false, fmt.Errorf("the token endpoint %s answered HTTP %d; the sign-in is kept", urlHost(cred.TokenEndpoint), te.status)
		}
		return cur, false, fmt.Errorf("the token endpoint %s could not be reached; the sign-in is kept: %w", urlHost(cred.TokenEndpoint), err)
	}
	cred.AccessToken, cred.TokenType, cred.Expiry = tok.accessToken, tok.tokenType, tok.expiry
	if tok.refreshToken != "" {
		cred.RefreshToken = tok.refreshToken // providers rotate it
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

// refreshed is a refresh's answer.
type refreshed struct {
	accessToken, tokenType, refreshToken string
	expiry                               time.Time
}

// tokenError is a token endpoint's refusal (RFC 6749 section 5.2). It never
// holds the request, whose form carries the refresh token.
type tokenError struct {
	status      int
	code        string
	description string
}

func (e *tokenError) Error() string {
	s := fmt.Sprintf("the token endpoint refused with HTTP %d", e.status)
	if e.code != "" {
		s += " (" + e.code + ")"
	}
	return s
}

// refreshGrant asks the token endpoint for new tokens with the refresh
// token (RFC 6749 section 6), naming the resource (RFC 8707) as the MCP
// authorization spec asks of every token request, which golang.org/x/oauth2's
// refresh cannot. The client authenticates as it was registered: a public
// client by client_id alone, one with a secret as AuthStyle says.
func refreshGrant(ctx context.Context, hc *http.Client, cred OAuthCredential, now time.Time) (refreshed, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cred.RefreshToken}}
	if cred.Resource != "" {
		form.Set("resource", cred.Resource)
	}
	basic := cred.ClientSecret != "" && cred.AuthStyle != oauth2.AuthStyleInParams
	if !basic {
		form.Set("client_id", cred.ClientID)
		if cred.ClientSecret != "" {
			form.Set("client_secret", cred.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cred.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return refreshed{}, fmt.Errorf("the sign-in's token endpoint is not a URL")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(cred.ClientID), url.QueryEscape(cred.ClientSecret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return refreshed{}, ae
		}
		return refreshed{}, err // names the endpoint, never the form
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var v struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.Unmarshal(body, &v)
		return refreshed{}, &tokenError{status: resp.StatusCode, code: cleanText(v.Error, 64), description: cleanText(v.Description, 200)}
	}
	var v struct {
		AccessToken  string          `json:"access_token"`
		TokenType    string          `json:"token_type"`
		RefreshToken string          `json:"refresh_token"`
		ExpiresIn    json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.AccessToken == "" {
		return refreshed{}, &tokenError{status: resp.StatusCode, code: "no access_token in the answer"}
	}
	r := refreshed{accessToken: v.AccessToken, tokenType: v.TokenType, refreshToken: v.RefreshToken}
	if secs, err := strconv.ParseInt(strings.Trim(string(v.ExpiresIn), `"`), 10, 64); err == nil && secs > 0 {
		r.expiry = now.Add(time.Duration(secs) * time.Second).UTC()
	}
	return r, nil
}
