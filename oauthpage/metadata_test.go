package oauthpage

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestClientMetadataDocument(t *testing.T) {
	p, err := New(Config{PublicURL: "HTTPS://Plugins.SurfSense.com:443/", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	p.Mount(r)
	resp := get(r, ClientMetadataPath, "")
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	checkSecurityHeaders(t, resp, "public, max-age=3600")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}

	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	want := map[string]any{
		"client_id":                  "https://plugins.surfsense.com/oauth/client.json",
		"client_name":                "SurfSense",
		"client_uri":                 "https://plugins.surfsense.com/",
		"logo_uri":                   "https://plugins.surfsense.com/oauth/logo.svg",
		"redirect_uris":              []any{"https://plugins.surfsense.com/oauth/callback"},
		"grant_types":                []any{"authorization_code", "refresh_token"},
		"response_types":             []any{"code"},
		"token_endpoint_auth_method": "none",
	}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("document\n got %v\nwant %v", doc, want)
	}
	// The draft caps a document's size (5 KB recommended) and forbids secrets.
	if len(body) > 5000 {
		t.Errorf("document is %d bytes", len(body))
	}
	for _, k := range []string{"client_secret", "client_secret_expires_at", "jwks", "jwks_uri"} {
		if _, ok := doc[k]; ok {
			t.Errorf("document has %q", k)
		}
	}
	if got := p.ClientMetadata(); got.ClientID != want["client_id"] || got.RedirectURIs[0] != "https://plugins.surfsense.com/oauth/callback" {
		t.Errorf("ClientMetadata() = %+v", got)
	}
	// ClientMetadata returns a copy.
	p.ClientMetadata().RedirectURIs[0] = "https://evil.example/"
	if p.ClientMetadata().RedirectURIs[0] != "https://plugins.surfsense.com/oauth/callback" {
		t.Error("ClientMetadata() shares its slices")
	}

	// Conditional and HEAD requests.
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	resp = do(r, http.MethodGet, ClientMetadataPath, "", http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", resp.StatusCode)
	}
	resp = do(r, http.MethodHead, ClientMetadataPath, "", nil)
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK || b != "" {
		t.Errorf("HEAD: status %d, body %q", resp.StatusCode, b)
	}
	checkSecurityHeaders(t, resp, "public, max-age=3600")

	for _, path := range []string{ClientMetadataPath, LogoPath} {
		resp = do(r, http.MethodPost, path, "", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: status %d, Allow %q", path, resp.StatusCode, resp.Header.Get("Allow"))
		}
		checkSecurityHeaders(t, resp, "no-store")
	}
}

func TestClientURI(t *testing.T) {
	p, err := New(Config{PublicURL: "https://plugins.example", ClientURI: "https://www.surfsense.example/plugins", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ClientMetadata().ClientURI; got != "https://www.surfsense.example/plugins" {
		t.Errorf("client_uri %q", got)
	}
	for _, bad := range []string{"www.surfsense.example", "javascript:alert(1)", "/about", "ftp://x.example"} {
		if _, err := New(Config{PublicURL: "https://plugins.example", ClientURI: bad}); err == nil {
			t.Errorf("ClientURI %q accepted", bad)
		}
	}
}

func TestPublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://plugins.surfsense.com":       "https://plugins.surfsense.com",
		"https://plugins.surfsense.com/":      "https://plugins.surfsense.com",
		"HTTPS://PLUGINS.SurfSense.COM":       "https://plugins.surfsense.com",
		"https://plugins.surfsense.com:443":   "https://plugins.surfsense.com",
		"https://plugins.surfsense.com:8443/": "https://plugins.surfsense.com:8443",
		"http://127.0.0.1:8000":               "http://127.0.0.1:8000",
		"http://localhost:80/":                "http://localhost",
		"http://[::1]:8000":                   "http://[::1]:8000",
		"https://[2001:DB8::1]":               "https://[2001:db8::1]",
	} {
		p, err := New(Config{PublicURL: in, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Errorf("New(%q): %v", in, err)
			continue
		}
		if got := p.ClientMetadata().ClientID; got != want+"/oauth/client.json" {
			t.Errorf("PublicURL %q: client_id %q, want %q", in, got, want+"/oauth/client.json")
		}
	}
	for _, in := range []string{
		"",
		"plugins.surfsense.com",
		"//plugins.surfsense.com",
		"ftp://plugins.surfsense.com",
		"https://",
		"https:plugins.surfsense.com",
		"https://user:pass@plugins.surfsense.com",
		"https://plugins.surfsense.com/host",
		"https://plugins.surfsense.com/?x=1",
		"https://plugins.surfsense.com/?",
		"https://plugins.surfsense.com/#top",
		"https://plugins.surfsense.com#",
		"https://plugins.surfsense.com:port",
		"https://plugins.surfsense.com\n",
	} {
		_, err := New(Config{PublicURL: in})
		if err == nil {
			t.Errorf("New(%q) succeeded", in)
			continue
		}
		if !strings.Contains(err.Error(), "PUBLIC_URL") {
			t.Errorf("New(%q): error %q does not name PUBLIC_URL", in, err)
		}
	}
}

func TestHTTPPublicURLWarnsOnce(t *testing.T) {
	for _, tc := range []struct {
		url   string
		warns int
	}{{"http://127.0.0.1:8000", 1}, {"https://plugins.surfsense.com", 0}} {
		var logs syncBuffer
		p, err := New(Config{PublicURL: tc.url, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		p.Mount(r)
		for range 3 {
			get(r, ClientMetadataPath, "")
		}
		if got := strings.Count(logs.String(), "level=WARN"); got != tc.warns {
			t.Errorf("%s: %d warnings, want %d:\n%s", tc.url, got, tc.warns, logs.String())
		}
		if tc.warns > 0 && !strings.Contains(logs.String(), "will not accept") {
			t.Errorf("the warning does not say servers will not accept it:\n%s", logs.String())
		}
	}
}

func TestLogo(t *testing.T) {
	p, r, _ := newTestPages(t, nil)
	if p.ClientMetadata().LogoURI != "https://plugins.example/oauth/logo.svg" {
		t.Errorf("logo_uri %q", p.ClientMetadata().LogoURI)
	}
	resp := get(r, LogoPath, "")
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	checkSecurityHeaders(t, resp, "public, max-age=86400")
	if ct := resp.Header.Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("Content-Type %q", ct)
	}
	// Well-formed XML whose root is svg, drawing something, running nothing.
	dec := xml.NewDecoder(strings.NewReader(body))
	var root string
	shapes := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("logo is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			switch se.Name.Local {
			case "rect", "path", "circle":
				shapes++
			case "script", "style", "foreignObject", "a", "image", "use":
				t.Errorf("logo has a <%s>", se.Name.Local)
			}
			for _, a := range se.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || a.Name.Local == "href" || a.Name.Local == "style" {
					t.Errorf("logo has attribute %s", a.Name.Local)
				}
			}
		}
	}
	if root != "svg" || shapes == 0 {
		t.Errorf("logo root %q with %d shapes", root, shapes)
	}
}
