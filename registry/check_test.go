package registry

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const okSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><defs><linearGradient id="g"><stop offset="0" stop-color="#000"/></linearGradient></defs><circle cx="12" cy="12" r="9" fill="url(#g)"/><use href="#g"/></svg>`

// testIcons holds one good icon of each type and one icon per way of being bad.
var testIcons = fstest.MapFS{
	"ok.svg":        {Data: []byte(okSVG)},
	"ok.png":        {Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
	"ok.webp":       {Data: []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")},
	"bad.png":       {Data: []byte("GIF89a")},
	"bad.webp":      {Data: []byte("RIFF\x10\x00\x00\x00AVI ")},
	"big.png":       {Data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, MaxIconBytes)...)},
	"script.svg":    {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)},
	"onload.svg":    {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="1"/></svg>`)},
	"href.svg":      {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="https://evil.test/x.svg#a"/></svg>`)},
	"style.svg":     {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://evil.test/x.css);</style></svg>`)},
	"cssurl.svg":    {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil.test/p)" width="1" height="1"/></svg>`)},
	"anim.svg":      {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="javascript:alert(1)"/></a></svg>`)},
	"foreign.svg":   {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>`)},
	"notsvg.svg":    {Data: []byte(`<html><body>hi</body></html>`)},
	"nons.svg":      {Data: []byte(`<svg viewBox="0 0 1 1"><circle r="1"/></svg>`)},
	"doctype.svg":   {Data: []byte(`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>`)},
	"broken.svg":    {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><circle>`)},
	"latin1.svg":    {Data: []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><svg xmlns="http://www.w3.org/2000/svg"/>`)},
	"dir.svg/x":     {Data: []byte("x")},
	"two-roots.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>`)},
}

// regEntry is a valid registry entry: a verified partner with a token.
func regEntry() map[string]any {
	return map[string]any{
		"id": "acme-notes", "name": "Acme Notes", "description": "Search your Acme notes.",
		"author": "Acme Corp", "publisher": "partner",
		"url": "https://mcp.acme-notes.com/mcp", "hosts": []any{"mcp.acme-notes.com"},
		"access": "external", "access_note": "Needs an Acme Notes account.",
		"auth":     map[string]any{"type": "token", "title": "Acme API key", "description": "Create one under Settings › API."},
		"homepage": "https://acme-notes.com", "privacy_policy": "https://acme-notes.com/privacy",
		"about": "Searches your notes.", "tools": []any{"search_notes", "read.note"}, "added": "2026-11", "icon": "ok.svg",
		"verification": map[string]any{"method": "dns", "domain": "acme-notes.com", "verified_at": "2026-11-01"},
	}
}

// fpEntry is a valid first-party entry.
func fpEntry() map[string]any {
	return map[string]any{
		"id": "test-plugin", "name": "Test Plugin", "description": "Scrapes a test site.",
		"author": "SurfSense", "publisher": "surfsense",
		"url": "https://plugins.surfsense.com/test-plugin/mcp", "hosts": []any{"plugins.surfsense.com"},
		"access": "license", "auth": map[string]any{"type": "license"},
		"about": "Scrapes a test site. Needs a SurfSense license.", "tools": []any{"scrape", "reviews"},
		"added": "2026-11", "icon": "ok.png",
	}
}

func listBytes(t testing.TB, entries []map[string]any, removed []map[string]any) []byte {
	t.Helper()
	doc := map[string]any{"schema_version": 1, "generated_at": "2026-11-27T09:30:00Z", "plugins": entries}
	if removed != nil {
		doc["removed"] = removed
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fieldsOf(ps Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Field)
	}
	return out
}

func TestShippedListsPass(t *testing.T) {
	fp, ps := Check(FirstParty, firstPartyJSON, FirstPartyIcons())
	if len(ps) > 0 {
		t.Fatalf("first-party list:\n%s", ps)
	}
	reg, ps := Check(ThirdParty, registryJSON, EmbeddedRegistryIcons())
	if len(ps) > 0 {
		t.Fatalf("registry:\n%s", ps)
	}
	if ps := CheckAcross(fp, reg); len(ps) > 0 {
		t.Fatalf("across:\n%s", ps)
	}
	want := map[string][]string{
		"google-search": {"search"}, "web-crawl": {"crawl", "map"}, "youtube": {"scrape", "comments"},
		"tiktok": {"scrape", "comments"}, "google-maps": {"scrape", "reviews"}, "amazon": {"scrape"},
		"walmart": {"scrape", "reviews"}, "indeed": {"scrape"},
	}
	if len(fp.Plugins) != len(want) {
		t.Fatalf("first-party plugins %v", fp.IDs())
	}
	for _, e := range fp.Plugins {
		if !slices.Equal(e.Tools, want[e.ID]) {
			t.Errorf("%s tools %v, want %v", e.ID, e.Tools, want[e.ID])
		}
		if e.URL != "https://plugins.surfsense.com/"+e.ID+"/mcp" || e.Auth.Type != AuthLicense || e.Icon != e.ID+".svg" {
			t.Errorf("%s: url %s auth %s icon %s", e.ID, e.URL, e.Auth.Type, e.Icon)
		}
	}
	tools, err := FirstPartyTools()
	if err != nil || len(tools) != 8 || !slices.Equal(tools["youtube"], []string{"scrape", "comments"}) {
		t.Errorf("FirstPartyTools %v %v", tools, err)
	}
	// The registry shows every kind the issue asks for.
	kinds := map[string]bool{}
	for _, e := range reg.Plugins {
		kinds["auth:"+e.Auth.Type] = true
		kinds["publisher:"+e.Publisher] = true
		if e.Verified() {
			kinds["verified"] = true
		}
	}
	for _, k := range []string{"auth:token", "auth:oauth", "auth:none", "publisher:partner", "publisher:community", "verified"} {
		if !kinds[k] {
			t.Errorf("the example registry has no %s entry", k)
		}
	}
	if len(reg.Removed) == 0 {
		t.Error("the example registry has no removed entry")
	}
	if reg.GeneratedAt.IsZero() {
		t.Error("generated_at not read")
	}
}

