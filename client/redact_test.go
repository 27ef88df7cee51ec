package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNoSecretInAnyFormat prints every type that holds a key, a token or a
// store of them, in every way a program or a log would, and finds none.
func TestNoSecretInAnyFormat(t *testing.T) {
	ctx := context.Background()
	const (
		pasted   = "SECRET-PASTED-KEY-1"
		access   = "SECRET-ACCESS-TOKEN-2"
		refresh  = "SECRET-REFRESH-TOKEN-3"
		client   = "SECRET-CLIENT-SECRET-4"
		license  = "SECRET-LICENSE-KEY-5"
		typedKey = "SECRET-TYPED-KEY-6"
	)
	secrets := []string{pasted, access, refresh, client, license, typedKey}
	cred := OAuthCredential{AccessToken: access, RefreshToken: refresh, ClientSecret: client, ClientID: "app",
		Expiry: time.Now(), TokenEndpoint: "https://auth.example/token", Registration: RegistrationDynamic}
	tokenRow := InstalledPlugin{ID: "notes", Name: "Notes", URL: "https://notes.example/mcp", CredentialKind: CredentialToken, Credential: pasted}
	oauthRow := InstalledPlugin{ID: "cal", Name: "Cal", URL: "https://cal.example/mcp", CredentialKind: CredentialOAuth, Credential: cred.Encode()}

	mem := &MemoryStore{}
	mem.PutPlugin(ctx, tokenRow)
	mem.PutPlugin(ctx, oauthRow)
	key, _ := NewKey()
	fs, err := OpenFileStore(filepath.Join(t.TempDir(), "plugins.json"), key)
	if err != nil {
		t.Fatal(err)
	}
	fs.PutPlugin(ctx, tokenRow)
	fs.PutPlugin(ctx, oauthRow)
	c := &Client{Store: mem, License: StaticLicense{Key: license}}
	// At rest, a FileStore holds them encrypted.
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(fs.path), "plugins.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{pasted, access, refresh, client} {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("the store's file holds a secret in clear")
		}
	}

	values := map[string]any{
		"InstalledPlugin (token)": tokenRow,
		"InstalledPlugin (oauth)": oauthRow,
		"*InstalledPlugin":        &oauthRow,
		"[]InstalledPlugin":       []InstalledPlugin{tokenRow, oauthRow},
		"map of rows":             map[string]InstalledPlugin{"a": tokenRow},
		"OAuthCredential":         cred,
		"*OAuthCredential":        &cred,
		"CustomPlugin":            CustomPlugin{URL: "https://x.example/mcp", Name: "X", Token: typedKey},
		"StaticLicense":           StaticLicense{Key: license},
		"*MemoryStore":            mem,
		"*FileStore":              fs,
		"*Client":                 c,
		"struct holding them": struct {
			P InstalledPlugin
			L License
			S Store
		}{oauthRow, StaticLicense{Key: license}, mem},
		"Error wrapping a refusal": &Error{Status: 422, Code: CodeNeedsSignIn, Name: "Notes", Err: &RefusalError{URL: tokenRow.URL, StatusCode: 401}},
	}
	for name, v := range values {
		var out []string
		for _, f := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q", "%10.3v"} {
			out = append(out, fmt.Sprintf(f, v))
		}
		if b, err := json.Marshal(v); err == nil {
			out = append(out, string(b))
		}
		var text, js bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).Info("row", "v", v)
		slog.New(slog.NewJSONHandler(&js, nil)).Info("row", "v", v)
		out = append(out, text.String(), js.String())
		all := strings.Join(out, "\n")
		for _, s := range secrets {
			if strings.Contains(all, s) || strings.Contains(all, fmt.Sprintf("%x", s)) {
				t.Errorf("%s shows a secret (%s):\n%s", name, s[:len(s)-2], all)
			}
		}
	}
	// What is hidden still says it is there.
	if s := fmt.Sprintf("%+v", tokenRow); !strings.Contains(s, hiddenSecret) || !strings.Contains(s, "notes.example") {
		t.Errorf("%%+v of a row = %s", s)
	}
	if s := fmt.Sprint(cred); !strings.Contains(s, "signed in") || !strings.Contains(s, "can refresh") {
		t.Errorf("a credential prints %q", s)
	}
	// The stored form still holds them, for the store to encrypt.
	back, err := ParseOAuthCredential(cred.Encode())
	if err != nil || back.AccessToken != access || back.RefreshToken != refresh || back.ClientSecret != client {
		t.Errorf("the stored form lost a secret: %v", err)
	}
}

// TestReservedIDsWithoutTheList: a client built without the first-party
// list still keeps SurfSense's ids from custom plugins.
func TestReservedIDsWithoutTheList(t *testing.T) {
	c := &Client{Store: &MemoryStore{}}
	for name, want := range map[string]string{"Amazon": "amazon-plugin", "Google Search": "google-search-plugin", "My Notes": "my-notes"} {
		id, err := PluginID(name, c.reservedID)
		if err != nil || id != want {
			t.Errorf("PluginID(%q) = %q, %v; want %q", name, id, err, want)
		}
	}
}
