package client

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/oauth2"
)

// Registration is how a sign-in's client was registered with the
// authorization server.
type Registration string

const (
	// RegistrationMetadataDocument is SurfSense's public client, its
	// client_id the URL of the client ID metadata document the plugin host
	// serves (PUBLIC_URL/oauth/client.json).
	RegistrationMetadataDocument Registration = "metadata_document"
	// RegistrationPreregistered is a registry entry's auth.client_id, a
	// client registered in advance.
	RegistrationPreregistered Registration = "preregistered"
	// RegistrationDynamic is a client registered by the sign-in (RFC 7591).
	RegistrationDynamic Registration = "dynamic"
)

// OAuthCredential is an OAuth sign-in as a plugin's row keeps it, encrypted,
// in its credential (credential_kind oauth): the tokens, their expiry, the
// client signed in as, the token endpoint and the resource indicator. Only
// the access token leaves the app, as Authorization: Bearer.
//
// It never shows its tokens or client secret: printed with any verb, or
// marshalled to JSON, it says only what it holds. [ParseOAuthCredential]
// reads one from a row; [OAuthCredential.Encode] writes one.
type OAuthCredential struct {
	AccessToken  string
	RefreshToken string
	TokenType    string
	// Expiry is when the access token expires; zero when the server did not
	// say.
	Expiry time.Time
	// ClientID is the client signed in as; ClientSecret is a secret a
	// dynamic registration gave it ("" for a public client).
	ClientID     string
	ClientSecret string
	// AuthStyle is how the client authenticates at the token endpoint.
	AuthStyle oauth2.AuthStyle
	// Registration is how the client was registered; RedirectURL the
	// redirect it was registered with, so that a later sign-in reuses a
	// dynamic registration only while its redirect still matches.
	Registration Registration
	RedirectURL  string
	// Issuer, TokenEndpoint and Resource are the authorization server, where
	// tokens are refreshed, and the resource indicator (RFC 8707) the
	// tokens are for.
	Issuer        string
	TokenEndpoint string
	Resource      string
	// Scopes are the scopes asked for.
	Scopes []string
}

// storedOAuth is the credential's stored JSON form. It is only ever
// marshalled into the row's credential, which a [FileStore] encrypts.
type storedOAuth struct {
	AccessToken   string           `json:"access_token,omitempty"`
	RefreshToken  string           `json:"refresh_token,omitempty"`
	TokenType     string           `json:"token_type,omitempty"`
	Expiry        time.Time        `json:"expiry,omitzero"`
	ClientID      string           `json:"client_id,omitempty"`
	ClientSecret  string           `json:"client_secret,omitempty"`
	AuthStyle     oauth2.AuthStyle `json:"auth_style,omitempty"`
	Registration  Registration     `json:"registration,omitempty"`
	RedirectURL   string           `json:"redirect_url,omitempty"`
	Issuer        string           `json:"issuer,omitempty"`
	TokenEndpoint string           `json:"token_endpoint,omitempty"`
	Resource      string           `json:"resource,omitempty"`
	Scopes        []string         `json:"scopes,omitempty"`
}

// Encode returns the credential as a row's credential holds it.
func (c OAuthCredential) Encode() string {
	b, _ := json.Marshal(storedOAuth(c))
	return string(b)
}

// ParseOAuthCredential reads the credential of an OAuth plugin's row. A
// blob that is not one is an error that does not repeat it.
func ParseOAuthCredential(blob string) (OAuthCredential, error) {
	var s storedOAuth
	if blob == "" {
		return OAuthCredential{}, nil
	}
	if err := json.Unmarshal([]byte(blob), &s); err != nil {
		return OAuthCredential{}, fmt.Errorf("the plugin's OAuth credential is not valid JSON (%d bytes)", len(blob))
	}
	return OAuthCredential(s), nil
}

// SignedIn reports whether the credential holds an access token.
func (c OAuthCredential) SignedIn() bool { return c.AccessToken != "" }

// ExpiresWithin reports whether the access token expires within d of now.
// A token whose expiry is unknown never does.
func (c OAuthCredential) ExpiresWithin(now time.Time, d time.Duration) bool {
	return !c.Expiry.IsZero() && c.Expiry.Sub(now) < d
}

// signedOut is the credential with its tokens dropped and its client kept,
// as a disconnected plugin keeps it, so that signing in again can reuse the
// client an earlier sign-in registered.
func (c OAuthCredential) signedOut() OAuthCredential {
	c.AccessToken, c.RefreshToken, c.TokenType, c.Expiry = "", "", "", time.Time{}
	return c
}

// String says what the credential holds, never a token or secret.
func (c OAuthCredential) String() string {
	state := "signed out"
	if c.AccessToken != "" {
		state = "signed in"
	}
	s := fmt.Sprintf("OAuth credential (%s", state)
	if c.RefreshToken != "" {
		s += ", can refresh"
	}
	if !c.Expiry.IsZero() {
		s += ", expires " + c.Expiry.UTC().Format(time.RFC3339)
	}
	if c.Registration != "" {
		s += ", client " + string(c.Registration)
	}
	return s + "; tokens hidden)"
}

// Format prints [OAuthCredential.String] for every verb, %#v and %+v
// included.
func (c OAuthCredential) Format(f fmt.State, verb rune) { fmt.Fprint(f, c.String()) }

// MarshalJSON marshals what String says, never a token or secret. Use
// [OAuthCredential.Encode] for the stored form.
func (c OAuthCredential) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// LogValue logs what String says.
func (c OAuthCredential) LogValue() slog.Value { return slog.StringValue(c.String()) }

// accessToken returns the access token of an OAuth credential blob, "" when
// it has none.
func accessToken(blob string) string {
	c, err := ParseOAuthCredential(blob)
	if err != nil {
		return ""
	}
	return c.AccessToken
}
