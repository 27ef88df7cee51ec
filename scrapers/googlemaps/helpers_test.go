package googlemaps

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// newPlugin builds the plugin against a stand-in origin.
func newPlugin(t testing.TB, base string) scrapers.Plugin {
	t.Helper()
	return scrapertest.NewPlugin(t, New, map[string]string{"GOOGLE_MAPS_BASE_URL": base})
}