type ruleCase struct {
	name   string
	kind   Kind
	mutate func(e map[string]any)
	// fields are the only fields problems may name (the first is required);
	// msg must appear in one problem.
	fields []string
	msg    string
	// label is the entry the problems name; "" means the entry's id.
	label string
}

func set(k string, v any) func(map[string]any) { return func(e map[string]any) { e[k] = v } }
func del(k string) func(map[string]any)        { return func(e map[string]any) { delete(e, k) } }
func setAuth(k string, v any) func(map[string]any) {
	return func(e map[string]any) { e["auth"].(map[string]any)[k] = v }
}
func delAuth(k string) func(map[string]any) {
	return func(e map[string]any) { delete(e["auth"].(map[string]any), k) }
}
func setVer(k string, v any) func(map[string]any) {
	return func(e map[string]any) { e["verification"].(map[string]any)[k] = v }
}
func all(fs ...func(map[string]any)) func(map[string]any) {
	return func(e map[string]any) {
		for _, f := range fs {
			f(e)
		}
	}
}
func moveTo(host string) func(map[string]any) {
	return all(set("url", "https://"+host+"/mcp"), set("hosts", []any{host}))
}

var (
	R = ThirdParty
	F = FirstParty
)

var ruleCases = []ruleCase{
	// id
	{"id missing", R, del("id"), []string{"id"}, "missing", "plugins[0]"},
	{"id uppercase", R, set("id", "Bad_ID"), []string{"id"}, "must match", "plugins[0]"},
	{"id too long", R, set("id", "a"+strings.Repeat("b", 64)), []string{"id"}, "must match", "plugins[0]"},
	{"id starts with digit", R, set("id", "9lives"), []string{"id"}, "must match", "plugins[0]"},
	{"id not a string", R, set("id", 42), []string{"id"}, "must be a string", "plugins[0]"},
	{"id surfsense", R, set("id", "surfsense"), []string{"id"}, "reserved", ""},
	{"id of an unlisted SurfSense plugin", R, set("id", "reddit"), []string{"id"}, "reserved for a SurfSense plugin", ""},
	{"id of a host route", F, all(set("id", "first-party"), set("url", "https://plugins.surfsense.com/first-party/mcp")), []string{"id"}, "route of the plugin host", ""},
	// name, description, author
	{"name missing", R, del("name"), []string{"name"}, "missing", ""},
	{"name empty", R, set("name", ""), []string{"name"}, "empty", ""},
	{"name padded", R, set("name", " Acme"), []string{"name"}, "spaces at its start", ""},
	{"name too long", R, set("name", strings.Repeat("n", MaxNameLen+1)), []string{"name"}, "the most is 50", ""},
	{"name with bidi override", R, set("name", "Acme\u202eston"), []string{"name"}, "control character U+202E", ""},
	{"name with tab", R, set("name", "Ac\tme"), []string{"name"}, "control character U+0009", ""},
	{"name not a string", R, set("name", []any{"x"}), []string{"name"}, "not an array", ""},
	{"description too long", R, set("description", strings.Repeat("d", MaxDescriptionLen+1)), []string{"description"}, "the most is 200", ""},
	{"description with newline", R, set("description", "one\ntwo"), []string{"description"}, "U+000A", ""},
	{"author missing", R, del("author"), []string{"author"}, "missing", ""},
	{"author too long", R, set("author", strings.Repeat("a", MaxAuthorLen+1)), []string{"author"}, "the most is 80", ""},
	// publisher
	{"first-party partner", F, set("publisher", "partner"), []string{"publisher"}, `says "surfsense"`, ""},
	{"registry surfsense", R, set("publisher", "surfsense"), []string{"publisher"}, "only for SurfSense's own list", ""},
	{"registry unknown publisher", R, set("publisher", "vendor"), []string{"publisher"}, `"partner" or "community"`, ""},
	{"publisher missing", R, del("publisher"), []string{"publisher"}, "missing", ""},
	// url
	{"url http", R, set("url", "http://mcp.acme-notes.com/mcp"), []string{"url"}, "https://", ""},
	{"url credentials", R, set("url", "https://user:pw@mcp.acme-notes.com/mcp"), []string{"url"}, "credentials", ""},
	{"url token user", R, set("url", "https://tok@mcp.acme-notes.com/mcp"), []string{"url"}, "credentials", ""},
	{"url no host", R, set("url", "https:///mcp"), []string{"url"}, "names no host", ""},
	{"url loopback", R, set("url", "https://127.0.0.1/mcp"), []string{"url"}, "loopback", ""},
	{"url private", R, set("url", "https://10.0.0.5/mcp"), []string{"url"}, "private", ""},
	{"url decimal loopback", R, set("url", "https://2130706433/mcp"), []string{"url"}, "loopback", ""},
	{"url IPv6 loopback", R, set("url", "https://[::1]/mcp"), []string{"url"}, "loopback", ""},
	{"url metadata", R, set("url", "https://169.254.169.254/mcp"), []string{"url"}, "link-local", ""},
	{"url localhost", R, set("url", "https://localhost/mcp"), []string{"url"}, "this computer", ""},
	{"url .internal", R, set("url", "https://mcp.acme.internal/mcp"), []string{"url"}, "local or reserved", ""},
	{"url uppercase host", R, set("url", "https://MCP.acme-notes.com/mcp"), []string{"url"}, "lower case", ""},
	{"url default port", R, set("url", "https://mcp.acme-notes.com:443/mcp"), []string{"url"}, ":443", ""},
	{"url bad port", R, set("url", "https://mcp.acme-notes.com:0/mcp"), []string{"url"}, "port", ""},
	{"url fragment", R, set("url", "https://mcp.acme-notes.com/mcp#x"), []string{"url"}, "fragment", ""},
	{"url trailing slash", R, set("url", "https://mcp.acme-notes.com/mcp/"), []string{"url"}, "trailing slash", ""},
	{"url spaces", R, set("url", "https://mcp.acme-notes.com/m cp"), []string{"url"}, "spaces", ""},
	{"url not a URL", R, set("url", "https://mcp.acme-notes.com:x/"), []string{"url"}, "not a URL", ""},
	{"url unicode host", R, set("url", "https://mcp.acmé.com/mcp"), []string{"url"}, "punycode", ""},
	{"url missing", R, del("url"), []string{"url"}, "missing", ""},
	{"registry on the plugin host", R, moveTo("plugins.surfsense.com"), []string{"url", "hosts[0]", "verification.domain"}, "SurfSense's own plugins only", ""},
	{"first-party on the plugin host, wrong path", F, set("url", "https://plugins.surfsense.com/other/mcp"), []string{"url"}, "/test-plugin/mcp", ""},
	// hosts
	{"hosts missing", R, del("hosts"), []string{"hosts"}, "missing", ""},
	{"hosts empty", R, set("hosts", []any{}), []string{"hosts"}, "empty", ""},
	{"hosts without the URL's", R, set("hosts", []any{"auth.acme-notes.com"}), []string{"hosts"}, `must name the URL's host "mcp.acme-notes.com"`, ""},
	{"hosts twice", R, set("hosts", []any{"mcp.acme-notes.com", "mcp.acme-notes.com"}), []string{"hosts[1]"}, "twice", ""},
	{"hosts private IP", R, set("hosts", []any{"mcp.acme-notes.com", "192.168.1.1"}), []string{"hosts[1]"}, "private", ""},
	{"hosts octal loopback", R, set("hosts", []any{"mcp.acme-notes.com", "0177.0.0.1"}), []string{"hosts[1]"}, "loopback", ""},
	{"hosts IPv6 loopback", R, set("hosts", []any{"mcp.acme-notes.com", "::1"}), []string{"hosts[1]"}, "loopback", ""},
	{"hosts localhost", R, set("hosts", []any{"mcp.acme-notes.com", "localhost"}), []string{"hosts[1]"}, "this computer", ""},
	{"hosts .local", R, set("hosts", []any{"mcp.acme-notes.com", "printer.local"}), []string{"hosts[1]"}, "local or reserved", ""},
	{"hosts uppercase", R, set("hosts", []any{"mcp.acme-notes.com", "Auth.acme-notes.com"}), []string{"hosts[1]"}, "lower case", ""},
	{"hosts single label", R, set("hosts", []any{"mcp.acme-notes.com", "acme"}), []string{"hosts[1]"}, "no dot", ""},
	{"hosts with port", R, set("hosts", []any{"mcp.acme-notes.com", "auth.acme-notes.com:443"}), []string{"hosts[1]"}, "not a domain name", ""},
	{"hosts URL", R, set("hosts", []any{"mcp.acme-notes.com", "https://auth.acme-notes.com"}), []string{"hosts[1]"}, "not a domain name", ""},
	{"hosts not strings", R, set("hosts", []any{"mcp.acme-notes.com", 7}), []string{"hosts[1]"}, "must be a string", ""},
	{"hosts too many", R, set("hosts", func() []any {
		out := []any{"mcp.acme-notes.com"}
		for i := 0; i < MaxHosts; i++ {
			out = append(out, "h"+string(rune('a'+i))+".acme-notes.com")
		}
		return out
	}()), []string{"hosts"}, "the most is 10", ""},
	{"hosts numeric TLD", R, set("hosts", []any{"mcp.acme-notes.com", "a.b.123"}), []string{"hosts[1]"}, "top-level domain", ""},
	// access
	{"access unknown", R, set("access", "paid"), []string{"access"}, `"free", "external" or "license"`, ""},
	{"access missing", R, del("access"), []string{"access", "access_note"}, "missing", ""},
	{"external without note", R, del("access_note"), []string{"access_note"}, "needs a note", ""},
	{"note without external", R, set("access", "free"), []string{"access_note"}, "only for access", ""},
	{"registry license access", R, all(set("access", "license"), del("access_note")), []string{"access"}, "only for SurfSense's own plugins", ""},
	{"license auth with free access", F, set("access", "free"), []string{"access"}, "license auth goes with access", ""},
	{"license access without license auth", F, setAuth("type", "none"), []string{"access"}, `goes with auth type "license"`, ""},
	{"access note too long", R, set("access_note", strings.Repeat("x", MaxAccessNoteLen+1)), []string{"access_note"}, "the most is 200", ""},
	// auth
	{"auth missing", R, del("auth"), []string{"auth"}, "missing", ""},
	{"auth a string", R, set("auth", "token"), []string{"auth"}, "must be an object", ""},
	{"auth type missing", R, delAuth("type"), []string{"auth.type", "auth.title", "auth.description"}, "missing", ""},
	{"auth type unknown", R, setAuth("type", "apikey"), []string{"auth.type", "auth.title", "auth.description"}, `must be "none", "token", "oauth" or "license"`, ""},
	{"token without title", R, delAuth("title"), []string{"auth.title"}, "missing", ""},
	{"token without description", R, delAuth("description"), []string{"auth.description"}, "missing", ""},
	{"token title too long", R, setAuth("title", strings.Repeat("t", MaxAuthTitleLen+1)), []string{"auth.title"}, "the most is 60", ""},
	{"oauth with a title", R, all(setAuth("type", "oauth"), delAuth("description")), []string{"auth.title"}, "only for token auth", ""},
	{"token with a client id", R, setAuth("client_id", "abc"), []string{"auth.client_id"}, "only for oauth", ""},
	{"none with scopes", R, all(set("auth", map[string]any{"type": "none", "scopes": []any{"read"}})), []string{"auth.scopes"}, "only for oauth", ""},
	{"oauth bad scope", R, set("auth", map[string]any{"type": "oauth", "scopes": []any{"read write"}}), []string{"auth.scopes[0]"}, "not an OAuth scope", ""},
	{"oauth scope twice", R, set("auth", map[string]any{"type": "oauth", "scopes": []any{"read", "read"}}), []string{"auth.scopes[1]"}, "twice", ""},
	{"oauth client id with space", R, set("auth", map[string]any{"type": "oauth", "client_id": "my client"}), []string{"auth.client_id"}, "without spaces", ""},
	{"registry license auth", R, set("auth", map[string]any{"type": "license"}), []string{"auth.type", "access"}, "only for SurfSense's own plugins", ""},
	{"license off the plugin host", F, moveTo("scrapers.surfsense.com"), []string{"auth.type"}, "only for plugins on https://plugins.surfsense.com", ""},
	// links
	{"homepage http", R, set("homepage", "http://acme-notes.com"), []string{"homepage"}, "https://", ""},
	{"privacy policy missing", R, del("privacy_policy"), []string{"privacy_policy"}, "missing", ""},
	{"privacy policy private", R, set("privacy_policy", "https://192.168.0.1/privacy"), []string{"privacy_policy"}, "private", ""},
	// about
	{"first-party about missing", F, del("about"), []string{"about"}, "missing", ""},
	{"first-party about too long", F, set("about", strings.Repeat("a", MaxAboutLen+1)), []string{"about"}, "the most is 600", ""},
	{"registry about too long", R, set("about", strings.Repeat("a", MaxAboutLen+1)), []string{"about"}, "the most is 600", ""},
	// tools
	{"first-party tools missing", F, del("tools"), []string{"tools"}, "missing", ""},
	{"first-party tools empty", F, set("tools", []any{}), []string{"tools"}, "list the tools", ""},
	{"registry tools empty", R, set("tools", []any{}), []string{"tools"}, "leave tools out", ""},
	{"tool name with space", R, set("tools", []any{"search notes"}), []string{"tools[0]"}, "not an MCP tool name", ""},
	{"tool name with slash", R, set("tools", []any{"a/b"}), []string{"tools[0]"}, "not an MCP tool name", ""},
	{"tool name too long", R, set("tools", []any{strings.Repeat("t", 129)}), []string{"tools[0]"}, "not an MCP tool name", ""},
	{"tool twice", F, set("tools", []any{"scrape", "scrape"}), []string{"tools[1]"}, "twice", ""},
	{"first-party lists get_result", F, set("tools", []any{"scrape", "get_result"}), []string{"tools[1]"}, "added by the plugin host", ""},
	{"too many tools", R, set("tools", func() []any {
		var out []any
		for i := 0; i <= MaxTools; i++ {
			out = append(out, "t"+strings.Repeat("x", i%50)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		return out
	}()), []string{"tools"}, "the most is 100", ""},
	// added
	{"first-party added missing", F, del("added"), []string{"added"}, "missing", ""},
	{"added month 13", F, set("added", "2026-13"), []string{"added"}, "YYYY-MM", ""},
	{"added short year", R, set("added", "26-11"), []string{"added"}, "YYYY-MM", ""},
	{"added one-digit month", R, set("added", "2026-1"), []string{"added"}, "YYYY-MM", ""},
	{"added a date", R, set("added", "2026-11-01"), []string{"added"}, "YYYY-MM", ""},
	// icon
	{"icon traversal", R, set("icon", "../plugins.json"), []string{"icon"}, "plain file name", ""},
	{"icon in a folder", R, set("icon", "sub/x.svg"), []string{"icon"}, "plain file name", ""},
	{"icon hidden", R, set("icon", ".x.svg"), []string{"icon"}, "plain file name", ""},
	{"icon backslash", R, set("icon", `..\x.svg`), []string{"icon"}, "plain file name", ""},
	{"icon gif", R, set("icon", "x.gif"), []string{"icon"}, "plain file name", ""},
	{"icon uppercase", R, set("icon", "OK.svg"), []string{"icon"}, "plain file name", ""},
	{"icon absent", F, set("icon", "missing.svg"), []string{"icon"}, "not in the icons folder", ""},
	{"icon folder", F, set("icon", "dir.svg"), []string{"icon"}, "not a regular file", ""},
	{"icon png not png", R, set("icon", "bad.png"), []string{"icon"}, "not a PNG", ""},
	{"icon webp not webp", R, set("icon", "bad.webp"), []string{"icon"}, "not a WebP", ""},
	{"icon too big", R, set("icon", "big.png"), []string{"icon"}, "the most is", ""},
	{"icon script", R, set("icon", "script.svg"), []string{"icon"}, "<script>", ""},
	{"icon event handler", R, set("icon", "onload.svg"), []string{"icon"}, "event handler", ""},
	{"icon external href", R, set("icon", "href.svg"), []string{"icon"}, "refers to", ""},
	{"icon style import", R, set("icon", "style.svg"), []string{"icon"}, "<style>", ""},
	{"icon css url", R, set("icon", "cssurl.svg"), []string{"icon"}, "loads or runs", ""},
	{"icon animation", R, set("icon", "anim.svg"), []string{"icon"}, "element", ""},
	{"icon foreign object", R, set("icon", "foreign.svg"), []string{"icon"}, "<foreignObject>", ""},
	{"icon not svg", R, set("icon", "notsvg.svg"), []string{"icon"}, "not an SVG document", ""},
	{"icon svg without namespace", R, set("icon", "nons.svg"), []string{"icon"}, "not an SVG document", ""},
	{"icon doctype", R, set("icon", "doctype.svg"), []string{"icon"}, "DOCTYPE", ""},
	{"icon malformed", R, set("icon", "broken.svg"), []string{"icon"}, "not well-formed", ""},
	{"icon not utf-8", R, set("icon", "latin1.svg"), []string{"icon"}, "UTF-8", ""},
	{"icon two roots", R, set("icon", "two-roots.svg"), []string{"icon"}, "more than one root", ""},
	// verification
	{"first-party verification", F, set("verification", map[string]any{"method": "dns", "domain": "surfsense.com", "verified_at": "2026-11-01"}), []string{"verification"}, "carry no verification", ""},
	{"partner without verification", R, del("verification"), []string{"verification"}, "missing", ""},
	{"partner with null verification", R, set("verification", nil), []string{"verification"}, "missing", ""},
	{"community with verification", R, set("publisher", "community"), []string{"verification"}, "a community entry carries no verification", ""},
	{"verification method unknown", R, setVer("method", "email"), []string{"verification.method"}, `"dns" or "well-known"`, ""},
	{"verification method missing", R, func(e map[string]any) { delete(e["verification"].(map[string]any), "method") }, []string{"verification.method"}, "missing", ""},
	{"verification domain elsewhere", R, setVer("domain", "acme.com"), []string{"verification.domain"}, "nor a parent", ""},
	{"verification domain suffix trick", R, setVer("domain", "notes.com"), []string{"verification.domain"}, "nor a parent", ""},
	{"verification domain invalid", R, setVer("domain", "localhost"), []string{"verification.domain"}, "this computer", ""},
	{"verification date invalid", R, setVer("verified_at", "2026-02-30"), []string{"verification.verified_at"}, "YYYY-MM-DD", ""},
	{"verification not an object", R, set("verification", "dns"), []string{"verification"}, "must be an object", ""},
}

func TestEveryRule(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			e := regEntry()
			if c.kind == FirstParty {
				e = fpEntry()
			}
			c.mutate(e)
			_, ps := Check(c.kind, listBytes(t, []map[string]any{e}, nil), testIcons)
			if len(ps) == 0 {
				t.Fatalf("no problem reported")
			}
			label := c.label
			if label == "" {
				label, _ = e["id"].(string)
			}
			found := false
			for _, p := range ps {
				if !slices.Contains(c.fields, p.Field) {
					t.Errorf("unexpected problem %s (want fields %v)", p, c.fields)
				}
				if p.Entry != label {
					t.Errorf("problem names entry %q, want %q: %s", p.Entry, label, p)
				}
				if strings.Contains(p.Message, c.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem says %q:\n%s", c.msg, ps)
			}
			if !slices.Contains(fieldsOf(ps), c.fields[0]) {
				t.Errorf("no problem names %s:\n%s", c.fields[0], ps)
			}
		})
	}
}

