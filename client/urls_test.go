package client

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCanonicalURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://Example.COM/mcp", "https://example.com/mcp"},
		{"HTTPS://example.com:443/mcp/", "https://example.com/mcp"},
		{"http://localhost:80/", "http://localhost"},
		{"http://127.0.0.1:8000/amazon/mcp", "http://127.0.0.1:8000/amazon/mcp"},
		{"https://example.com/mcp#frag", "https://example.com/mcp"},
		{"https://example.com/mcp?x=1", "https://example.com/mcp?x=1"},
		{"https://example.com/mcp/?x=1#y", "https://example.com/mcp?x=1"},
		{"  https://example.com/a//  ", "https://example.com/a"},
		{"https://example.com:8443/mcp", "https://example.com:8443/mcp"},
		{"https://[::1]:443/mcp", "https://[::1]/mcp"},
		{"https://[::1]:9000/mcp", "https://[::1]:9000/mcp"},
		{"https://example.com/a%2Fb/", "https://example.com/a%2Fb"},
		{"https://example.com/?", "https://example.com"},
	}
	for _, tc := range cases {
		got, err := CanonicalURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CanonicalURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// One spelling: canonical of canonical is itself.
		if again, _ := CanonicalURL(got); again != got {
			t.Errorf("CanonicalURL(%q) = %q, not stable", got, again)
		}
	}
	for _, bad := range []string{"", "example.com/mcp", "ftp://example.com", "https://", "https://u:p@example.com/", "https://user@example.com/", "mailto:a@b.c", "https://example.com:99999/", "https://example.com:x/", "javascript:alert(1)"} {
		if got, err := CanonicalURL(bad); err == nil {
			t.Errorf("CanonicalURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestPluginID(t *testing.T) {
	reserved := func(id string) bool { return id == "amazon" || id == "amazon-plugin" || id == "notes" }
	cases := []struct{ name, want string }{
		{"My Notes", "my-notes"},
		{"  My   Notes!! ", "my-notes"},
		{"Amazon", "amazon-plugin-plugin"},
		{"AMAZON plugin", "amazon-plugin-plugin"},
		{"SurfSense", "surfsense-plugin"},
		{"surfsense", "surfsense-plugin"},
		{"SurfSense Notes", "surfsense-notes"},
		{"Notes", "notes-plugin"},
		{"Café Search", "caf-search"},
		{"a_b.c", "a-b-c"},
		{"GitHub 2", "github-2"},
		{strings.Repeat("word ", 40), strings.TrimRight(strings.Repeat("word-", 11), "-")},
		{strings.Repeat("x", 100), strings.Repeat("x", 56)},
	}
	for _, tc := range cases {
		got, err := PluginID(tc.name, reserved)
		if err != nil || got != tc.want {
			t.Errorf("PluginID(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "!!!", "日本語", "   "} {
		if _, err := PluginID(bad, nil); !IsCode(err, CodeBadName) {
			t.Errorf("PluginID(%q): %v, want %s", bad, err, CodeBadName)
		}
	}
	if _, err := PluginID("x", func(string) bool { return true }); !IsCode(err, CodeNameTaken) {
		t.Errorf("every id reserved: %v", err)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8000": true, "127.0.0.1": true, "127.8.9.1:5": true, "[::1]:80": true, "::1": true,
		"app.localhost": true, "localhost.": true,
		"example.com": false, "10.0.0.1": false, "0.0.0.0": false, "localhost.example.com": false, "::ffff:127.0.0.1": true,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestPluginHost(t *testing.T) {
	prod := PluginHost{}
	local := MustPluginHost("http://127.0.0.1:8000/")
	prefixed := MustPluginHost("http://LOCALHOST:80/host")
	cases := []struct {
		h       PluginHost
		in      string
		rewrite string
		reaches bool
	}{
		{prod, "https://plugins.surfsense.com/amazon/mcp", "https://plugins.surfsense.com/amazon/mcp", true},
		{prod, "https://PLUGINS.surfsense.com:443/amazon/mcp", "https://PLUGINS.surfsense.com:443/amazon/mcp", true},
		{prod, "http://plugins.surfsense.com/amazon/mcp", "http://plugins.surfsense.com/amazon/mcp", false},
		{prod, "https://plugins.surfsense.com.evil.dev/amazon/mcp", "https://plugins.surfsense.com.evil.dev/amazon/mcp", false},
		{prod, "https://user@plugins.surfsense.com/amazon/mcp", "https://user@plugins.surfsense.com/amazon/mcp", false},
		{local, "https://plugins.surfsense.com/amazon/mcp", "http://127.0.0.1:8000/amazon/mcp", false},
		{local, "https://plugins.surfsense.com/amazon/mcp?x=1", "http://127.0.0.1:8000/amazon/mcp?x=1", false},
		{local, "http://127.0.0.1:8000/amazon/mcp", "http://127.0.0.1:8000/amazon/mcp", true},
		{local, "http://127.0.0.1:8001/amazon/mcp", "http://127.0.0.1:8001/amazon/mcp", false},
		{local, "https://mcp.other.dev/mcp", "https://mcp.other.dev/mcp", false},
		{prefixed, "https://plugins.surfsense.com/amazon/mcp", "http://localhost/host/amazon/mcp", false},
		{prefixed, "http://localhost/host/amazon/mcp", "http://localhost/host/amazon/mcp", true},
		{prefixed, "http://localhost/hostile/mcp", "http://localhost/hostile/mcp", false},
	}
	for _, tc := range cases {
		if got := tc.h.Rewrite(tc.in); got != tc.rewrite {
			t.Errorf("%v.Rewrite(%q) = %q, want %q", tc.h, tc.in, got, tc.rewrite)
		}
		if got := tc.h.Reaches(tc.in); got != tc.reaches {
			t.Errorf("%v.Reaches(%q) = %v, want %v", tc.h, tc.in, got, tc.reaches)
		}
		// Whatever a listed URL is moved to, the key goes with it.
		if strings.Contains(tc.in, "plugins.surfsense.com/") && strings.HasPrefix(tc.in, "https://plugins") && !tc.h.Reaches(tc.h.Rewrite(tc.in)) {
			t.Errorf("%v: the rewritten %q is not on the plugin host", tc.h, tc.in)
		}
	}
	if local.RewriteHost("plugins.surfsense.com") != "127.0.0.1" || prod.RewriteHost("plugins.surfsense.com") != "plugins.surfsense.com" || local.RewriteHost("x.dev") != "x.dev" {
		t.Errorf("RewriteHost")
	}
	if local.Endpoint("license") != "http://127.0.0.1:8000/license" || prod.Endpoint("/license") != "https://plugins.surfsense.com/license" || prefixed.Endpoint("/license") != "http://localhost/host/license" {
		t.Errorf("Endpoint: %q %q %q", local.Endpoint("license"), prod.Endpoint("/license"), prefixed.Endpoint("/license"))
	}
	for _, bad := range []string{"127.0.0.1:8000", "ftp://x", "http://u:p@x", "http://x/?q", "http://x/#f", "http://"} {
		if _, err := NewPluginHost(bad); err == nil {
			t.Errorf("NewPluginHost(%q) accepted", bad)
		}
	}
	t.Setenv(LocalHostEnv, "http://127.0.0.1:9999")
	if h, err := PluginHostFromEnv(); err != nil || h.URL() != "http://127.0.0.1:9999" || !h.IsLocal() {
		t.Errorf("from env: %v %v", h, err)
	}
}

func TestHostHeaders(t *testing.T) {
	local := MustPluginHost("http://127.0.0.1:8000")
	on, off := "http://127.0.0.1:8000/amazon/mcp", "https://mcp.other.dev/mcp"
	cases := []struct {
		url      string
		kind     CredentialKind
		secret   string
		turn     bool
		auth     string
		textOnly string
	}{
		{on, CredentialLicense, "K", false, "License K", ""},
		{on, CredentialLicense, "K", true, "License K", "1"},
		{off, CredentialLicense, "K", true, "", ""},
		{"https://plugins.surfsense.com/amazon/mcp", CredentialLicense, "K", true, "", ""},
		{on, CredentialLicense, "", true, "", "1"},
		{off, CredentialToken, "T", true, "Bearer T", ""},
		{on, CredentialToken, "T", false, "Bearer T", ""},
		{off, CredentialOAuth, "A", false, "Bearer A", ""},
		{off, CredentialNone, "x", true, "", ""},
	}
	for _, tc := range cases {
		h := local.Headers(tc.url, tc.kind, tc.secret, tc.turn)
		if h.Get("Authorization") != tc.auth || h.Get("x-surfsense-text-only") != tc.textOnly {
			t.Errorf("%s %s turn=%v: %v", tc.url, tc.kind, tc.turn, h)
		}
	}
	c := &Client{Host: local, License: StaticLicense{Key: "K"}}
	p := InstalledPlugin{URL: off, CredentialKind: CredentialOAuth, Credential: `{"access_token":"AT","refresh_token":"RT"}`}
	if got := c.Headers(p, false).Get("Authorization"); got != "Bearer AT" {
		t.Errorf("OAuth header = %q", got)
	}
	p.DisconnectedAt = mustTime("2026-12-01T00:00:00Z")
	if got := c.Headers(p, false); len(got) != 0 {
		t.Errorf("a disconnected plugin's headers = %v", got)
	}
}

func TestStaticLicenseHidesItsKey(t *testing.T) {
	l := StaticLicense{Key: "very-secret-key"}
	for _, s := range []string{l.String(), l.GoString()} {
		if strings.Contains(s, "very-secret-key") {
			t.Errorf("%q shows the key", s)
		}
	}
}

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{"https://Example.com:443/mcp/", "http://[::1]:80/", "https://a.dev/x?y#z", "HTTP://A/%2F/", "https://x:0/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CanonicalURL(s)
		if err != nil {
			return
		}
		again, err := CanonicalURL(got)
		if err != nil || again != got {
			t.Fatalf("CanonicalURL(%q) = %q, whose canonical form is %q (%v)", s, got, again, err)
		}
		if strings.Contains(got, "#") || strings.HasSuffix(got, "/") || strings.Contains(got, "@") && strings.Index(got, "@") < strings.Index(got[8:], "/")+8 {
			t.Fatalf("CanonicalURL(%q) = %q keeps a fragment, trailing slash or user", s, got)
		}
	})
}

func FuzzPluginID(f *testing.F) {
	for _, s := range []string{"My Notes", "Amazon", "SurfSense", "!!!", "a--b", strings.Repeat("x", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		id, err := PluginID(name, func(id string) bool { return id == "amazon" })
		if err != nil {
			return
		}
		if id == "" || id == "surfsense" || id == "amazon" || len(id) > 64 || strings.Contains(id, "__") ||
			strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") || strings.Contains(id, "--") {
			t.Fatalf("PluginID(%q) = %q", name, id)
		}
		for _, r := range id {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Fatalf("PluginID(%q) = %q holds %q", name, id, r)
			}
		}
	})
}

func FuzzRefusalBody(f *testing.F) {
	for _, s := range []string{`{"reason":"expired"}`, `{"reason":1,"message":[]}`, `{"reason":"a\u0000b","message":"x\ny"}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reason, msg := refusalBody(body)
		for _, s := range []string{reason, msg} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\r\n\x7f") {
				t.Fatalf("refusalBody(%q) = %q, %q", body, reason, msg)
			}
		}
		if utf8.RuneCountInString(reason) > 100 || utf8.RuneCountInString(msg) > 300 {
			t.Fatalf("too long: %q %q", reason, msg)
		}
	})
}

func FuzzResourceMetadataParam(f *testing.F) {
	for _, s := range []string{`Bearer resource_metadata="https://a.dev/prm"`, `Bearer realm="x", error="invalid_token", resource_metadata="https://a.dev/prm"`, `Basic realm="x", Bearer resource_metadata=https://b.dev`, `"`, `Bearer =`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		v := resourceMetadataParam([]string{h})
		if v != strings.TrimSpace(v) {
			t.Fatalf("untrimmed %q", v)
		}
	})
}

func TestResourceMetadataParam(t *testing.T) {
	cases := map[string]string{
		`Bearer resource_metadata="https://a.dev/prm"`:                                     "https://a.dev/prm",
		`Bearer realm="x", error="invalid_token", resource_metadata="https://a.dev/p?q=1"`: "https://a.dev/p?q=1",
		`Basic realm="x", Bearer resource_metadata="https://b.dev/prm"`:                    "https://b.dev/prm",
		`Bearer realm="x"`:   "",
		`License realm="sf"`: "",
	}
	for h, want := range cases {
		if got := resourceMetadataParam([]string{h}); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if got := resourceMetadataParam(http.Header{}.Values("WWW-Authenticate")); got != "" {
		t.Errorf("no header: %q", got)
	}
}
