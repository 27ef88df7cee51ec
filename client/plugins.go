package client

import (
	"context"
	"slices"
	"time"
)

// PluginView is a connected plugin as GET /plugins answers it: its row,
// its tools, how it signs in (auth_type) and whether it is disconnected or
// removed from the registry; never a key or token.
type PluginView struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Source      Source    `json:"source"`
	URL         string    `json:"url"`
	Entry       string    `json:"entry,omitempty"`
	Publisher   string    `json:"publisher,omitempty"`
	Hosts       []string  `json:"hosts"`
	Enabled     bool      `json:"enabled"`
	ConnectedAt time.Time `json:"connected_at"`
	// AuthType is none, token, license or oauth.
	AuthType      string       `json:"auth_type"`
	Disconnected  bool         `json:"disconnected"`
	RemovedReason string       `json:"removed_reason,omitempty"`
	CheckedAt     time.Time    `json:"checked_at,omitzero"`
	CheckFailure  CheckFailure `json:"check_failure,omitempty"`
	Tools         []PluginTool `json:"tools"`
}

// Plugins returns every connected plugin with its tools (GET /plugins).
func (c *Client) Plugins(ctx context.Context) ([]PluginView, error) {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PluginView, 0, len(rows))
	for _, p := range rows {
		tools, err := c.Store.Tools(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		auth := string(p.CredentialKind)
		if auth == "" {
			auth = "none"
		}
		out = append(out, PluginView{
			ID: p.ID, Name: p.Name, Source: p.Source, URL: p.URL, Entry: p.Entry, Publisher: p.Publisher,
			Hosts: slices.Clone(p.Hosts), Enabled: p.Enabled, ConnectedAt: p.ConnectedAt, AuthType: auth,
			Disconnected: p.Disconnected(), RemovedReason: p.RemovedReason, CheckedAt: p.CheckedAt,
			CheckFailure: p.CheckFailure, Tools: tools,
		})
	}
	return out, nil
}
