package registry

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind says which rule set a list is checked against. Both lists share one
// entry schema; the rules differ.
type Kind int

const (
	// FirstParty is SurfSense's own list (registry/first_party/plugins.json):
	// publisher surfsense, no verification, an about, tools, an added month,
	// license auth allowed on the plugin host.
	FirstParty Kind = iota + 1
	// ThirdParty is the registry (registry/plugins.json): publisher partner
	// or community, a privacy policy, a verification for partners, removed
	// entries, no license auth.
	ThirdParty
)

// String names the list.
func (k Kind) String() string {
	switch k {
	case FirstParty:
		return "first-party list"
	case ThirdParty:
		return "registry"
	default:
		return fmt.Sprintf("Kind(%d)", int(k))
	}
}

// Limits the check enforces. Lengths count characters (runes), not bytes.
const (
	MaxListBytes          = 4 << 20
	MaxIconBytes          = 128 << 10
	MaxNameLen            = 50
	MaxDescriptionLen     = 200
	MaxAuthorLen          = 80
	MaxAboutLen           = 600
	MaxAccessNoteLen      = 200
	MaxAuthTitleLen       = 60
	MaxAuthDescriptionLen = 300
	MaxReasonLen          = 300
	MaxURLLen             = 2048
	MaxHosts              = 10
	MaxTools              = 100
	MaxScopes             = 20
)

var (
	idPattern       = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)
	toolPattern     = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	monthPattern    = regexp.MustCompile(`^20[0-9]{2}-(0[1-9]|1[0-2])$`)
	iconNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9_-]+)*\.(svg|png|webp)$`)
	// scopePattern is RFC 6749's scope-token.
	scopePattern = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]{1,200}$`)
)

// reservedIDs no listed plugin may take, with why. firstPartyOnly ids are
// SurfSense plugins written but not listed yet: the first-party list may
// list them, the registry never.
var (
	reservedIDs = map[string]string{
		"surfsense":   "the agent's own MCP server",
		"license":     "a route of the plugin host",
		"cancel":      "a route of the plugin host",
		"icons":       "a route of the plugin host",
		"first-party": "a route of the plugin host",
		"oauth":       "a route of the plugin host",
		"healthz":     "a route of the plugin host",
		"readyz":      "a route of the plugin host",
		"metrics":     "a route of the plugin host",
	}
	firstPartyOnlyIDs = map[string]bool{"reddit": true, "instagram": true}
)

// Check reads a list and checks it against kind's rules, reporting every
// problem at once. icons is the list's icons folder; nil skips the checks of
// icon files (a client checking a fetched list has no folder). It returns the
// list as far as it could be read; use it only when Problems is empty.
func Check(kind Kind, data []byte, icons fs.FS) (*List, Problems) {
	c := &checker{kind: kind, icons: icons}
	list := c.list(data)
	return list, c.ps
}

type checker struct {
	kind  Kind
	icons fs.FS
	ps    Problems
}

func (c *checker) add(entry, field, format string, args ...any) {
	c.ps.add(entry, field, format, args...)
}

func (c *checker) list(data []byte) *List {
	list := &List{}
	if c.kind != FirstParty && c.kind != ThirdParty {
		c.add(ListLabel, "(kind)", "unknown list kind %d", int(c.kind))
		return list
	}
	if len(data) > MaxListBytes {
		c.add(ListLabel, "(file)", "is %d bytes; the most is %d", len(data), MaxListBytes)
		return list
	}
	if !utf8.Valid(data) {
		c.add(ListLabel, "(file)", "is not valid UTF-8")
		return list
	}
	obj, err := readObject(data)
	if err != nil {
		c.add(ListLabel, "(file)", "%v", err)
		return list
	}
	for _, d := range obj.dups {
		c.add(ListLabel, keyLabel(d), "appears twice; give it once")
	}

	if raw, ok := obj.get("schema_version"); !ok {
		c.add(ListLabel, "schema_version", "missing; must be %d", SchemaVersion)
	} else if v := strings.TrimSpace(string(raw)); v != fmt.Sprint(SchemaVersion) {
		c.add(ListLabel, "schema_version", "is %s; this build reads only %d", clip(v), SchemaVersion)
	} else {
		list.SchemaVersion = SchemaVersion
	}

	if raw, ok := obj.get("generated_at"); !ok {
		if c.kind == ThirdParty {
			c.add(ListLabel, "generated_at", "missing; must be an RFC 3339 time (2026-11-30T10:00:00Z)")
		}
	} else if s, err := readString(raw); err != nil {
		c.add(ListLabel, "generated_at", "%v", err)
	} else if t, err := time.Parse(time.RFC3339, s); err != nil {
		c.add(ListLabel, "generated_at", "%q is not an RFC 3339 time (2026-11-30T10:00:00Z)", clip(s))
	} else {
		list.GeneratedAt = t
	}

	if raw, ok := obj.get("plugins"); !ok {
		c.add(ListLabel, "plugins", "missing; must be an array of entries")
	} else if items, err := readArray(raw); err != nil {
		c.add(ListLabel, "plugins", "%v", err)
	} else {
		list.Plugins = make([]Entry, 0, len(items))
		for i, item := range items {
			list.Plugins = append(list.Plugins, c.entry(i, item))
		}
	}

	if raw, ok := obj.get("removed"); ok {
		items, err := readArray(raw)
		switch {
		case err != nil:
			c.add(ListLabel, "removed", "%v", err)
		case c.kind == FirstParty && len(items) > 0:
			c.add(ListLabel, "removed", "SurfSense's own list has no removed entries; drop the plugin from the list")
		default:
			for i, item := range items {
				list.Removed = append(list.Removed, c.removed(i, item))
			}
		}
	}

	c.unique(list)
	return list
}