// TestValidVariants are entries at the edges of the rules that must pass.
func TestValidVariants(t *testing.T) {
	cases := []struct {
		name   string
		kind   Kind
		mutate func(map[string]any)
	}{
		{"base registry entry", R, func(map[string]any) {}},
		{"base first-party entry", F, func(map[string]any) {}},
		{"first-party may list reddit", F, all(set("id", "reddit"), set("url", "https://plugins.surfsense.com/reddit/mcp"))},
		{"first-party without icon", F, del("icon")},
		{"community, none auth, no tools, no icon", R, all(set("publisher", "community"), del("verification"), set("auth", map[string]any{"type": "none"}),
			set("access", "free"), del("access_note"), del("tools"), del("icon"), del("about"), del("added"), del("homepage"))},
		{"null tools mean none", R, set("tools", nil)},
		{"oauth with sign-in host, client id and scopes", R, all(set("auth", map[string]any{"type": "oauth", "client_id": "surfsense-desktop", "scopes": []any{"notes:read", "offline_access"}}),
			set("hosts", []any{"mcp.acme-notes.com", "auth.acme-notes.com"}))},
		{"explicit port", R, set("url", "https://mcp.acme-notes.com:8443/mcp")},
		{"url at the root", R, set("url", "https://mcp.acme-notes.com")},
		{"public IP host", R, all(set("url", "https://8.8.8.8/mcp"), set("hosts", []any{"8.8.8.8"}), setVer("domain", "8.8.8.8"))},
		{"verification of the exact host", R, setVer("domain", "mcp.acme-notes.com")},
		{"well-known verification", R, setVer("method", "well-known")},
		{"webp icon", R, set("icon", "ok.webp")},
		{"png icon", R, set("icon", "ok.png")},
		{"name of 50 with emoji", R, set("name", strings.Repeat("é", 48)+"🙂x")},
		{"about with line breaks", F, set("about", "One.\nTwo.")},
		{"dotted and dashed tool names", R, set("tools", []any{"notes.search", "get-note", "List_All"})},
		{"unknown fields ignored", R, all(set("x_future", map[string]any{"a": 1}), setAuth("x_future", true), setVer("note", "checked by mail"))},
		{"access free with token auth", R, all(set("access", "free"), del("access_note"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := regEntry()
			if c.kind == FirstParty {
				e = fpEntry()
			}
			c.mutate(e)
			list, ps := Check(c.kind, listBytes(t, []map[string]any{e}, nil), testIcons)
			if len(ps) > 0 {
				t.Fatalf("problems:\n%s", ps)
			}
			if len(list.Plugins) != 1 || list.Plugins[0].ID != e["id"] {
				t.Fatalf("list %+v", list)
			}
		})
	}
}

func TestEveryFailureAtOnce(t *testing.T) {
	bad := regEntry()
	bad["url"] = "http://mcp.acme-notes.com/mcp"
	bad["name"] = ""
	bad["tools"] = []any{"ok", "not ok"}
	delete(bad, "privacy_policy")
	bad["auth"] = map[string]any{"type": "token"}
	second := fpEntry() // a first-party entry in the registry
	_, ps := Check(ThirdParty, listBytes(t, []map[string]any{bad, second}, nil), testIcons)
	got := map[string]bool{}
	for _, p := range ps {
		got[p.String()] = true
		if strings.Count(p.String(), ": ") < 2 {
			t.Errorf("problem not formatted as entry: field: problem: %q", p)
		}
	}
	for _, want := range []string{
		`acme-notes: url: "http://mcp.acme-notes.com/mcp" must be an https:// URL`,
		"acme-notes: name: empty",
		`acme-notes: tools[1]: "not ok" is not an MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)`,
		"acme-notes: privacy_policy: missing",
		"acme-notes: auth.title: missing",
		"acme-notes: auth.description: missing",
		`test-plugin: publisher: "surfsense" is only for SurfSense's own list; the registry says "partner" or "community"`,
		"test-plugin: privacy_policy: missing",
	} {
		if !got[want] {
			t.Errorf("missing %q in:\n%s", want, ps)
		}
	}
	if ps.Err() == nil || !strings.Contains(ps.Error(), "\n") {
		t.Error("Problems.Error should list one problem a line")
	}
	if (Problems{}).Err() != nil {
		t.Error("no problems must be a nil error")
	}
}

func TestListLevelRules(t *testing.T) {
	good := string(listBytes(t, []map[string]any{regEntry()}, nil))
	cases := []struct {
		name, doc string
		kind      Kind
		field     string
		msg       string
	}{
		{"not JSON", `{"schema_version":1,`, R, "(file)", "malformed JSON"},
		{"not an object", `[1,2]`, R, "(file)", "must be an object"},
		{"null", `null`, R, "(file)", "must be an object"},
		{"trailing text", good + ` {}`, R, "(file)", "text after the object"},
		{"invalid UTF-8", strings.Replace(good, "Acme Corp", "Acme \xff Corp", 1), R, "(file)", "UTF-8"},
		{"too big", `{"x":"` + strings.Repeat("a", MaxListBytes) + `"}`, R, "(file)", "the most is"},
		{"schema missing", strings.Replace(good, `,"schema_version":1`, "", 1), R, "schema_version", "missing"},
		{"schema 2", strings.Replace(good, `"schema_version":1`, `"schema_version":2`, 1), R, "schema_version", "reads only 1"},
		{"schema as a string", strings.Replace(good, `"schema_version":1`, `"schema_version":"1"`, 1), R, "schema_version", "reads only 1"},
		{"schema 1.0", strings.Replace(good, `"schema_version":1`, `"schema_version":1.0`, 1), R, "schema_version", "reads only 1"},
		{"generated_at missing", strings.Replace(good, `"generated_at":"2026-11-27T09:30:00Z",`, "", 1), R, "generated_at", "missing"},
		{"generated_at not RFC 3339", strings.Replace(good, `2026-11-27T09:30:00Z`, `2026-11-27 09:30`, 1), R, "generated_at", "RFC 3339"},
		{"generated_at a number", strings.Replace(good, `"2026-11-27T09:30:00Z"`, `1764236000`, 1), R, "generated_at", "must be a string"},
		{"plugins missing", `{"schema_version":1,"generated_at":"2026-11-27T09:30:00Z"}`, R, "plugins", "missing"},
		{"plugins an object", `{"schema_version":1,"generated_at":"2026-11-27T09:30:00Z","plugins":{}}`, R, "plugins", "must be an array"},
		{"duplicate top-level key", strings.Replace(good, `"schema_version":1`, `"schema_version":1,"schema_version":1`, 1), R, "schema_version", "appears twice"},
		{"removed in first-party", `{"schema_version":1,"plugins":[],"removed":[{"id":"old","reason":"Gone."}]}`, F, "removed", "no removed entries"},
		{"removed not an array", `{"schema_version":1,"generated_at":"2026-11-27T09:30:00Z","plugins":[],"removed":"x"}`, R, "removed", "must be an array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ps := Check(c.kind, []byte(c.doc), testIcons)
			for _, p := range ps {
				if p.Entry == ListLabel && p.Field == c.field && strings.Contains(p.Message, c.msg) {
					return
				}
			}
			t.Errorf("want %s: %s: …%s…, got:\n%s", ListLabel, c.field, c.msg, ps)
		})
	}
	t.Run("first-party needs no generated_at", func(t *testing.T) {
		doc := `{"schema_version":1,"plugins":[]}`
		if _, ps := Check(FirstParty, []byte(doc), nil); len(ps) > 0 {
			t.Errorf("%s", ps)
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		if _, ps := Check(Kind(9), []byte(good), nil); len(ps) == 0 {
			t.Error("unknown kind accepted")
		}
	})
}

func TestDuplicateKeysInsideEntries(t *testing.T) {
	b := listBytes(t, []map[string]any{regEntry()}, nil)
	s := strings.Replace(string(b), `"url":"https://mcp.acme-notes.com/mcp"`, `"url":"https://mcp.acme-notes.com/mcp","url":"https://evil.example.org/mcp"`, 1)
	s = strings.Replace(s, `"type":"token"`, `"type":"token","type":"none"`, 1)
	_, ps := Check(ThirdParty, []byte(s), testIcons)
	want := map[string]bool{"url": false, "auth.type": false}
	for _, p := range ps {
		if strings.Contains(p.Message, "appears twice") {
			want[p.Field] = true
		}
	}
	for f, ok := range want {
		if !ok {
			t.Errorf("duplicate %s not reported:\n%s", f, ps)
		}
	}
}

func TestKeysMatchExactly(t *testing.T) {
	// encoding/json would read "URL" as "url"; the schema does not.
	e := regEntry()
	e["URL"] = e["url"]
	delete(e, "url")
	_, ps := Check(ThirdParty, listBytes(t, []map[string]any{e}, nil), testIcons)
	if !slices.Contains(fieldsOf(ps), "url") {
		t.Errorf("an entry spelling URL in capitals passed:\n%s", ps)
	}
}

func TestRemovedAndUniqueness(t *testing.T) {
	a, b := regEntry(), regEntry()
	b["name"] = "Other Notes"
	b["icon"] = "ok.png"
	cases := []struct {
		name    string
		entries []map[string]any
		removed []map[string]any
		want    string
	}{
		{"id twice", []map[string]any{a, b}, nil, `acme-notes: id: "acme-notes" is used by another entry`},
		{"name twice, case aside", []map[string]any{a, func() map[string]any {
			c := regEntry()
			c["id"], c["name"] = "acme-two", "ACME  notes"
			return c
		}()}, nil, `acme-two: name: "ACME  notes" is also acme-notes's name`},
		{"removed and listed", []map[string]any{a}, []map[string]any{{"id": "acme-notes", "reason": "Gone."}}, "acme-notes: id: \"acme-notes\" is in removed and listed again"},
		{"removed twice", nil, []map[string]any{{"id": "old", "reason": "Gone."}, {"id": "old", "reason": "Again."}}, `old: id: "old" is removed twice`},
		{"removed bad id", nil, []map[string]any{{"id": "Old!", "reason": "Gone."}}, `removed[0]: id: "Old!" must match`},
		{"removed no reason", nil, []map[string]any{{"id": "old"}}, "old: reason: missing"},
		{"removed long reason", nil, []map[string]any{{"id": "old", "reason": strings.Repeat("r", MaxReasonLen+1)}}, "old: reason: is 301 characters"},
		{"removed not an object", nil, []map[string]any{nil}, "removed[0]: (entry): must be an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := c.entries
			if entries == nil {
				entries = []map[string]any{}
			}
			_, ps := Check(ThirdParty, listBytes(t, entries, c.removed), testIcons)
			for _, p := range ps {
				if strings.HasPrefix(p.String(), c.want) {
					return
				}
			}
			t.Errorf("want %q, got:\n%s", c.want, ps)
		})
	}
	t.Run("entry not an object", func(t *testing.T) {
		_, ps := Check(ThirdParty, []byte(`{"schema_version":1,"generated_at":"2026-11-27T09:30:00Z","plugins":["x"]}`), nil)
		if len(ps) != 1 || ps[0].String() != "plugins[0]: (entry): must be an object, not a string" {
			t.Errorf("%s", ps)
		}
	})
}

