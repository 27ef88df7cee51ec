package host

import "testing"

// TestRedactPath: an upstream attempt's span keeps the kind of page and
// nothing a caller asked for.
func TestRedactPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "/",
		"/":                         "/",
		"/search":                   "/search",
		"/search/":                  "/search",
		"/dp/B0C1234567/ref=sr_1_1": "/dp/*",
		"/@jane.doe":                "/*",
		"/jane.doe.private":         "/*",
		"/jane":                     "/*",
		"/watch":                    "/watch",
		"/user/jane/comments":       "/user/*",
		"/0123456789":               "/*",
		"/maps/place/Jane's+Cafe":   "/maps/*",
		"/a-very-long-segment-that-could-be-a-name-or-an-id": "/*",
	} {
		if got := redactPath(in); got != want {
			t.Errorf("redactPath(%q) = %q, want %q", in, got, want)
		}
	}
}
