package license

import (
	"errors"
	"strings"
)

// ErrMissing is a missing, empty or differently-schemed Authorization header
// (contract 2: 401 missing_license).
var ErrMissing = errors.New("missing_license")

// MaxKeyLength bounds a key; a longer one is refused as missing without being
// looked at further.
const MaxKeyLength = 512

// ParseAuthorization takes the request's Authorization header values and
// returns the license key. The scheme "License" is matched without regard to
// case and the key is taken verbatim after one space. Missing, doubled (two
// header lines), empty, over-long keys, keys with control characters, and any
// other scheme are ErrMissing.
func ParseAuthorization(values []string) (string, error) {
	if len(values) != 1 {
		return "", ErrMissing
	}
	v := values[0]
	const scheme = "license"
	if len(v) < len(scheme)+2 || !strings.EqualFold(v[:len(scheme)], scheme) || v[len(scheme)] != ' ' {
		return "", ErrMissing
	}
	key := v[len(scheme)+1:]
	if key == "" || len(key) > MaxKeyLength {
		return "", ErrMissing
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x21 || c == 0x7f {
			// spaces, tabs and control characters never belong to a key;
			// this also refuses "License  key" (two spaces) and "License key "
			return "", ErrMissing
		}
	}
	return key, nil
}
