package telemetry

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedactString: any text is redacted without a panic, redacting twice
// changes nothing more, and no URL left in the result carries a password.
func FuzzRedactString(f *testing.F) {
	for _, s := range []string{
		"", "license check", "License LK-7f3a9c21-secret-license-key", "Authorization: Bearer abc",
		"http://user:pw@proxy:8080/a?q=1#f", "see https://x.example/s?k=a&k=b and rediss://:k@h:6380/0",
		"http://[::1]:80/?%zz", "a://b:c@", "://", "http://%41:%42@x/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := RedactString(s)
		if again := RedactString(r); again != r {
			t.Fatalf("not stable: %q -> %q -> %q", s, r, again)
		}
		for _, m := range urlInText.FindAllString(r, -1) {
			if u, err := url.Parse(m); err == nil && u.User != nil {
				if _, has := u.User.Password(); has {
					t.Fatalf("%q kept a password in %q", s, m)
				}
			}
			if i := strings.Index(m, "?"); i >= 0 {
				for _, kv := range strings.Split(m[i+1:], "&") {
					if k, v, ok := strings.Cut(kv, "="); ok && v != Redacted && k != "" && v != "" {
						t.Fatalf("%q kept a query value %q in %q", s, v, m)
					}
				}
			}
		}
	})
}
