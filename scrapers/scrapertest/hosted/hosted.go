// Package hosted connects the scraper sites' end-to-end tests to a real
// plugin host run in process (host/hosttest: license checks, MCP over HTTP,
// the official client).
//
// It imports the host, which imports every site through scrapers/all, so
// only external test packages (package amazon_test) may import it; a site's
// internal tests use package scrapertest, which does not.
package hosted

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// License is the key sessions send; the test host accepts any.
const License = "test-license"

// Connect runs a host mounting only the plugin newPlugin builds, reading env
// (the stand-in origins: <ID>_BASE_URL, SEARXNG_URL, …), and opens a
// licensed MCP session to the plugin id. config, when non-nil, adjusts the
// host's configuration first (a short call deadline, …). Host and session
// end with the test.
func Connect(tb testing.TB, id string, newPlugin all.Constructor, env map[string]string, config func(*host.Config)) *mcp.ClientSession {
	tb.Helper()
	h := hosttest.Start(tb, hosttest.Options{Plugins: []all.Constructor{newPlugin}, Env: env, Config: config})
	return h.Connect(tb, id, License, nil)
}
