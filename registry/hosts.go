package registry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// specialUseSuffixes are names that never point at a public server:
// loopback, link-local multicast DNS, private and reserved names.
var specialUseSuffixes = []string{
	"localhost", "local", "internal", "intranet", "lan", "home", "corp", "private",
	"home.arpa", "arpa", "test", "invalid", "example", "onion",
}

// checkURL checks an https URL written in the one spelling the app stores
// (lowercase host, no default port, no fragment), without credentials,
// naming a public host. server adds the rules for an MCP server URL (no
// trailing slash). It returns the parsed URL when usable for further rules.
func checkURL(ps *Problems, label, field, raw string, server bool) *url.URL {
	if len(raw) > MaxURLLen {
		ps.add(label, field, "is %d bytes long; the most is %d", len(raw), MaxURLLen)
		return nil
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		ps.add(label, field, "holds spaces or control characters")
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		ps.add(label, field, "%q is not a URL: %v", clip(raw), unwrapURLError(err))
		return nil
	}
	if !strings.HasPrefix(raw, "https://") {
		ps.add(label, field, "%q must be an https:// URL", clip(raw))
		return nil
	}
	if u.User != nil {
		ps.add(label, field, "holds credentials (user:password@); a listed URL never does")
		return nil
	}
	host := u.Hostname()
	if host == "" {
		ps.add(label, field, "%q names no host", clip(raw))
		return nil
	}
	ok := true
	if msg := hostProblem(host); msg != "" {
		ps.add(label, field, "%s", msg)
		ok = false
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil || n < 1 || n > 65535:
			ps.add(label, field, "port %q is not a port number", p)
			ok = false
		case n == 443:
			ps.add(label, field, "drop the default port :443; the app stores URLs without it")
			ok = false
		}
	}
	if strings.Contains(raw, "#") {
		ps.add(label, field, "drop the fragment (#…)")
		ok = false
	}
	if server && strings.HasSuffix(u.Path, "/") {
		ps.add(label, field, "drop the trailing slash; the app stores URLs without it")
		ok = false
	}
	if !ok {
		return nil
	}
	return u
}

// hostProblem says what is wrong with a host named in a list, or "" when it
// is a public DNS name in lowercase ASCII (punycode for others) or a public
// IP address written in its usual form.
func hostProblem(h string) string {
	if h == "" {
		return "empty host"
	}
	if addr, isIP := netguard.ParseHostIP(h); isIP {
		if err := netguard.CheckAddr(addr); err != nil {
			return fmt.Sprintf("%q is a private, loopback or reserved address (%v); list public servers only", clip(h), err)
		}
		if addr.String() != strings.Trim(h, "[]") {
			return fmt.Sprintf("write the address %q as %s", clip(h), addr.String())
		}
		return ""
	}
	if len(h) > 253 {
		return fmt.Sprintf("host %q is longer than 253 characters", clip(h))
	}
	if strings.ToLower(h) != h {
		return fmt.Sprintf("write the host %q in lower case", clip(h))
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		if h == "localhost" {
			return fmt.Sprintf("%q is this computer; list public servers only", h)
		}
		return fmt.Sprintf("host %q is not a public domain name (no dot)", clip(h))
	}
	for _, l := range labels {
		if !validLabel(l) {
			return fmt.Sprintf("host %q is not a domain name (labels of a-z, 0-9 and inner hyphens; punycode for other letters)", clip(h))
		}
	}
	tld := labels[len(labels)-1]
	if tld[0] < 'a' || tld[0] > 'z' {
		return fmt.Sprintf("host %q does not end in a top-level domain", clip(h))
	}
	for _, s := range specialUseSuffixes {
		if h == s || strings.HasSuffix(h, "."+s) {
			return fmt.Sprintf("%q is a local or reserved name (.%s); list public servers only", clip(h), s)
		}
	}
	return ""
}

func validLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
