package oauthpage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits of a callback state, "<port>.<nonce>".
const (
	// MinPort and MaxPort bound the app's port: never a privileged port.
	MinPort = 1024
	MaxPort = 65535
	// MaxNonceLen is the longest nonce accepted. The app's OAuth client (the
	// MCP SDK) makes a 43-character nonce; 256 leaves room for another client
	// and still refuses a padded or pasted value.
	MaxNonceLen = 256
	// MaxStateLen is the longest state accepted: a 5-digit port, the dot and
	// the longest nonce.
	MaxStateLen = 5 + 1 + MaxNonceLen
)

// Errors ParseState wraps in a *StateError, for errors.Is.
var (
	ErrStateEmpty   = errors.New("state is empty")
	ErrStateTooLong = fmt.Errorf("state is longer than %d bytes", MaxStateLen)
	ErrStateNoDot   = errors.New(`state has no "." between the port and the nonce`)
	ErrPortSyntax   = errors.New("port is not 1 to 5 ASCII digits without sign or leading zero")
	ErrPortRange    = fmt.Errorf("port is outside %d-%d", MinPort, MaxPort)
	ErrNonceEmpty   = errors.New("nonce is empty")
	ErrNonceTooLong = fmt.Errorf("nonce is longer than %d characters", MaxNonceLen)
	ErrNonceCharset = errors.New("nonce has a character other than A-Z, a-z, 0-9, '_' and '-'")
)

// StateError says why a state was refused. Its error names the rule broken,
// never the state itself (it may be anything a stranger put in a link).
type StateError struct {
	Err error // one of the ErrState*, ErrPort* and ErrNonce* values
}

func (e *StateError) Error() string { return "malformed OAuth callback state: " + e.Err.Error() }

func (e *StateError) Unwrap() error { return e.Err }

// State is a parsed callback state: the port the app's API listens on at
// 127.0.0.1, and the nonce the app's OAuth client made.
type State struct {
	Port  int
	Nonce string
}

// String returns the state as the app sent it: "<port>.<nonce>".
func (s State) String() string { return strconv.Itoa(s.Port) + "." + s.Nonce }

// ParseState parses s, the state's value after URL decoding, as
// "<port>.<nonce>":
//
//   - port is 4 or 5 ASCII digits '0'-'9' with no leading zero, no sign, no
//     exponent, no spaces or other Unicode digits, and its value is between
//     MinPort and MaxPort. ("01024" is refused: the app writes its port the
//     way strconv.Itoa does, so any other spelling is not the app's.)
//   - the first '.' separates the two; the nonce cannot contain another.
//   - nonce is 1 to MaxNonceLen characters of the URL-safe base64 alphabet
//     A-Z a-z 0-9 '_' '-' (what secrets.token_urlsafe makes); no padding '='.
//
// Any other input returns a *StateError.
func ParseState(s string) (State, error) {
	if s == "" {
		return State{}, &StateError{ErrStateEmpty}
	}
	if len(s) > MaxStateLen {
		return State{}, &StateError{ErrStateTooLong}
	}
	portText, nonce, ok := strings.Cut(s, ".")
	if !ok {
		return State{}, &StateError{ErrStateNoDot}
	}
	port, err := parsePort(portText)
	if err != nil {
		return State{}, &StateError{err}
	}
	if err := checkNonce(nonce); err != nil {
		return State{}, &StateError{err}
	}
	return State{Port: port, Nonce: nonce}, nil
}

// parsePort parses a port written in plain ASCII digits. It never calls
// strconv.Atoi on unchecked text, which would accept a sign.
func parsePort(s string) (int, error) {
	if s == "" || len(s) > 5 || s[0] == '0' {
		return 0, ErrPortSyntax
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrPortSyntax
		}
		n = n*10 + int(c-'0')
	}
	if n < MinPort || n > MaxPort {
		return 0, ErrPortRange
	}
	return n, nil
}

func checkNonce(s string) error {
	if s == "" {
		return ErrNonceEmpty
	}
	if len(s) > MaxNonceLen {
		return ErrNonceTooLong
	}
	for i := 0; i < len(s); i++ {
		if !isNonceByte(s[i]) {
			return ErrNonceCharset
		}
	}
	return nil
}

func isNonceByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
