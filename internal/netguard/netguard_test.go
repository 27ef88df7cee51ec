package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestParseHostIP(t *testing.T) {
	tests := []struct {
		host string
		want string // "" means not an IP literal
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},       // decimal
		{"0x7f000001", "127.0.0.1"},       // hex
		{"0X7F000001", "127.0.0.1"},       // hex, upper case
		{"017700000001", "127.0.0.1"},     // octal
		{"0177.0.0.1", "127.0.0.1"},       // octal part
		{"0x7f.0x0.0x0.0x1", "127.0.0.1"}, // hex parts
		{"127.1", "127.0.0.1"},            // a.b
		{"127.0.1", "127.0.0.1"},          // a.b.c
		{"0x7f.1", "127.0.0.1"},
		{"10.0.0.1", "10.0.0.1"},
		{"169.254.169.254", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"::1", "::1"},
		{"[::1]", "::1"},
		{"[fe80::1%25eth0]", "fe80::1"},
		{"[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
		{"１２７．０．０．１", "127.0.0.1"}, // fullwidth digits and dots
		{"127。0。0。1", "127.0.0.1"}, // ideographic full stops
		{"8.8.8.8", "8.8.8.8"},
		{"example.com", ""},
		{"localhost", ""},
		{"", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"0x100000000", ""},
		{"127..1", ""},
		{"08.0.0.1", ""}, // 8 is not an octal digit
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
	}
	for _, tt := range tests {
		a, ok := ParseHostIP(tt.host)
		if tt.want == "" {
			if ok {
				t.Errorf("ParseHostIP(%q) = %v, want not an IP", tt.host, a)
			}
			continue
		}
		if !ok || a.String() != tt.want {
			t.Errorf("ParseHostIP(%q) = %v, %v; want %s", tt.host, a, ok, tt.want)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "240.0.0.1",
		"::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
		"::127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "::ffff:0:7f00:1", "ff02::1",
	}
	for _, s := range refused {
		err := CheckAddr(netip.MustParseAddr(s))
		if err == nil {
			t.Errorf("CheckAddr(%s) = nil, want a refusal", s)
			continue
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("CheckAddr(%s) = %v, which does not wrap ErrForbiddenAddress", s, err)
		}
	}
	allowed := []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "172.32.0.1", "11.0.0.1"}
	for _, s := range allowed {
		if err := CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("CheckAddr(%s) = %v, want nil", s, err)
		}
	}
	if err := CheckAddr(netip.Addr{}); err == nil {
		t.Error("CheckAddr(invalid) = nil")
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		raw       string
		allowPriv bool
		wantErr   string // substring; "" means allowed
	}{
		{"https://example.com/a?b=c", false, ""},
		{"http://93.184.216.34/", false, ""},
		{"file:///etc/passwd", false, "file: scheme"},
		{"gopher://example.com/", false, "gopher: scheme"},
		{"ftp://example.com/", true, "ftp: scheme"},
		{"//example.com/", false, "not an absolute URL"},
		{"http://user:pw@example.com/", false, "credentials"},
		{"http://user@example.com/", true, "credentials"},
		{"http:///path", false, "no host"},
		{"http://127.0.0.1/", false, "loopback"},
		{"http://127.0.0.1:8080/", false, "loopback"},
		{"http://2130706433/", false, "loopback"},
		{"http://0x7f000001/", false, "loopback"},
		{"http://0177.0.0.1/", false, "loopback"},
		{"http://017700000001/", false, "loopback"},
		{"http://127.1/", false, "loopback"},
		{"http://[::1]/", false, "loopback"},
		{"http://[::ffff:127.0.0.1]/", false, "loopback"},
		{"http://[::ffff:7f00:1]/", false, "loopback"},
		{"http://localhost/", false, "loopback"},
		{"http://LOCALHOST./", false, "loopback"},
		{"http://app.localhost/", false, "loopback"},
		{"http://169.254.169.254/latest/meta-data/", false, "link-local"},
		{"http://0xa9fea9fe/", false, "link-local"},
		{"http://10.0.0.1/", false, "private"},
		{"http://192.168.0.1/", false, "private"},
		{"http://１２７．０．０．１/", false, "loopback"},
		{"http://127.0.0.1/", true, ""},
		{"http://localhost:9/", true, ""},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.raw)
		if err != nil {
			t.Fatalf("url.Parse(%q): %v", tt.raw, err)
		}
		err = CheckURL(u, tt.allowPriv)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CheckURL(%q, %v) = %v, want nil", tt.raw, tt.allowPriv, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("CheckURL(%q, %v) = nil, want an error containing %q", tt.raw, tt.allowPriv, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("CheckURL(%q, %v) = %v, want an error containing %q", tt.raw, tt.allowPriv, err, tt.wantErr)
		}
	}
	if err := CheckURL(nil, true); err == nil {
		t.Error("CheckURL(nil) = nil")
	}
}

func TestDialerRefusesLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = DialContext(false)(context.Background(), "tcp", ln.Addr().String())
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("guarded dial to %s: %v, want ErrForbiddenAddress", ln.Addr(), err)
	}
	c, err := DialContext(true)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("unguarded dial: %v", err)
	}
	c.Close()
	if err := Control("tcp", "not-an-address", nil); err == nil {
		t.Error("Control accepted an address without a port")
	}
	if err := Control("tcp", "name:80", nil); err == nil {
		t.Error("Control accepted a name")
	}
}

// FuzzParseHostIP checks that ParseHostIP never panics, that it agrees with
// netip on standard spellings, and that whatever it returns for a host is what
// CheckURL judges that host by.
func FuzzParseHostIP(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "[::1]", "::ffff:127.0.0.1",
		"[fe80::1%25eth0]", "１２７．０．０．１", "example.com", "0x", "0.0.0.0", "4294967295", "4294967296", "1.2.3.4.",
		"0xffffffff", "00000000000000000000001", "[::127.0.0.1]", "127。0。0。1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, ok := ParseHostIP(host)
		if !ok {
			if a.IsValid() {
				t.Fatalf("ParseHostIP(%q) returned %v with ok false", host, a)
			}
			return
		}
		if !a.IsValid() {
			t.Fatalf("ParseHostIP(%q) ok with an invalid address", host)
		}
		if std, err := netip.ParseAddr(host); err == nil && std.WithZone("") != a.WithZone("") {
			t.Fatalf("ParseHostIP(%q) = %v, netip says %v", host, a, std)
		}
		// Whatever the parser returns must be what CheckURL judges the host by.
		if strings.ContainsAny(host, "/?#@\\ ") {
			return
		}
		u := &url.URL{Scheme: "http", Host: host}
		if a.Is6() && !a.Is4In6() && !strings.HasPrefix(host, "[") {
			u.Host = "[" + host + "]"
		}
		if CheckAddr(a) != nil && CheckURL(u, false) == nil {
			t.Fatalf("host %q parses as %v, which is refused, but CheckURL allowed it", host, a)
		}
	})
}

// FuzzCheckURL checks that CheckURL never panics, that what it allows is an
// http(s) URL without credentials, and that a URL it allows does not name a
// refused address in any spelling ParseHostIP knows. (That colly's WHATWG
// parser reads hosts the same way is checked on the fetcher, which checks the
// URL in the form colly sends: scrapers.FuzzGuardURL.)
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "https://example.com/a?b",
		"file:///etc/passwd", "gopher://x/", "http://u:p@example.com/", "http://[::1]:80/", "http://１２７．０．０．１/",
		"http://%31%32%37.0.0.1/", "http://127.0.0.1.nip.io/", "http://0/", "HTTP://LOCALHOST/", "http://[::ffff:a9fe:a9fe]/",
		"http://127。0。0。1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if CheckURL(u, true) == nil {
			if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
				t.Fatalf("CheckURL allowed scheme %q", u.Scheme)
			}
			if u.User != nil {
				t.Fatalf("CheckURL allowed credentials in %q", raw)
			}
			if u.Hostname() == "" {
				t.Fatalf("CheckURL allowed %q without a host", raw)
			}
		}
		if CheckURL(u, false) != nil {
			return
		}
		if a, ok := ParseHostIP(u.Hostname()); ok && CheckAddr(a) != nil {
			t.Fatalf("CheckURL allowed %q whose host is %v", raw, a)
		}
	})
}

// The cloud's metadata and platform addresses stay refused with
// allowPrivate (ALLOW_PRIVATE_NETWORKS), in every spelling, up front and at
// dial time; loopback and private addresses are then allowed.
func TestMetadataRefusedWithAllowPrivate(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200", "fd00:ec2::254",
		"::ffff:169.254.169.254", "::ffff:168.63.129.16"} {
		a := netip.MustParseAddr(s)
		if err := CheckMetadata(a); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("CheckMetadata(%s) = %v, want a refusal", s, err)
		}
		if err := CheckAddr(a); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("CheckAddr(%s) = %v, want a refusal", s, err)
		}
		if err := ControlMetadata("tcp", netip.AddrPortFrom(a, 80).String(), nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("ControlMetadata(%s) = %v, want a refusal", s, err)
		}
	}
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "192.168.1.1", "::1", "8.8.8.8"} {
		if err := CheckMetadata(netip.MustParseAddr(s)); err != nil {
			t.Errorf("CheckMetadata(%s) = %v, want nil", s, err)
		}
	}
	for raw, want := range map[string]string{
		"http://169.254.169.254/latest/meta-data/": "cloud metadata",
		"http://0xa9fea9fe/":                       "cloud metadata", // 169.254.169.254 spelled as one number
		"http://[fd00:ec2::254]/":                  "AWS",
		"http://168.63.129.16/machine":             "WireServer",
		"http://127.0.0.1:8080/":                   "",
		"http://stand-in.test/":                    "",
	} {
		u, _ := url.Parse(raw)
		err := CheckURL(u, true)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckURL(%s, allowPrivate) = %v, want %q", raw, err, want)
		}
	}
	if d := Dialer(true); d.Control == nil {
		t.Error("the dialer with allowPrivate has no guard left for the metadata addresses")
	}
}