func TestCheckAcross(t *testing.T) {
	fp, _ := Check(FirstParty, listBytes(t, []map[string]any{fpEntry()}, nil), testIcons)
	clash := regEntry()
	clash["id"] = "test-plugin"
	sameName := regEntry()
	sameName["id"], sameName["name"] = "test-clone", "test plugin"
	reg, ps := Check(ThirdParty, listBytes(t, []map[string]any{clash, sameName}, []map[string]any{{"id": "test-plugin", "reason": "x"}}), testIcons)
	// The registry alone breaks one rule (removed and listed); across adds more.
	_ = ps
	across := CheckAcross(fp, reg)
	for _, want := range []string{
		`test-plugin: id: "test-plugin" is SurfSense's own plugin's id`,
		`test-clone: name: "test plugin" is SurfSense's own plugin "test-plugin"'s name`,
		`test-plugin: id: "test-plugin" is SurfSense's own plugin's id and cannot be a removed registry id`,
	} {
		if !strings.Contains(across.Error(), want) {
			t.Errorf("missing %q in:\n%s", want, across)
		}
	}
	if CheckAcross(nil, reg) != nil {
		t.Error("nil list")
	}
}

func TestCheckHistory(t *testing.T) {
	parse := func(entries []map[string]any, removed []map[string]any, at string) *List {
		b := listBytes(t, entries, removed)
		b = []byte(strings.Replace(string(b), "2026-11-27T09:30:00Z", at, 1))
		l, ps := Check(ThirdParty, b, nil)
		if len(ps) > 0 {
			t.Fatalf("%s", ps)
		}
		return l
	}
	a := regEntry()
	b := regEntry()
	b["id"], b["name"] = "bee-notes", "Bee Notes"
	prev := parse([]map[string]any{a, b}, []map[string]any{{"id": "old", "reason": "Gone."}}, "2026-11-01T00:00:00Z")

	t.Run("unchanged", func(t *testing.T) {
		if ps := CheckHistory(prev, prev); len(ps) > 0 {
			t.Errorf("%s", ps)
		}
	})
	t.Run("entry moved to removed, later", func(t *testing.T) {
		next := parse([]map[string]any{a}, []map[string]any{{"id": "old", "reason": "Gone."}, {"id": "bee-notes", "reason": "Closed."}}, "2026-11-02T00:00:00Z")
		if ps := CheckHistory(prev, next); len(ps) > 0 {
			t.Errorf("%s", ps)
		}
	})
	cases := []struct {
		name string
		next *List
		want string
	}{
		{"entry deleted", parse([]map[string]any{a}, []map[string]any{{"id": "old", "reason": "Gone."}}, "2026-11-02T00:00:00Z"), "bee-notes: id: was listed and is gone"},
		{"removed id dropped", parse([]map[string]any{a, b}, nil, "2026-11-02T00:00:00Z"), "old: id: was in removed and is gone"},
		{"removed id listed again", parse([]map[string]any{a, b, func() map[string]any {
			c := regEntry()
			c["id"], c["name"] = "old", "Old Notes"
			return c
		}()}, nil, "2026-11-02T00:00:00Z"), "old: id: was removed and is listed again"},
		{"changed, same time", parse([]map[string]any{a, func() map[string]any {
			c := regEntry()
			c["id"], c["name"] = "bee-notes", "Bee Notes 2"
			return c
		}()}, []map[string]any{{"id": "old", "reason": "Gone."}}, "2026-11-01T00:00:00Z"), "(list): generated_at: the list changed"},
		{"older", parse([]map[string]any{a, b}, []map[string]any{{"id": "old", "reason": "Gone."}}, "2026-10-01T00:00:00Z"), "(list): generated_at: 2026-10-01T00:00:00Z is older"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := CheckHistory(prev, c.next)
			if !strings.Contains(ps.Error(), c.want) {
				t.Errorf("want %q, got:\n%s", c.want, ps)
			}
		})
	}
}

