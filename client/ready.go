package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
)

// ReadyTool is a tool that may be used now, naming no engine: what the
// agent reads each turn.
type ReadyTool struct {
	Plugin        string          `json:"plugin"`         // the plugin's id
	PluginName    string          `json:"plugin_name"`    // its name
	Source        Source          `json:"source"`         // first_party, registry or custom
	URL           string          `json:"url"`            // the plugin's server
	Tool          string          `json:"tool"`           // the tool's name on its server
	QualifiedName string          `json:"qualified_name"` // <plugin>__<tool>
	Title         string          `json:"title,omitempty"`
	Description   string          `json:"description"`
	InputSchema   json.RawMessage `json:"input_schema,omitempty"`
	Annotations   Annotations     `json:"annotations"`
	NeedsApproval bool            `json:"needs_approval"`
}

// QualifiedName is a tool's name across plugins: <plugin>__<tool>.
func QualifiedName(plugin, tool string) string { return plugin + "__" + tool }

// ReadyTools is the one answer to which tools may be used now (the app's
// list_tools()): a tool switched on, of a plugin switched on and not
// disconnected, whose hosts are all allowed, not removed from the registry,
// not an OAuth plugin signed out, not a plugin whose license the plugin host
// refused, and, unless SurfSense publishes it, only while third-party
// plugins are allowed.
func (c *Client) ReadyTools(ctx context.Context) ([]ReadyTool, error) {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return nil, err
	}
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return nil, err
	}
	out := []ReadyTool{}
	for _, p := range rows {
		if !c.pluginReady(p, st) {
			continue
		}
		tools, err := c.Store.Tools(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			if !t.Enabled {
				continue
			}
			out = append(out, ReadyTool{
				Plugin: p.ID, PluginName: p.Name, Source: p.Source, URL: p.URL,
				Tool: t.Name, QualifiedName: QualifiedName(p.ID, t.Name),
				Title: t.Title, Description: t.Description,
				InputSchema: slices.Clone(t.InputSchema), Annotations: t.Annotations.clone(),
				NeedsApproval: NeedsApproval(p, t),
			})
		}
	}
	return out, nil
}

// pluginReady is the plugin's part of readiness.
func (c *Client) pluginReady(p InstalledPlugin, st PluginSettings) bool {
	switch {
	case !p.Enabled, p.Disconnected():
		return false
	case c.Egress != nil && slices.ContainsFunc(p.Hosts, func(h string) bool { return !c.Egress.Allowed(normHost(h)) }):
		return false
	case p.RemovedReason != "":
		return false
	case p.CredentialKind == CredentialOAuth && p.CheckFailure == CheckSignIn:
		return false
	case p.CheckFailure.IsLicense():
		return false
	case p.Source != SourceFirstParty && !st.ThirdPartyOn:
		return false
	}
	return true
}

// NeedsApproval says whether a call of tool t of plugin p asks first (the
// app's needs_approval()): a first-party read-only tool never does; a tool
// that does not say it is read-only and does not say it is harmless
// (destructiveHint absent or true) always does; any other asks unless set
// to Always allow.
func NeedsApproval(p InstalledPlugin, t PluginTool) bool {
	if p.Source == SourceFirstParty && t.Annotations.ReadOnly() {
		return false
	}
	if alwaysAsks(t) {
		return true
	}
	return t.Approval != ApprovalAlways
}

// alwaysAsks: a tool that says neither that it is read-only nor that it is
// harmless.
func alwaysAsks(t PluginTool) bool {
	return !t.Annotations.ReadOnly() && !t.Annotations.Harmless()
}

// SetToolEnabled switches a tool on or off (PUT /plugins/{id}/tools/{tool}
// {enabled}). Switching it on clears its added or changed mark: the user has
// allowed it as it now reads.
func (c *Client) SetToolEnabled(ctx context.Context, pluginID, tool string, on bool) error {
	return c.updateTool(ctx, pluginID, tool, func(p InstalledPlugin, t *PluginTool) error {
		t.Enabled = on
		if on {
			t.Change = ChangeNone
		}
		return nil
	})
}

// SetToolApproval sets whether a tool asks first (PUT
// /plugins/{id}/tools/{tool} {approval}). Always allow on a tool that always
// asks is 422 tool_always_asks.
func (c *Client) SetToolApproval(ctx context.Context, pluginID, tool string, a Approval) error {
	if a != ApprovalAsk && a != ApprovalAlways {
		return &Error{Status: 422, Code: "tool_approval_invalid", Name: string(a)}
	}
	return c.updateTool(ctx, pluginID, tool, func(p InstalledPlugin, t *PluginTool) error {
		if a == ApprovalAlways && alwaysAsks(*t) {
			return &Error{Status: 422, Code: CodeApprovalClosed, Name: tool}
		}
		t.Approval = a
		return nil
	})
}

func (c *Client) updateTool(ctx context.Context, pluginID, tool string, fn func(InstalledPlugin, *PluginTool) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.row(ctx, pluginID)
	if err != nil {
		return err
	}
	tools, err := c.Store.Tools(ctx, pluginID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools, func(t PluginTool) bool { return t.Name == tool })
	if i < 0 {
		return &Error{Status: 404, Code: "tool_not_found", Name: tool}
	}
	if err := fn(p, &tools[i]); err != nil {
		return err
	}
	return c.Store.PutTools(ctx, pluginID, tools)
}

// SetPluginEnabled switches a plugin on or off (PUT /plugins/{id}
// {enabled}), keeping its key and tool settings.
func (c *Client) SetPluginEnabled(ctx context.Context, id string, on bool) error {
	return c.updatePlugin(ctx, id, func(p *InstalledPlugin) { p.Enabled = on })
}

// Disconnect drops a plugin's key or sign-in and marks it disconnected
// (POST /plugins/{id}/disconnect); the row, its credential_kind and its tool
// settings stay, and its tools are not offered.
func (c *Client) Disconnect(ctx context.Context, id string) error {
	now := c.now()
	return c.updatePlugin(ctx, id, func(p *InstalledPlugin) {
		kept := ""
		if p.CredentialKind == CredentialOAuth {
			// The tokens go; the client an earlier sign-in registered stays,
			// for signing in again.
			if cred, err := ParseOAuthCredential(p.Credential); err == nil && cred.ClientID != "" {
				kept = cred.signedOut().Encode()
			}
		}
		p.Credential = kept
		if !p.Disconnected() {
			p.DisconnectedAt = now
		}
	})
}

// Remove deletes a plugin, its key and its tools (DELETE /plugins/{id}).
func (c *Client) Remove(ctx context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return storeErr(id, c.Store.DeletePlugin(ctx, id))
}

// SetThirdPartyAllowed turns third-party plugins on or off (PUT
// /plugins/third-party {allowed}).
func (c *Client) SetThirdPartyAllowed(ctx context.Context, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return err
	}
	st.ThirdPartyOn = on
	return c.Store.PutSettings(ctx, st)
}

func (c *Client) updatePlugin(ctx context.Context, id string, fn func(*InstalledPlugin)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.row(ctx, id)
	if err != nil {
		return err
	}
	fn(&p)
	if err := c.Store.PutPlugin(ctx, p); err != nil {
		if errors.Is(err, ErrNotFound) {
			return storeErr(id, err)
		}
		return err
	}
	return nil
}