// label is the entry part of an entry's problems: its id when usable.
func entryLabel(id string, i int, what string) string {
	if idPattern.MatchString(id) {
		return id
	}
	return fmt.Sprintf("%s[%d]", what, i)
}

func (c *checker) entry(i int, raw json.RawMessage) Entry {
	var e Entry
	obj, err := readObject(raw)
	if err != nil {
		c.add(fmt.Sprintf("plugins[%d]", i), "(entry)", "%v", err)
		return e
	}
	// The id first, so the other problems can name the entry.
	idRaw, hasID := obj.get("id")
	if hasID {
		e.ID, _ = readString(idRaw)
	}
	label := entryLabel(e.ID, i, "plugins")
	f := fields{obj: obj, label: label, ps: &c.ps}
	for _, d := range obj.dups {
		c.add(label, keyLabel(d), "appears twice; give it once")
	}

	if id, ok := f.str("id", true); ok {
		e.ID = id
		c.checkID(label, id)
	}
	if s, ok := f.str("name", true); ok {
		e.Name = s
		checkText(f.ps, label, "name", s, MaxNameLen, false)
	}
	if s, ok := f.str("description", true); ok {
		e.Description = s
		checkText(f.ps, label, "description", s, MaxDescriptionLen, false)
	}
	if s, ok := f.str("author", true); ok {
		e.Author = s
		checkText(f.ps, label, "author", s, MaxAuthorLen, false)
	}
	if s, ok := f.str("publisher", true); ok {
		e.Publisher = s
		c.checkPublisher(label, s)
	}

	var u *url.URL
	if s, ok := f.str("url", true); ok {
		e.URL = s
		u = checkURL(f.ps, label, "url", s, true)
	}
	if u != nil {
		c.checkServerURL(label, e.ID, u)
	}

	if hosts, ok := f.strs("hosts", true); ok {
		e.Hosts = hosts
		c.checkHosts(label, hosts, u)
	}

	auth := c.auth(f, label)
	e.Auth = auth

	if s, ok := f.str("access", true); ok {
		e.Access = s
		c.checkAccess(label, s, auth.Type)
	}
	if s, ok := f.str("access_note", false); ok {
		e.AccessNote = s
		if e.Access == AccessFree || e.Access == AccessLicense {
			c.add(label, "access_note", "only for access %q; drop it", AccessExternal)
		} else {
			checkText(f.ps, label, "access_note", s, MaxAccessNoteLen, false)
		}
	} else if e.Access == AccessExternal {
		c.add(label, "access_note", "missing; access %q needs a note saying what the user needs (an account, a plan)", AccessExternal)
	}

	if auth.Type == AuthLicense && c.kind == FirstParty && u != nil {
		if u.Hostname() != PluginHost {
			c.add(label, "auth.type", "license auth is only for plugins on https://%s (the key goes nowhere else)", PluginHost)
		}
	}

	if s, ok := f.str("homepage", false); ok {
		e.Homepage = s
		checkURL(f.ps, label, "homepage", s, false)
	}
	if s, ok := f.str("privacy_policy", c.kind == ThirdParty); ok {
		e.PrivacyPolicy = s
		checkURL(f.ps, label, "privacy_policy", s, false)
	}
	if s, ok := f.str("about", c.kind == FirstParty); ok {
		e.About = s
		checkText(f.ps, label, "about", s, MaxAboutLen, true)
	}
	if tools, ok := f.strs("tools", c.kind == FirstParty); ok {
		e.Tools = tools
		c.checkTools(label, tools)
	}
	if s, ok := f.str("added", c.kind == FirstParty); ok {
		e.Added = s
		if !monthPattern.MatchString(s) {
			c.add(label, "added", "%q is not a month written YYYY-MM (2026-11)", clip(s))
		}
	}
	if s, ok := f.str("icon", false); ok {
		e.Icon = s
		checkIcon(f.ps, label, s, c.icons)
	}
	e.Verification = c.verification(f, label, u, e.Publisher)
	return e
}

