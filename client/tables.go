package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Source is where a plugin was connected from.
type Source string

const (
	SourceFirstParty Source = "first_party" // SurfSense's own list
	SourceRegistry   Source = "registry"    // the signed third-party registry
	SourceCustom     Source = "custom"      // a server added by its URL
)

// CredentialKind is how a plugin signs in.
type CredentialKind string

const (
	CredentialNone    CredentialKind = ""        // nothing is sent
	CredentialToken   CredentialKind = "token"   // a pasted key, sent as Authorization: Bearer
	CredentialLicense CredentialKind = "license" // the imported license, never stored on the plugin
	CredentialOAuth   CredentialKind = "oauth"   // an OAuth sign-in, its access token sent as Bearer
)

// CheckFailure is why a plugin's last check failed; "" when the server
// answered.
type CheckFailure string

const (
	CheckOK             CheckFailure = ""
	CheckUnreachable    CheckFailure = "unreachable"
	CheckSignIn         CheckFailure = "sign_in"
	CheckNeedsLicense   CheckFailure = "needs_license"
	CheckLicenseExpired CheckFailure = "license_expired"
	CheckLicenseRevoked CheckFailure = "license_revoked"
	CheckLicenseInvalid CheckFailure = "license_invalid"
)

// IsLicense reports whether f is one of the license failures, which make a
// plugin not ready.
func (f CheckFailure) IsLicense() bool {
	switch f {
	case CheckNeedsLicense, CheckLicenseExpired, CheckLicenseRevoked, CheckLicenseInvalid:
		return true
	}
	return false
}

// Approval is whether a tool asks before each call.
type Approval string

const (
	ApprovalAsk    Approval = "ask"    // the default
	ApprovalAlways Approval = "always" // Always allow
)

// Change marks a tool a check switched off, until the user switches it on.
type Change string

const (
	ChangeNone    Change = ""
	ChangeAdded   Change = "added"   // new since the first listing
	ChangeChanged Change = "changed" // its description changed or its annotations became less safe
)

// ExposureDirect is the only exposure built: the tool is offered as it is.
const ExposureDirect = "direct"

// InstalledPlugin is a row of installed_plugins.
type InstalledPlugin struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"` // always "remote"
	// Source is where it was connected from.
	Source Source `json:"source"`
	// URL is the server's URL in its one spelling; unique among rows.
	URL string `json:"url"`
	// Entry is the id of the list entry it was connected from, "" for a
	// custom plugin.
	Entry string `json:"entry,omitempty"`
	// Publisher is who runs it: "surfsense", or a registry entry's author.
	Publisher string `json:"publisher,omitempty"`
	// Hosts are the hosts its calls reach (its server's, and an OAuth
	// plugin's sign-in hosts); all must be allowed for it to be ready.
	Hosts       []string  `json:"hosts"`
	Enabled     bool      `json:"enabled"`
	ConnectedAt time.Time `json:"connected_at"`
	// CredentialKind is how it signs in.
	CredentialKind CredentialKind `json:"credential_kind,omitempty"`
	// Credential is a pasted key, or an OAuth sign-in as JSON
	// ([OAuthCredential]); never a license key. It has no JSON name so that
	// it is never marshalled with the row: a [FileStore] keeps it encrypted
	// as credential_ciphertext.
	Credential string `json:"-"`
	// ListedAt is when its server first answered a listing; zero while no
	// listing has (a first-party plugin connected with a refused license).
	// That first listing's tools all start on; later ones are tools added
	// later. (The app's table keeps this implicit; it is explicit here.)
	ListedAt time.Time `json:"listed_at,omitzero"`
	// CheckedAt is when it was last listed; CheckFailure why that failed.
	CheckedAt    time.Time    `json:"checked_at,omitzero"`
	CheckFailure CheckFailure `json:"check_failure,omitempty"`
	// DisconnectedAt is set while the user has disconnected it.
	DisconnectedAt time.Time `json:"disconnected_at,omitzero"`
	// RemovedReason is set on a registry plugin whose id the registry
	// removed.
	RemovedReason string `json:"removed_reason,omitempty"`
}

// Disconnected reports whether the user has disconnected the plugin.
func (p InstalledPlugin) Disconnected() bool { return !p.DisconnectedAt.IsZero() }

