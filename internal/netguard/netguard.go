// Package netguard keeps the host's outgoing requests away from addresses they
// must never reach: loopback, private, link-local, CGNAT, unique-local and
// metadata addresses, in every spelling. The scrapers' fetchers, web-crawl,
// the renderer's proxy and the registry's checks of plugin URLs all use it. The check runs when a connection is dialled, so it holds for
// every DNS answer and after every redirect; URLs are also checked up front so
// that a bad one gets a clear error before any request.
//
// ALLOW_PRIVATE_NETWORKS (allowPrivate: tests and stand-ins on loopback)
// lifts the guard but for the cloud's metadata and platform addresses
// (metadata), which no test needs and an SSRF would prize: those stay
// refused whatever the setting.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// ErrForbiddenAddress is wrapped by every refusal of an address.
var ErrForbiddenAddress = errors.New("address not allowed")

// AddressError says which address was refused and why.
type AddressError struct {
	Addr   string
	Reason string
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("%s is a %s address, which the plugin host may not reach", e.Addr, e.Reason)
}

func (e *AddressError) Unwrap() error { return ErrForbiddenAddress }

type blockedRange struct {
	prefix netip.Prefix
	reason string
}

type cidrReason struct{ cidr, reason string }

func rangesOf(list []cidrReason) []blockedRange {
	out := make([]blockedRange, len(list))
	for i, b := range list {
		out[i] = blockedRange{netip.MustParsePrefix(b.cidr), b.reason}
	}
	return out
}

// metadata are the addresses refused even with allowPrivate: link-local
// IPv4 (169.254.169.254 is AWS's, GCP's and Azure's instance metadata,
// 169.254.170.2 ECS's credentials), Azure's platform address, Alibaba
// Cloud's metadata and AWS's IPv6 metadata.
var metadata = rangesOf([]cidrReason{
	{"169.254.0.0/16", "link-local (cloud metadata)"},
	{"168.63.129.16/32", "Azure platform address (WireServer)"},
	{"100.100.100.200/32", "cloud metadata (Alibaba Cloud)"},
	{"fd00:ec2::254/128", "cloud metadata (AWS, IPv6)"},
})

// blocked are the addresses refused without allowPrivate: the metadata
// addresses first (their reason is the one said), then every range that is
// not the public internet's.
var blocked = append(append([]blockedRange(nil), metadata...), rangesOf([]cidrReason{
	{"0.0.0.0/8", "unspecified"},
	{"10.0.0.0/8", "private"},
	{"100.64.0.0/10", "carrier-grade NAT"},
	{"127.0.0.0/8", "loopback"},
	{"172.16.0.0/12", "private"},
	{"192.0.0.0/24", "IETF protocol"},
	{"192.0.2.0/24", "documentation"},
	{"192.88.99.0/24", "6to4 relay"},
	{"192.168.0.0/16", "private"},
	{"198.18.0.0/15", "benchmarking"},
	{"198.51.100.0/24", "documentation"},
	{"203.0.113.0/24", "documentation"},
	{"224.0.0.0/4", "multicast"},
	{"240.0.0.0/4", "reserved"},
	{"::/128", "unspecified"},
	{"::1/128", "loopback"},
	{"::ffff:0:0:0/96", "IPv4-translated"},
	{"64:ff9b::/96", "NAT64"},
	{"64:ff9b:1::/48", "NAT64"},
	{"100::/64", "discard"},
	{"2001::/32", "Teredo"},
	{"2001:db8::/32", "documentation"},
	{"2002::/16", "6to4"},
	{"fc00::/7", "unique-local"},
	{"fe80::/10", "link-local"},
	{"fec0::/10", "site-local"},
	{"ff00::/8", "multicast"},
})...)

// CheckMetadata refuses a cloud metadata or platform address (metadata):
// the check that holds with allowPrivate.
func CheckMetadata(a netip.Addr) error {
	if !a.IsValid() {
		return &AddressError{Addr: "(invalid)", Reason: "invalid"}
	}
	return inRanges(a, metadata)
}

// CheckAddr refuses an address the host must not reach. IPv4-mapped and
// IPv4-compatible IPv6 forms are judged as the IPv4 address they carry.
func CheckAddr(a netip.Addr) error {
	if !a.IsValid() {
		return &AddressError{Addr: "(invalid)", Reason: "invalid"}
	}
	if err := inRanges(a, blocked); err != nil {
		return err
	}
	if u := carried(a); u.Is4() && u == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return &AddressError{Addr: a.String(), Reason: "broadcast"}
	}
	return nil
}

