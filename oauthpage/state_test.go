package oauthpage

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestParseStateAccepts(t *testing.T) {
	nonce43 := "bW9ja19ub25jZV9mcm9tX3Rva2VuX3VybHNhZmUtMzI" // the length secrets.token_urlsafe(32) makes
	for _, tc := range []struct {
		in    string
		port  int
		nonce string
	}{
		{"1024.a", 1024, "a"},
		{"65535.Z", 65535, "Z"},
		{"8000." + nonce43, 8000, nonce43},
		{"49152.-_-_", 49152, "-_-_"},
		{"1234." + strings.Repeat("x", MaxNonceLen), 1234, strings.Repeat("x", MaxNonceLen)},
	} {
		s, err := ParseState(tc.in)
		if err != nil {
			t.Errorf("ParseState(%q) = %v, want ok", tc.in, err)
			continue
		}
		if s.Port != tc.port || s.Nonce != tc.nonce {
			t.Errorf("ParseState(%q) = %+v, want port %d nonce %q", tc.in, s, tc.port, tc.nonce)
		}
		if s.String() != tc.in {
			t.Errorf("State.String() = %q, want %q", s.String(), tc.in)
		}
	}
}

// malformedStates are decoded state values ParseState must refuse, with the
// rule each breaks.
var malformedStates = []struct {
	name string
	in   string
	want error
}{
	{"empty", "", ErrStateEmpty},
	{"no dot", "8000abc", ErrStateNoDot},
	{"only port", "8000", ErrStateNoDot},
	{"only dot", ".", ErrPortSyntax},
	{"empty port", ".abc", ErrPortSyntax},
	{"port 0", "0.abc", ErrPortSyntax},
	{"port 80", "80.abc", ErrPortRange},
	{"port 443", "443.abc", ErrPortRange},
	{"port 1023", "1023.abc", ErrPortRange},
	{"port 65536", "65536.abc", ErrPortRange},
	{"port 99999", "99999.abc", ErrPortRange},
	{"port six digits", "100000.abc", ErrPortSyntax},
	{"port huge", "18446744073709551617.abc", ErrPortSyntax},
	{"leading zero", "08000.abc", ErrPortSyntax},
	{"leading zeros", "0001024.abc", ErrPortSyntax},
	{"plus sign", "+8000.abc", ErrPortSyntax},
	{"minus sign", "-8000.abc", ErrPortSyntax},
	{"exponent", "1e4.abc", ErrPortSyntax},
	{"exponent upper", "1E4.abc", ErrPortSyntax},
	{"hex", "0x1F40.abc", ErrPortSyntax},
	{"underscore digits", "8_000.abc", ErrPortSyntax},
	{"decimal port", "8000.5.abc", ErrNonceCharset},
	{"space in port", "80 00.abc", ErrPortSyntax},
	{"leading space", " 8000.abc", ErrPortSyntax},
	{"trailing space", "8000.abc ", ErrNonceCharset},
	{"space before dot", "8000 .abc", ErrPortSyntax},
	{"space after dot", "8000. abc", ErrNonceCharset},
	{"tab", "8000.ab\tc", ErrNonceCharset},
	{"newline", "8000.abc\n", ErrNonceCharset},
	{"NUL", "8000.ab\x00c", ErrNonceCharset},
	{"arabic-indic digits", "٨٠٠٠.abc", ErrPortSyntax},
	{"fullwidth digits", "８０００.abc", ErrPortSyntax},
	{"devanagari digits", "८०००.abc", ErrPortSyntax},
	{"superscript digit", "800².abc", ErrPortSyntax},
	{"empty nonce", "8000.", ErrNonceEmpty},
	{"at sign", "8000.user@evil.example", ErrNonceCharset},
	{"slash", "8000.a/b", ErrNonceCharset},
	{"backslash", `8000.a\b`, ErrNonceCharset},
	{"less than", "8000.<script>", ErrNonceCharset},
	{"quote", `8000.a"b`, ErrNonceCharset},
	{"dot in nonce", "8000.a.b", ErrNonceCharset},
	{"colon", "8000.a:b", ErrNonceCharset},
	{"percent", "8000.a%40b", ErrNonceCharset},
	{"padding", "8000.abc=", ErrNonceCharset},
	{"plus in nonce", "8000.a+b", ErrNonceCharset},
	{"unicode letter", "8000.é", ErrNonceCharset},
	{"host instead", "evil.example.com", ErrPortSyntax},
	{"ip instead", "127.0.0.1", ErrPortRange},
	{"port then ip", "8000.127.0.0.1", ErrNonceCharset},
	{"long nonce", "8000." + strings.Repeat("a", MaxNonceLen+1), ErrNonceTooLong},
	{"long state", "10000." + strings.Repeat("a", MaxNonceLen+1), ErrStateTooLong},
	{"very long", strings.Repeat("9", 100_000), ErrStateTooLong},
}

func TestParseStateRefuses(t *testing.T) {
	for _, tc := range malformedStates {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseState(tc.in)
			if err == nil {
				t.Fatalf("ParseState(%q) = %+v, want an error", tc.in, s)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("ParseState(%q) = %v, want %v", tc.in, err, tc.want)
			}
			var se *StateError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *StateError", err)
			}
			if len(tc.in) > 3 && strings.Contains(err.Error(), tc.in) {
				t.Errorf("error %q repeats the input", err)
			}
		})
	}
}

// stateRE is the rule written as a regular expression, the reference the
// fuzzer compares ParseState with.
var stateRE = regexp.MustCompile(`^([1-9][0-9]{3,4})\.([A-Za-z0-9_-]{1,256})$`)

func referenceParse(s string) (State, bool) {
	m := stateRE.FindStringSubmatch(s)
	if m == nil {
		return State{}, false
	}
	port, err := strconv.Atoi(m[1])
	if err != nil || port < MinPort || port > MaxPort {
		return State{}, false
	}
	return State{Port: port, Nonce: m[2]}, true
}

func FuzzParseState(f *testing.F) {
	for _, tc := range malformedStates {
		if len(tc.in) < 1000 {
			f.Add(tc.in)
		}
	}
	for _, s := range []string{"1024.a", "65535.Z-_", "8000.abc", "65536.a", "1023.a", "10000.x", "99999.y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseState(in)
		want, ok := referenceParse(in)
		if (err == nil) != ok {
			t.Fatalf("ParseState(%q): err %v, reference ok %v", in, err, ok)
		}
		if err != nil {
			var se *StateError
			if !errors.As(err, &se) {
				t.Fatalf("ParseState(%q) error %T is not a *StateError", in, err)
			}
			return
		}
		if got != want {
			t.Fatalf("ParseState(%q) = %+v, reference %+v", in, got, want)
		}
		if got.String() != in {
			t.Fatalf("ParseState(%q).String() = %q", in, got.String())
		}
	})
}