func (c *checker) checkID(label, id string) {
	if !idPattern.MatchString(id) {
		c.add(label, "id", "%q must match ^[a-z][a-z0-9-]{0,63}$ (lowercase letters, digits and hyphens, starting with a letter)", clip(id))
		return
	}
	if why, ok := reservedIDs[id]; ok {
		c.add(label, "id", "%q is reserved: %s", id, why)
	}
	if firstPartyOnlyIDs[id] && c.kind == ThirdParty {
		c.add(label, "id", "%q is reserved for a SurfSense plugin", id)
	}
}

func (c *checker) checkPublisher(label, p string) {
	switch c.kind {
	case FirstParty:
		if p != PublisherSurfSense {
			c.add(label, "publisher", "%q: SurfSense's own list says %q", clip(p), PublisherSurfSense)
		}
	case ThirdParty:
		switch p {
		case PublisherPartner, PublisherCommunity:
		case PublisherSurfSense:
			c.add(label, "publisher", "%q is only for SurfSense's own list; the registry says %q or %q", p, PublisherPartner, PublisherCommunity)
		default:
			c.add(label, "publisher", "%q must be %q or %q", clip(p), PublisherPartner, PublisherCommunity)
		}
	}
}

// checkServerURL holds the rules tying the server URL to the list.
func (c *checker) checkServerURL(label, id string, u *url.URL) {
	if u.Hostname() != PluginHost {
		return
	}
	if c.kind == ThirdParty {
		c.add(label, "url", "%s serves SurfSense's own plugins only", PluginHost)
		return
	}
	if idPattern.MatchString(id) && u.EscapedPath() != "/"+id+"/mcp" {
		c.add(label, "url", "a plugin on %s is served at https://%s/%s/mcp", PluginHost, PluginHost, id)
	}
}

func (c *checker) checkHosts(label string, hosts []string, u *url.URL) {
	if len(hosts) == 0 {
		c.add(label, "hosts", "empty; list every host the plugin reaches, the URL's first")
		return
	}
	if len(hosts) > MaxHosts {
		c.add(label, "hosts", "lists %d hosts; the most is %d", len(hosts), MaxHosts)
	}
	seen := map[string]bool{}
	for i, h := range hosts {
		field := fmt.Sprintf("hosts[%d]", i)
		if msg := hostProblem(h); msg != "" {
			c.add(label, field, "%s", msg)
			continue
		}
		if seen[h] {
			c.add(label, field, "%q is listed twice", h)
		}
		seen[h] = true
		if c.kind == ThirdParty && h == PluginHost {
			c.add(label, field, "%s serves SurfSense's own plugins only", PluginHost)
		}
	}
	if u != nil && u.Hostname() != "" && !seen[u.Hostname()] && hostProblem(u.Hostname()) == "" {
		c.add(label, "hosts", "must name the URL's host %q", u.Hostname())
	}
}

func (c *checker) checkAccess(label, access, authType string) {
	switch access {
	case AccessFree, AccessExternal:
		if authType == AuthLicense {
			c.add(label, "access", "%q: license auth goes with access %q", access, AccessLicense)
		}
	case AccessLicense:
		if c.kind == ThirdParty {
			c.add(label, "access", "%q is only for SurfSense's own plugins", access)
		} else if authType != AuthLicense && authType != "" {
			c.add(label, "access", "%q goes with auth type %q", access, AuthLicense)
		}
	default:
		c.add(label, "access", "%q must be %q, %q or %q", clip(access), AccessFree, AccessExternal, AccessLicense)
	}
}