// carried is the address a is judged as: IPv4-mapped and IPv4-compatible
// IPv6 forms as the IPv4 address they carry, without a zone.
func carried(a netip.Addr) netip.Addr {
	u := a.WithZone("").Unmap()
	if u.Is6() {
		// IPv4-compatible (::a.b.c.d, deprecated) carries an IPv4 address too.
		b := u.As16()
		if isZero(b[:12]) && !isZero(b[12:]) && u != netip.IPv6Loopback() {
			u = netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	return u
}

// inRanges refuses a when the address it carries is in one of ranges.
func inRanges(a netip.Addr, ranges []blockedRange) error {
	u := carried(a)
	for _, r := range ranges {
		if r.prefix.Contains(u) {
			return &AddressError{Addr: a.WithZone("").String(), Reason: r.reason}
		}
	}
	return nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ParseHostIP reports whether host is an IP literal in any spelling a resolver
// might accept: dotted quads, IPv6 in brackets or not, and the inet_aton forms
// (2130706433, 0x7f000001, 0177.0.0.1, 127.1). ok is false for a name.
//
// A host with non-ASCII characters is first mapped the way browsers and URL
// parsers map it (UTS #46: fullwidth digits, ideographic full stops), so that
// "１２７。０。０。１" is judged as 127.0.0.1.
func ParseHostIP(host string) (addr netip.Addr, ok bool) {
	if !isASCII(host) {
		mapped, err := idna.Lookup.ToASCII(host)
		if err != nil || !utf8.ValidString(mapped) {
			// Lookup refuses some mappings its profile finds invalid; the
			// plain mapping still shows what a lenient parser would dial.
			mapped, err = idna.Punycode.ToASCII(idnaFold(host))
			if err != nil {
				return netip.Addr{}, false
			}
		}
		host = mapped
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if i := strings.IndexByte(h, '%'); i >= 0 && strings.Contains(h, ":") {
		h = h[:i]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	h = strings.TrimSuffix(h, ".")
	if a, ok := parseInetAton(h); ok {
		return a, true
	}
	return netip.Addr{}, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// idnaFold maps the characters UTS #46 maps to ASCII digits, letters and
// dots, leaving the rest: fullwidth forms (U+FF01..U+FF5E) and the dots
// U+3002, U+FF0E, U+FF61.
func idnaFold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u3002' || r == '\uff0e' || r == '\uff61':
			return '.'
		case r >= '\uff01' && r <= '\uff5e':
			return r - 0xfee0
		}
		return r
	}, s)
}

// parseInetAton parses the classic BSD forms a.b.c.d, a.b.c, a.b and a, each
// part decimal, octal (leading 0) or hex (0x).
func parseInetAton(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		digits := p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil || v > 0xffffffff {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := vals[len(vals)-1]
	for i := 0; i < len(vals)-1; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		n |= vals[i] << (24 - 8*uint(i))
	}
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// CheckURL refuses a URL the host must not fetch: a scheme other than http or
// https, credentials, a missing host, or an IP literal (in any spelling) that
// CheckAddr refuses. Names are checked when they are dialled.
func CheckURL(u *url.URL, allowPrivate bool) error {
	if u == nil {
		return errors.New("no URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		if u.Scheme == "" {
			return fmt.Errorf("%q is not an absolute URL (it needs http:// or https://)", u.String())
		}
		return fmt.Errorf("the %s: scheme is not allowed; only http and https", u.Scheme)
	}
	if u.User != nil {
		return errors.New("URLs with credentials (user:password@) are not allowed")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	if allowPrivate {
		if a, ok := ParseHostIP(host); ok {
			return CheckMetadata(a)
		}
		return nil
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") || strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".localhost") {
		return &AddressError{Addr: host, Reason: "loopback"}
	}
	if a, ok := ParseHostIP(host); ok {
		return CheckAddr(a)
	}
	return nil
}

// Control is a net.Dialer Control function that refuses forbidden addresses at
// connect time, for every address a name resolves to.
func Control(network, address string, _ syscall.RawConn) error {
	return control(address, CheckAddr)
}

// ControlMetadata is Control with allowPrivate: it refuses the metadata
// addresses alone.
func ControlMetadata(network, address string, _ syscall.RawConn) error {
	return control(address, CheckMetadata)
}

func control(address string, check func(netip.Addr) error) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %w", err)
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("netguard: cannot judge %q: %w", host, err)
	}
	return check(a)
}

// Dialer returns a dialer that refuses forbidden addresses, only the
// metadata addresses when allowPrivate.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: Control}
	if allowPrivate {
		d.Control = ControlMetadata
	}
	return d
}

// DialContext is the guarded dial function for an http.Transport.
func DialContext(allowPrivate bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return Dialer(allowPrivate).DialContext
}
