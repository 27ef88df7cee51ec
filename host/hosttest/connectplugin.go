package hosttest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/scrapers"
)

// License is the key ConnectPlugin's sessions send; the test host accepts any.
const License = "test-license"

// ConnectPlugin is a site's end-to-end harness: it runs a host mounting only
// the plugin newPlugin builds, reading env (the stand-in origins:
// <ID>_BASE_URL, SEARXNG_URL, …), and opens a licensed MCP session to the
// plugin id. config, when non-nil, adjusts the host's configuration first (a
// short call deadline, …). Host and session end with the test.
//
// Sites use it from external test packages (package amazon_test), so that
// nothing under scrapers/ imports the host.
func ConnectPlugin(tb testing.TB, id string, newPlugin scrapers.Constructor, env map[string]string, config func(*host.Config)) *mcp.ClientSession {
	tb.Helper()
	h := Start(tb, Options{Plugins: []scrapers.Constructor{newPlugin}, Env: env, Config: config})
	return h.Connect(tb, id, License, nil)
}
