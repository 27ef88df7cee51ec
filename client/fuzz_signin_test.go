package client

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzCallback: any query to the callback is answered with a page and never
// a panic; one whose state this client did not issue is a 4xx with one of
// the fixed pages, which repeat nothing of the query.
func FuzzCallback(f *testing.F) {
	for _, q := range []string{"", "code=a&state=8000.N", "state=8000.N&state=8000.N", "error=access_denied&state=8000.x",
		"state=%ZZ", "state=8000.", "state=.x", "state=99999999999999999999.x", "code=<script>&state=8000.<b>"} {
		f.Add(q)
	}
	c := &Client{Store: &MemoryStore{}, CallbackPort: 8000}
	h := c.CallbackHandler()
	fixed := map[string]bool{}
	for _, q := range []string{"", "state=1.x", "state=8000.x"} {
		req := httptest.NewRequest(http.MethodGet, "/plugins/oauth/callback", nil)
		req.URL.RawQuery = q
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		fixed[w.Body.String()] = true
	}
	if len(fixed) != 3 {
		f.Fatalf("want the three refusal pages, got %d", len(fixed))
	}
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest(http.MethodGet, "/plugins/oauth/callback", nil)
		req.URL.RawQuery = q
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code < 400 || w.Code >= 500 {
			t.Fatalf("status %d for a state never issued", w.Code)
		}
		if !fixed[w.Body.String()] {
			t.Fatalf("not one of the fixed pages:\n%s", w.Body.String())
		}
	})
}

// FuzzParseOAuthCredential: any blob parses or fails without a panic, and
// the error never repeats it.
func FuzzParseOAuthCredential(f *testing.F) {
	f.Add(OAuthCredential{AccessToken: "a", RefreshToken: "r", ClientID: "c"}.Encode())
	f.Add(`{"access_token":1}`)
	f.Add(`{"expiry":"not a time"}`)
	f.Fuzz(func(t *testing.T, blob string) {
		c, err := ParseOAuthCredential(blob)
		if err != nil && len(blob) >= 8 && strings.Contains(err.Error(), blob) {
			t.Fatalf("the error repeats the blob")
		}
		if err == nil {
			if back, err := ParseOAuthCredential(c.Encode()); err != nil || back.AccessToken != c.AccessToken || back.RefreshToken != c.RefreshToken {
				t.Fatalf("the credential does not survive encoding: %v", err)
			}
			_ = c.String()
		}
	})
}