func (c *checker) checkTools(label string, tools []string) {
	if len(tools) == 0 {
		if c.kind == FirstParty {
			c.add(label, "tools", "empty; list the tools the server offers")
		} else {
			c.add(label, "tools", "empty; leave tools out when the entry lists none")
		}
		return
	}
	if len(tools) > MaxTools {
		c.add(label, "tools", "lists %d tools; the most is %d", len(tools), MaxTools)
	}
	seen := map[string]bool{}
	for i, t := range tools {
		field := fmt.Sprintf("tools[%d]", i)
		switch {
		case !toolPattern.MatchString(t):
			c.add(label, field, "%q is not an MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)", clip(t))
		case seen[t]:
			c.add(label, field, "%q is listed twice", t)
		case c.kind == FirstParty && t == ResultTool:
			c.add(label, field, "%q is added by the plugin host to every server; the list leaves it out", t)
		}
		seen[t] = true
	}
}

func (c *checker) auth(f fields, label string) Auth {
	var a Auth
	obj, ok := f.object("auth", true)
	if !ok {
		return a
	}
	af := fields{obj: obj, label: label, prefix: "auth.", ps: f.ps}
	for _, d := range obj.dups {
		c.add(label, "auth."+keyLabel(d), "appears twice; give it once")
	}
	if t, ok := af.str("type", true); ok {
		a.Type = t
		switch t {
		case AuthNone, AuthToken, AuthOAuth:
		case AuthLicense:
			if c.kind == ThirdParty {
				c.add(label, "auth.type", "%q is only for SurfSense's own plugins", t)
			}
		default:
			c.add(label, "auth.type", "%q must be %q, %q, %q or %q", clip(t), AuthNone, AuthToken, AuthOAuth, AuthLicense)
		}
	}
	title, hasTitle := af.str("title", a.Type == AuthToken)
	desc, hasDesc := af.str("description", a.Type == AuthToken)
	a.Title, a.Description = title, desc
	if a.Type == AuthToken {
		if hasTitle {
			checkText(f.ps, label, "auth.title", title, MaxAuthTitleLen, false)
		}
		if hasDesc {
			checkText(f.ps, label, "auth.description", desc, MaxAuthDescriptionLen, false)
		}
	} else {
		if hasTitle {
			c.add(label, "auth.title", "only for token auth; drop it")
		}
		if hasDesc {
			c.add(label, "auth.description", "only for token auth; drop it")
		}
	}
	clientID, hasClient := af.str("client_id", false)
	scopes, hasScopes := af.strs("scopes", false)
	a.ClientID, a.Scopes = clientID, scopes
	if a.Type != AuthOAuth {
		if hasClient {
			c.add(label, "auth.client_id", "only for oauth auth; drop it")
		}
		if hasScopes {
			c.add(label, "auth.scopes", "only for oauth auth; drop it")
		}
		return a
	}
	if hasClient {
		if clientID == "" || len(clientID) > 500 || strings.ContainsFunc(clientID, func(r rune) bool { return r <= ' ' || r == 0x7f || r > 0x7e }) {
			c.add(label, "auth.client_id", "must be 1 to 500 printable ASCII characters without spaces")
		}
	}
	if hasScopes {
		if len(scopes) > MaxScopes {
			c.add(label, "auth.scopes", "lists %d scopes; the most is %d", len(scopes), MaxScopes)
		}
		seen := map[string]bool{}
		for i, s := range scopes {
			field := fmt.Sprintf("auth.scopes[%d]", i)
			switch {
			case !scopePattern.MatchString(s):
				c.add(label, field, "%q is not an OAuth scope (printable ASCII, no spaces, quotes or backslashes)", clip(s))
			case seen[s]:
				c.add(label, field, "%q is listed twice", s)
			}
			seen[s] = true
		}
	}
	return a
}

