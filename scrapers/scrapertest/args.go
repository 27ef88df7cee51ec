package scrapertest

import (
	"errors"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// DecodeArgs decodes raw tool arguments into a fresh T as the tool does
// (strictly, then defaults and rules), for argument fuzzers. It returns the
// arguments and true when they were accepted; a refusal that is not an
// *scrapers.ArgError naming its argument fails the test.
func DecodeArgs[T any](tb testing.TB, raw []byte) (*T, bool) {
	tb.Helper()
	a := new(T)
	err := scrapers.DecodeArgs(raw, a)
	if err == nil {
		return a, true
	}
	var ae *scrapers.ArgError
	if !errors.As(err, &ae) || ae.Arg == "" || ae.Rule == "" {
		tb.Fatalf("arguments %.200q refused with %v, not an argument error naming the argument and its rule", raw, err)
	}
	return nil, false
}
