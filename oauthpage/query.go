package oauthpage

import (
	"errors"
	"net/url"
	"strings"
)

// MaxQueryLen is the longest callback query forwarded. Providers' codes and
// error descriptions fit in far less; a longer one is refused rather than
// handed to a browser and an app server that may cut it.
const MaxQueryLen = 8 << 10

// Reasons a callback query is refused, before the state itself is parsed.
var (
	ErrQueryTooLong  = errors.New("query is longer than 8 KiB")
	ErrQueryBytes    = errors.New(`query has a byte a browser never sends raw (a space, a control or non-ASCII byte, or "#")`)
	ErrStateMissing  = errors.New("query has no state")
	ErrStateRepeated = errors.New("query names state more than once")
	ErrStateHidden   = errors.New(`query has a state after a ";", which some parsers read as a separator`)
	ErrStateEscape   = errors.New("state has a broken %-escape")
)

// stateFromQuery finds the one state in a raw query and returns its decoded
// value.
//
// The query is split on '&', as the app's server (Starlette, Python's
// parse_qsl) does; a key is compared after %-decoding, so "%73tate" is state
// too. A state hidden behind ';' (a separator for some older parsers) counts
// as another state, so no parser can see a state other than the one checked
// here. raw must have passed checkQueryBytes.
func stateFromQuery(raw string) (string, error) {
	var (
		value  string
		found  int // states among '&'-separated fields
		hidden int // states among fields split on both '&' and ';'
	)
	for field := range strings.SplitSeq(raw, "&") {
		if k, v, _ := strings.Cut(field, "="); isStateKey(k) {
			found++
			value = v
		}
		for sub := range strings.SplitSeq(field, ";") {
			if k, _, _ := strings.Cut(sub, "="); isStateKey(k) {
				hidden++
			}
		}
	}
	switch {
	case found == 0 && hidden == 0:
		return "", ErrStateMissing
	case found > 1:
		return "", ErrStateRepeated
	case hidden != found:
		return "", ErrStateHidden
	}
	decoded, err := url.QueryUnescape(value)
	if err != nil {
		return "", ErrStateEscape
	}
	return decoded, nil
}

// isStateKey reports whether a raw query key means "state" once decoded the
// way form parsers do ('+' is a space, %XX a byte). A key with a broken
// escape is kept as written by Python's parser, so it is not "state".
func isStateKey(k string) bool {
	if k == "state" {
		return true
	}
	if !strings.ContainsAny(k, "%+") {
		return false
	}
	d, err := url.QueryUnescape(k)
	return err == nil && d == "state"
}

// checkQueryBytes refuses a query a browser would not have sent: browsers
// %-encode spaces, controls and non-ASCII bytes in a query, and "#" starts a
// fragment, which a browser keeps to itself. Such a query was made by hand,
// and forwarding it in a Location header would change its meaning (a "#"
// would cut it short).
func checkQueryBytes(raw string) error {
	if len(raw) > MaxQueryLen {
		return ErrQueryTooLong
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '#' {
			return ErrQueryBytes
		}
	}
	return nil
}