func TestToolsMatch(t *testing.T) {
	missing, extra := ToolsMatch([]string{"scrape", "reviews"}, []string{"reviews", "scrape", ResultTool})
	if len(missing) != 0 || len(extra) != 0 {
		t.Errorf("get_result must be left out: %v %v", missing, extra)
	}
	missing, extra = ToolsMatch([]string{"scrape", "comments"}, []string{"scrape", "details", ResultTool})
	if !slices.Equal(missing, []string{"comments"}) || !slices.Equal(extra, []string{"details"}) {
		t.Errorf("missing %v extra %v", missing, extra)
	}
}

func TestEntryHelpers(t *testing.T) {
	list, ps := Check(ThirdParty, registryJSON, nil)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	e := list.Lookup("orbit-docs")
	if e == nil || e.ServerHost() != "mcp.orbitdocs.io" || !slices.Equal(e.SignInHosts(), []string{"auth.orbitdocs.io"}) || !e.Verified() {
		t.Fatalf("orbit-docs %+v", e)
	}
	if c := list.Lookup("arxiv-lookup"); c == nil || c.Verified() || c.SignInHosts() != nil {
		t.Errorf("arxiv-lookup %+v", c)
	}
	if r, ok := list.RemovedReason("pdf-wizard"); !ok || r == "" {
		t.Error("pdf-wizard not removed")
	}
	if list.Lookup("nope") != nil || (*List)(nil).Lookup("x") != nil {
		t.Error("lookup of an absent id")
	}
	if _, ok := (*List)(nil).RemovedReason("x"); ok {
		t.Error("nil list removed")
	}
	if got := list.IDs(); !slices.Equal(got, []string{"ledgerly", "orbit-docs", "arxiv-lookup", "recipe-box"}) {
		t.Errorf("ids %v", got)
	}
	if list.GeneratedAt != time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC) {
		t.Errorf("generated_at %v", list.GeneratedAt)
	}
	// FirstPartyList returns a copy callers cannot use to change the cache.
	a, err := FirstPartyList()
	if err != nil {
		t.Fatal(err)
	}
	a.Plugins[0].Tools[0] = "changed"
	b, _ := FirstPartyList()
	if b.Plugins[0].Tools[0] == "changed" {
		t.Error("FirstPartyList shares its slices")
	}
	if IconContentType("x.svg") != "image/svg+xml" || IconContentType("x.png") != "image/png" || IconContentType("x.webp") != "image/webp" || IconContentType("../x.svg") != "" {
		t.Error("IconContentType")
	}
	var _ fs.FS = FirstPartyIcons()
}
