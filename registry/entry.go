package registry

import (
	"net/url"
	"slices"
	"time"
)

// SchemaVersion is the only list schema_version this build reads. A list
// with another version is refused rather than half understood.
const SchemaVersion = 1

// Publishers, as the lists name them. Only the first-party list says
// [PublisherSurfSense]; the registry says [PublisherPartner] (a verified
// company) or [PublisherCommunity].
const (
	PublisherSurfSense = "surfsense"
	PublisherPartner   = "partner"
	PublisherCommunity = "community"
)

// Auth types: how the app signs a plugin in. [AuthLicense] (the SurfSense
// license, sent as "Authorization: License <key>") is first-party only and only
// on the plugin host.
const (
	AuthNone    = "none"
	AuthToken   = "token"
	AuthOAuth   = "oauth"
	AuthLicense = "license"
)

// Access values: what a user needs besides signing in. [AccessExternal]
// (an account or subscription with the publisher) needs an access_note saying
// what; [AccessLicense] goes with license auth.
const (
	AccessFree     = "free"
	AccessLicense  = "license"
	AccessExternal = "external"
)

// PluginHost is the host that serves SurfSense's own plugins, each at
// https://plugins.surfsense.com/<id>/mcp. License auth is allowed only there.
const PluginHost = "plugins.surfsense.com"

// ResultTool is the tool the plugin host adds to every one of its servers to
// page through large results. The first-party list does not name it (the app
// shows a plugin's tools as chips, and get_result is plumbing): compare a
// server's tools with an entry's through [ToolsMatch], which leaves it out.
const ResultTool = "get_result"

// List is a parsed plugin list: the first-party list or the registry. Both
// share the file shape
//
//	{"schema_version":1,"generated_at":"<RFC 3339>","plugins":[…],"removed":[…]}
//
// The first-party list may leave generated_at out and has no removed entries.
type List struct {
	SchemaVersion int       `json:"schema_version"`
	GeneratedAt   time.Time `json:"generated_at"`
	Plugins       []Entry   `json:"plugins"`
	Removed       []Removed `json:"removed,omitempty"`
}

// Entry is one plugin in either list. Fields the schema does not know are
// ignored when a list is read. Which fields are required, and what each may
// hold, depends on the list (see [Check]).
type Entry struct {
	// ID is the plugin's id, ^[a-z][a-z0-9-]{0,63}$, unique across both
	// lists and never reused, removed ids included.
	ID string `json:"id"`
	// Name is the human name shown on the plugin's card.
	Name string `json:"name"`
	// Description is the card's one-line description.
	Description string `json:"description"`
	// Author is who wrote and runs the plugin ("SurfSense" for first-party).
	Author string `json:"author"`
	// Publisher is surfsense, partner or community.
	Publisher string `json:"publisher"`
	// URL is the MCP server's Streamable HTTP endpoint (https, no credentials).
	URL string `json:"url"`
	// Hosts are every host the plugin's calls and sign-in reach; the URL's
	// host is one of them.
	Hosts []string `json:"hosts"`
	// Access is free, license or external.
	Access string `json:"access"`
	// AccessNote says what an external plugin needs (an account, a plan).
	AccessNote string `json:"access_note,omitempty"`
	// Auth is how the app signs in.
	Auth Auth `json:"auth"`
	// Homepage and PrivacyPolicy are https links shown on the plugin's page;
	// a registry entry must have a privacy policy.
	Homepage      string `json:"homepage,omitempty"`
	PrivacyPolicy string `json:"privacy_policy,omitempty"`
	// About is the public page's fuller account, at most 600 characters.
	About string `json:"about,omitempty"`
	// Tools are the names of the tools the server offers, each once. Nil
	// when a registry entry lists none.
	Tools []string `json:"tools,omitempty"`
	// Added is the month the plugin was listed, YYYY-MM.
	Added string `json:"added,omitempty"`
	// Icon is a file name in the list's icons folder, or "".
	Icon string `json:"icon,omitempty"`
	// Verification, registry only, records how the author proved they run
	// the server. Partner entries carry one; community entries do not.
	Verification *Verification `json:"verification,omitempty"`
}

// Auth says how the app signs a plugin in.
type Auth struct {
	// Type is none, token, oauth or license.
	Type string `json:"type"`
	// Title and Description label a token entry's key dialog, in the
	// publisher's words ("API key", "Create one under Settings › API").
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// ClientID, for oauth, is a client registered in advance with the
	// authorization server; Scopes are asked for at sign-in.
	ClientID string   `json:"client_id,omitempty"`
	Scopes   []string `json:"scopes,omitempty"`
}

// Verification records how a registry entry's author proved that they run
// its server: control of Domain, which is the server's host or a parent of it,
// shown by Method (a DNS TXT record or a file under /.well-known/) and checked
// by a maintainer on VerifiedAt (YYYY-MM-DD).
type Verification struct {
	Method     string `json:"method"`
	Domain     string `json:"domain"`
	VerifiedAt string `json:"verified_at"`
}

// Verification methods.
const (
	VerifyDNS       = "dns"
	VerifyWellKnown = "well-known"
)

// Removed is a registry entry taken off the list, with the reason the app
// shows on a plugin still connected from it. Its id is never used again.
type Removed struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ServerHost is the host every call goes to: the URL's host, or "" when the
// URL does not parse.
func (e *Entry) ServerHost() string {
	u, err := url.Parse(e.URL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// SignInHosts are the entry's hosts other than the server's: for an OAuth
// plugin, its authorization server's.
func (e *Entry) SignInHosts() []string {
	server := e.ServerHost()
	var out []string
	for _, h := range e.Hosts {
		if h != server {
			out = append(out, h)
		}
	}
	return out
}

// Verified reports whether the entry is shown with the Verified checkmark
// (a partner with a verification) rather than the Community badge.
func (e *Entry) Verified() bool {
	return e.Publisher == PublisherPartner && e.Verification != nil
}

// Lookup returns the entry with the given id, or nil.
func (l *List) Lookup(id string) *Entry {
	if l == nil {
		return nil
	}
	for i := range l.Plugins {
		if l.Plugins[i].ID == id {
			return &l.Plugins[i]
		}
	}
	return nil
}

// RemovedReason returns the reason an id was removed, and whether it was.
func (l *List) RemovedReason(id string) (string, bool) {
	if l == nil {
		return "", false
	}
	for _, r := range l.Removed {
		if r.ID == id {
			return r.Reason, true
		}
	}
	return "", false
}

// IDs returns the ids of the list's plugins, in list order.
func (l *List) IDs() []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l.Plugins))
	for i, e := range l.Plugins {
		out[i] = e.ID
	}
	return out
}

// ToolsMatch compares the tools an entry lists with the tools its server
// offers, leaving out [ResultTool], which the host adds to every server and
// the list does not name. missing are listed but not served; extra are served
// but not listed. Both are sorted; the tools match when both are empty.
func ToolsMatch(listed, served []string) (missing, extra []string) {
	in := func(s []string, v string) bool { return slices.Contains(s, v) }
	for _, t := range listed {
		if t != ResultTool && !in(served, t) && !in(missing, t) {
			missing = append(missing, t)
		}
	}
	for _, t := range served {
		if t != ResultTool && !in(listed, t) && !in(extra, t) {
			extra = append(extra, t)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}
