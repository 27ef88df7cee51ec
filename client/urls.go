package client

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// CanonicalURL puts a server URL in the one spelling the app stores, so one
// server is never connected twice: scheme and host lowercased, no default
// port, no trailing slash, no fragment. The query is kept. A URL that is not
// an absolute http or https URL, or that carries a user or password, is an
// error saying why.
func CanonicalURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("the server URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("the server URL %q cannot be read: %v", raw, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the server URL %q must start with https:// (or http:// on this computer)", raw)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("the server URL %q names no host", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("the server URL carries a user or password; give the key separately")
	}
	if p := u.Port(); p != "" {
		if n, err := parsePort(p); err != nil || n == 0 {
			return "", fmt.Errorf("the server URL %q has a bad port", raw)
		}
	}
	out := url.URL{Scheme: u.Scheme, Host: canonicalHost(u.Scheme, u.Host)}
	path := strings.TrimRight(u.EscapedPath(), "/")
	var b strings.Builder
	b.WriteString(out.Scheme)
	b.WriteString("://")
	b.WriteString(out.Host)
	b.WriteString(path)
	if u.RawQuery != "" {
		b.WriteString("?")
		b.WriteString(u.RawQuery)
	}
	return b.String(), nil
}

func parsePort(p string) (int, error) {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad port")
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, fmt.Errorf("bad port")
		}
	}
	return n, nil
}

// urlHost returns the host name of a URL, lowercased, without port or
// brackets; "" when it has none.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// IsLoopbackHost reports whether host (a name or an address, with or without
// port) is on this computer: localhost, a .localhost name, or a loopback
// address.
func IsLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// PluginID turns a custom plugin's name into its id: the name's ASCII
// letters and digits, lowercased, in words joined by hyphens ("My Notes!" is
// my-notes). surfsense, the agent's own server, is never an id, and neither
// is an id reserved (listed first-party or registry ids, removed ones
// included): such an id takes "-plugin" ("Amazon" is amazon-plugin). A name
// with no letter or digit is an error. Ids are at most 64 characters.
func PluginID(name string, reserved func(id string) bool) (string, error) {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			w.WriteRune(r)
		} else {
			flush()
		}
	}
	flush()
	id := strings.Join(words, "-")
	if len(id) > 56 {
		// Cut at a word's end when there is one, leaving room for -plugin.
		cut := id[:56]
		if id[56] != '-' {
			if i := strings.LastIndexByte(cut, '-'); i > 0 {
				cut = cut[:i]
			}
		}
		id = strings.TrimRight(cut, "-")
	}
	if id == "" {
		return "", &Error{Status: 422, Code: CodeBadName, Name: name}
	}
	for i := 0; i < 4 && (id == "surfsense" || (reserved != nil && reserved(id))); i++ {
		id += "-plugin"
	}
	if id == "surfsense" || (reserved != nil && reserved(id)) {
		return "", &Error{Status: 409, Code: CodeNameTaken, Name: name}
	}
	return id, nil
}
