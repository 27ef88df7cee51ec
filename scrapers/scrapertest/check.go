package scrapertest

import (
	"errors"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// CheckBlock checks what a site's block detection returned for a page: no
// block when kind is "", else a block of that kind naming site.
func CheckBlock(tb testing.TB, be *scrapers.BlockedError, kind, site string) {
	tb.Helper()
	switch {
	case kind == "" && be != nil:
		tb.Errorf("blocked %v, want none", be)
	case kind != "" && (be == nil || be.Kind != kind || be.Site != site):
		tb.Errorf("got %v, want a %s block naming %s", be, kind, site)
	}
}

// CheckArgError checks that a tool call failed with an *scrapers.ArgError
// naming the argument arg; call (its arguments, say) names the call in the
// report.
func CheckArgError(tb testing.TB, err error, arg, call string) {
	tb.Helper()
	var ae *scrapers.ArgError
	if !errors.As(err, &ae) || ae.Arg != arg {
		tb.Errorf("%.80s: err = %v, want an argument error naming %s", call, err, arg)
	}
}