func (c *checker) verification(f fields, label string, u *url.URL, publisher string) *Verification {
	if _, present := f.obj.get("verification"); !present {
		if c.kind == ThirdParty && publisher == PublisherPartner {
			c.add(label, "verification", "missing; a partner entry records how its author proved they run the server")
		}
		return nil
	}
	if c.kind == FirstParty {
		c.add(label, "verification", "SurfSense's own entries carry no verification; drop it")
		return nil
	}
	obj, ok := f.object("verification", false)
	if !ok {
		return nil
	}
	if publisher == PublisherCommunity {
		c.add(label, "verification", "a community entry carries no verification; an author proven to run the server is a partner")
	}
	v := &Verification{}
	vf := fields{obj: obj, label: label, prefix: "verification.", ps: f.ps}
	for _, d := range obj.dups {
		c.add(label, "verification."+keyLabel(d), "appears twice; give it once")
	}
	if s, ok := vf.str("method", true); ok {
		v.Method = s
		if s != VerifyDNS && s != VerifyWellKnown {
			c.add(label, "verification.method", "%q must be %q or %q", clip(s), VerifyDNS, VerifyWellKnown)
		}
	}
	if s, ok := vf.str("domain", true); ok {
		v.Domain = s
		if msg := hostProblem(s); msg != "" {
			c.add(label, "verification.domain", "%s", msg)
		} else if u != nil && u.Hostname() != "" {
			h := u.Hostname()
			if h != s && !strings.HasSuffix(h, "."+s) {
				c.add(label, "verification.domain", "%q is not the server's host %q nor a parent of it", s, h)
			}
		}
	}
	if s, ok := vf.str("verified_at", true); ok {
		v.VerifiedAt = s
		if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != len(time.DateOnly) {
			c.add(label, "verification.verified_at", "%q is not a date written YYYY-MM-DD", clip(s))
		}
	}
	return v
}

func (c *checker) removed(i int, raw json.RawMessage) Removed {
	var r Removed
	obj, err := readObject(raw)
	if err != nil {
		c.add(fmt.Sprintf("removed[%d]", i), "(entry)", "%v", err)
		return r
	}
	if idRaw, ok := obj.get("id"); ok {
		r.ID, _ = readString(idRaw)
	}
	label := entryLabel(r.ID, i, "removed")
	f := fields{obj: obj, label: label, ps: &c.ps}
	for _, d := range obj.dups {
		c.add(label, keyLabel(d), "appears twice; give it once")
	}
	if id, ok := f.str("id", true); ok {
		r.ID = id
		if !idPattern.MatchString(id) {
			c.add(label, "id", "%q must match ^[a-z][a-z0-9-]{0,63}$", clip(id))
		}
	}
	if s, ok := f.str("reason", true); ok {
		r.Reason = s
		checkText(f.ps, label, "reason", s, MaxReasonLen, false)
	}
	return r
}

// unique checks ids and names within one list: an id once, removed ones
// included; a name once, without regard to case.
func (c *checker) unique(l *List) {
	ids := map[string]string{}   // id -> where
	names := map[string]string{} // folded name -> id
	for i, e := range l.Plugins {
		if idPattern.MatchString(e.ID) {
			if _, dup := ids[e.ID]; dup {
				c.add(e.ID, "id", "%q is used by another entry (plugins[%d] repeats it)", e.ID, i)
			}
			ids[e.ID] = "plugins"
		}
		if key := foldName(e.Name); key != "" {
			if other, dup := names[key]; dup {
				c.add(entryLabel(e.ID, i, "plugins"), "name", "%q is also %s's name; names are told apart by users", e.Name, other)
			} else {
				names[key] = entryLabel(e.ID, i, "plugins")
			}
		}
	}
	for i, r := range l.Removed {
		if !idPattern.MatchString(r.ID) {
			continue
		}
		switch ids[r.ID] {
		case "plugins":
			c.add(r.ID, "id", "%q is in removed and listed again; a removed id is never used again", r.ID)
		case "removed":
			c.add(r.ID, "id", "%q is removed twice (removed[%d] repeats it)", r.ID, i)
		}
		ids[r.ID] = "removed"
	}
}

// CheckAcross checks the rules that span both lists: an id is unique across
// them, a removed registry id included, and a registry entry does not take
// the name of one of SurfSense's plugins. Problems name the registry entry.
func CheckAcross(firstParty, registry *List) Problems {
	var ps Problems
	if firstParty == nil || registry == nil {
		return ps
	}
	fp := map[string]bool{}
	names := map[string]string{}
	for _, e := range firstParty.Plugins {
		fp[e.ID] = true
		if k := foldName(e.Name); k != "" {
			names[k] = e.ID
		}
	}
	for _, e := range registry.Plugins {
		if fp[e.ID] {
			ps.add(e.ID, "id", "%q is SurfSense's own plugin's id", e.ID)
		}
		if other, ok := names[foldName(e.Name)]; ok && foldName(e.Name) != "" {
			ps.add(e.ID, "name", "%q is SurfSense's own plugin %q's name", e.Name, other)
		}
	}
	for _, r := range registry.Removed {
		if fp[r.ID] {
			ps.add(r.ID, "id", "%q is SurfSense's own plugin's id and cannot be a removed registry id", r.ID)
		}
	}
	return ps
}

