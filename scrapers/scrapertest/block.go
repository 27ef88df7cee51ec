package scrapertest

import (
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