func (p InstalledPlugin) clone() InstalledPlugin {
	p.Hosts = slices.Clone(p.Hosts)
	return p
}

// Annotations are a tool's MCP annotations. A nil hint is one the server did
// not give.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether the tool says it is read-only.
func (a Annotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Harmless reports whether the tool says it is not destructive
// (destructiveHint false; absent means destructive).
func (a Annotations) Harmless() bool { return a.DestructiveHint != nil && !*a.DestructiveHint }

func (a Annotations) idempotent() bool { return a.IdempotentHint != nil && *a.IdempotentHint }

// closedWorld: openWorldHint false (absent means open world).
func (a Annotations) closedWorld() bool { return a.OpenWorldHint != nil && !*a.OpenWorldHint }

// LessSafeThan reports whether a claims less safety than old: it stopped
// saying it is read-only, or it stopped saying it is harmless, idempotent or
// closed-world while not read-only, or it stopped saying it reaches a closed
// world. Hints a read-only tool gives about destruction and idempotence are
// meaningless (MCP) and ignored while it stays read-only.
func (a Annotations) LessSafeThan(old Annotations) bool {
	if old.ReadOnly() && !a.ReadOnly() {
		return true
	}
	if !a.ReadOnly() {
		if (old.Harmless() || old.ReadOnly()) && !a.Harmless() {
			return true
		}
		if (old.idempotent() || old.ReadOnly()) && !a.idempotent() {
			return true
		}
	}
	return old.closedWorld() && !a.closedWorld()
}

// PluginTool is a row of plugin_tools.
type PluginTool struct {
	PluginID    string          `json:"plugin_id"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Annotations Annotations     `json:"annotations"`
	Position    int             `json:"position"`
	Enabled     bool            `json:"enabled"`
	Approval    Approval        `json:"approval"`
	Exposure    string          `json:"exposure"`
	FirstSeenAt time.Time       `json:"first_seen_at"`
	Change      Change          `json:"change,omitempty"`
}

func (t PluginTool) clone() PluginTool {
	t.InputSchema = slices.Clone(t.InputSchema)
	t.Annotations = t.Annotations.clone()
	return t
}

func (a Annotations) clone() Annotations {
	cp := func(b *bool) *bool {
		if b == nil {
			return nil
		}
		v := *b
		return &v
	}
	a.ReadOnlyHint = cp(a.ReadOnlyHint)
	a.DestructiveHint = cp(a.DestructiveHint)
	a.IdempotentHint = cp(a.IdempotentHint)
	a.OpenWorldHint = cp(a.OpenWorldHint)
	return a
}

// PluginSettings is the one row of plugin_settings.
type PluginSettings struct {
	// ThirdPartyOn is whether third-party plugins are allowed; off by
	// default.
	ThirdPartyOn bool `json:"third_party_on"`
}

// Errors a [Store] returns.
var (
	ErrNotFound = errors.New("no such plugin")
	ErrURLTaken = errors.New("another plugin is connected at this URL")
)

// Store keeps the app's plugin tables: installed_plugins, plugin_tools and
// plugin_settings. Implementations return copies: changing a returned value
// changes nothing stored. They are safe for concurrent use.
type Store interface {
	// Plugins returns every row of installed_plugins, ordered by
	// ConnectedAt, then ID.
	Plugins(ctx context.Context) ([]InstalledPlugin, error)
	// Plugin returns the row with id, or ErrNotFound.
	Plugin(ctx context.Context, id string) (InstalledPlugin, error)
	// PutPlugin inserts p, or replaces the row with its ID. It returns
	// ErrURLTaken when another row has p's URL.
	PutPlugin(ctx context.Context, p InstalledPlugin) error
	// DeletePlugin removes the row with id and its tools; ErrNotFound when
	// there is none.
	DeletePlugin(ctx context.Context, id string) error
	// Tools returns the plugin's tools ordered by Position.
	Tools(ctx context.Context, pluginID string) ([]PluginTool, error)
	// PutTools replaces every tool of the plugin with tools (whose PluginID
	// it sets); ErrNotFound when the plugin has no row.
	PutTools(ctx context.Context, pluginID string, tools []PluginTool) error
	// Settings returns the plugin_settings row (zero when never put).
	Settings(ctx context.Context) (PluginSettings, error)
	// PutSettings replaces the plugin_settings row.
	PutSettings(ctx context.Context, s PluginSettings) error
}
