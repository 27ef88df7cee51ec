package client

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeTakesNoKey is the app's 422 for a key given to a plugin that signs in
// with the license.
const CodeTakesNoKey = "plugin_takes_no_key"

// Connect connects a disconnected plugin again (POST /plugins/{id}/connect)
// when it needs nothing entered, listing it as at first connect; its tool
// settings stay. One with a key is 422 plugin_needs_key (connect it through
// [Client.ReplaceKey]); an OAuth one is 422 plugin_needs_account (through
// [Client.SignInAgain]). One that is not disconnected is 409
// plugin_already_connected; hosts not allowed are 403 egress_disabled. As at
// first connect, a first-party plugin's 401 or 403 still connects it, its
// check saying why; a registry or custom plugin refused is 422
// plugin_needs_sign_in; any other failure is 502 plugin_unreachable, and the
// plugin stays disconnected.
func (c *Client) Connect(ctx context.Context, id string) (InstalledPlugin, error) {
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	switch {
	case !p.Disconnected():
		return InstalledPlugin{}, &Error{Status: 409, Code: CodeAlreadyConnected, Name: p.Name}
	case p.CredentialKind == CredentialToken:
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsKey, Name: p.Name}
	case p.CredentialKind == CredentialOAuth:
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsAccount, Name: p.Name}
	}
	if off := notAllowed(c.Egress, PurposePlugin, p.Hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	p.DisconnectedAt = time.Time{}
	listed, lerr := c.lister().ListTools(ctx, p.URL, c.Headers(p, false))
	if lerr != nil {
		var ref *RefusalError
		refused := errors.As(lerr, &ref) && (ref.StatusCode == 401 || ref.StatusCode == 403)
		switch {
		case !refused:
			return InstalledPlugin{}, unreachable(p.Name, lerr)
		case p.Source != SourceFirstParty:
			return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsSignIn, Name: p.Name, Err: lerr}
		}
	}
	return c.reconnected(ctx, id, func(row *InstalledPlugin) {}, listed, lerr)
}

// ReplaceKey gives a plugin a new key (PUT /plugins/{id}/key, Replace key,
// and how a disconnected plugin with a key connects again): the server
// lists its tools with the new key first, and only a key it accepts
// replaces the old one, recorded as a check; the tool settings stay. A
// refusal is the same 422 plugin_needs_sign_in or 502 plugin_unreachable as
// connecting, and nothing is saved. An empty key is 422 plugin_needs_key, one
// a header cannot carry 422 plugin_key_invalid; a license plugin is 422
// plugin_takes_no_key and an OAuth one 422 plugin_needs_account.
func (c *Client) ReplaceKey(ctx context.Context, id, token string) (InstalledPlugin, error) {
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	switch p.CredentialKind {
	case CredentialLicense:
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeTakesNoKey, Name: p.Name}
	case CredentialOAuth:
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsAccount, Name: p.Name}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsKey, Name: p.Name}
	}
	if !validSecret(token) {
		return InstalledPlugin{}, &Error{Status: 422, Code: CodeBadKey, Name: p.Name}
	}
	if off := notAllowed(c.Egress, PurposePlugin, p.Hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	p.CredentialKind, p.Credential, p.DisconnectedAt = CredentialToken, token, time.Time{}
	listed, lerr := c.lister().ListTools(ctx, p.URL, c.Headers(p, false))
	if lerr != nil {
		var ref *RefusalError
		if errors.As(lerr, &ref) && (ref.StatusCode == 401 || ref.StatusCode == 403) {
			return InstalledPlugin{}, &Error{Status: 422, Code: CodeNeedsSignIn, Name: p.Name, Err: lerr}
		}
		return InstalledPlugin{}, unreachable(p.Name, lerr)
	}
	return c.reconnected(ctx, id, func(row *InstalledPlugin) {
		row.CredentialKind, row.Credential = CredentialToken, token
	}, listed, nil)
}

// reconnected records a listing that connects a plugin again: the row is
// re-read under the lock, changed by set, no longer disconnected, and the
// listing recorded as a check, keeping the tool settings.
func (c *Client) reconnected(ctx context.Context, id string, set func(*InstalledPlugin), listed []*mcp.Tool, lerr error) (InstalledPlugin, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	row, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	set(&row)
	row.DisconnectedAt = time.Time{}
	if lerr != nil {
		row.CheckedAt, row.CheckFailure = c.now(), failureOf(lerr)
		if err := c.Store.PutPlugin(ctx, row); err != nil {
			return InstalledPlugin{}, err
		}
		return row, nil
	}
	return c.recordListingLocked(ctx, row, listed)
}