// CheckHistory checks a registry against the one it replaces (the base
// branch's copy in CI): no id disappears (an entry is moved to removed,
// never deleted, so its id is never reused), no removed id comes back, and a
// list whose content changed has a later generated_at.
func CheckHistory(previous, next *List) Problems {
	var ps Problems
	if previous == nil || next == nil {
		return ps
	}
	listed := map[string]bool{}
	removed := map[string]bool{}
	for _, e := range next.Plugins {
		listed[e.ID] = true
	}
	for _, r := range next.Removed {
		removed[r.ID] = true
	}
	for _, e := range previous.Plugins {
		if !listed[e.ID] && !removed[e.ID] {
			ps.add(e.ID, "id", "was listed and is gone; move the entry to removed with a reason instead of deleting it, so the id is never reused")
		}
	}
	for _, r := range previous.Removed {
		if listed[r.ID] {
			ps.add(r.ID, "id", "was removed and is listed again; a removed id is never used again")
		} else if !removed[r.ID] {
			ps.add(r.ID, "id", "was in removed and is gone; keep it there so the id is never reused")
		}
	}
	a, b := *previous, *next
	a.GeneratedAt, b.GeneratedAt = time.Time{}, time.Time{}
	changed := !reflect.DeepEqual(a, b)
	switch {
	case next.GeneratedAt.Before(previous.GeneratedAt):
		ps.add(ListLabel, "generated_at", "%s is older than the previous list's %s", next.GeneratedAt.Format(time.RFC3339), previous.GeneratedAt.Format(time.RFC3339))
	case changed && !next.GeneratedAt.After(previous.GeneratedAt):
		ps.add(ListLabel, "generated_at", "the list changed, so generated_at must be later than the previous list's %s", previous.GeneratedAt.Format(time.RFC3339))
	}
	return ps
}

// fields reads one JSON object's fields, reporting type problems.
type fields struct {
	obj    *jsonObject
	label  string
	prefix string
	ps     *Problems
}

// str reads a string field. ok is false when absent (reported when required)
// or of the wrong type (reported).
func (f fields) str(key string, required bool) (string, bool) {
	raw, present := f.obj.get(key)
	if !present {
		if required {
			f.ps.add(f.label, f.prefix+key, "missing")
		}
		return "", false
	}
	s, err := readString(raw)
	if err != nil {
		f.ps.add(f.label, f.prefix+key, "%v", err)
		return "", false
	}
	return s, true
}

// strs reads an array of strings; elements of the wrong type are reported
// and left out.
func (f fields) strs(key string, required bool) ([]string, bool) {
	raw, present := f.obj.get(key)
	if !present {
		if required {
			f.ps.add(f.label, f.prefix+key, "missing")
		}
		return nil, false
	}
	items, err := readArray(raw)
	if err != nil {
		f.ps.add(f.label, f.prefix+key, "%v", err)
		return nil, false
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, err := readString(item)
		if err != nil {
			f.ps.add(f.label, fmt.Sprintf("%s%s[%d]", f.prefix, key, i), "%v", err)
			continue
		}
		out = append(out, s)
	}
	return out, true
}

func (f fields) object(key string, required bool) (*jsonObject, bool) {
	raw, present := f.obj.get(key)
	if !present {
		if required {
			f.ps.add(f.label, f.prefix+key, "missing")
		}
		return nil, false
	}
	obj, err := readObject(raw)
	if err != nil {
		f.ps.add(f.label, f.prefix+key, "%v", err)
		return nil, false
	}
	return obj, true
}

// checkText checks a human text: not empty, no surrounding spaces, no
// control or bidirectional-override characters (a name must read as it is
// stored), at most max characters. multiline allows line breaks.
func checkText(ps *Problems, label, field, s string, max int, multiline bool) {
	if strings.TrimSpace(s) == "" {
		ps.add(label, field, "empty")
		return
	}
	if strings.TrimSpace(s) != s {
		ps.add(label, field, "has spaces at its start or end")
	}
	if n := utf8.RuneCountInString(s); n > max {
		ps.add(label, field, "is %d characters; the most is %d", n, max)
	}
	for _, r := range s {
		if r == '\n' && multiline {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			ps.add(label, field, "holds the control character U+%04X", r)
			return
		}
	}
}

// keyLabel names a JSON key in a problem: as written when plain, quoted
// otherwise (an empty key, spaces, control characters).
func keyLabel(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(clip(k))
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// foldName is a name as users tell names apart: case and spacing aside.
func foldName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}
