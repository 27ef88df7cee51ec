package client

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// authServer is a stand-in OAuth authorization server that also serves a
// protected resource metadata document at /prm for resource.
type authServer struct {
	*httptest.Server
	URL      string
	resource string
	// registration, when set, is the registration endpoint the metadata
	// names; /register (not served) otherwise.
	registration string
	mu           sync.Mutex
	n            int
}

func newAuthServer(t *testing.T) *authServer {
	as := &authServer{}
	as.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/prm":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"resource": as.resource, "authorization_servers": []string{as.URL}})
		case "/.well-known/oauth-authorization-server":
			as.mu.Lock()
			as.n++
			as.mu.Unlock()
			as.serveMetadata(w, r, as.URL)
		default:
			http.NotFound(w, r)
		}
	}))
	as.URL = as.Server.URL
	t.Cleanup(as.Close)
	return as
}

// metadataRequests counts requests for the authorization server's metadata.
func (as *authServer) metadataRequests() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.n
}

func (as *authServer) serveMetadata(w http.ResponseWriter, r *http.Request, issuer string) {
	w.Header().Set("Content-Type", "application/json")
	reg := issuer + "/register"
	if as.registration != "" {
		reg = as.registration
	}
	json.NewEncoder(w).Encode(map[string]any{
		"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
		"registration_endpoint": reg, "response_types_supported": []string{"code"},
		"code_challenge_methods_supported": []string{"S256"},
	})
}
