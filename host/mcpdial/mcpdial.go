// Package mcpdial opens MCP client sessions to a plugin host the way the
// SurfSense app does: Streamable HTTP with the official Go SDK, stateless (no
// standalone SSE stream), the license in Authorization.
package mcpdial

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect opens an MCP client session to endpoint with the license key and
// extra headers; copts may set progress handlers; base is the transport (nil
// is http.DefaultTransport).
func Connect(ctx context.Context, endpoint, key string, extra http.Header, copts *mcp.ClientOptions, base http.RoundTripper) (*mcp.ClientSession, error) {
	hdr := http.Header{}
	if key != "" {
		hdr.Set("Authorization", "License "+key)
	}
	for k, vs := range extra {
		hdr[http.CanonicalHeaderKey(k)] = vs
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pluginhost", Version: "1"}, copts)
	tr := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: HeaderTransport{Header: hdr, Base: base}, Timeout: 5 * time.Minute},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	return client.Connect(ctx, tr, nil)
}

// HeaderTransport adds Header to every request.
type HeaderTransport struct {
	Header http.Header
	Base   http.RoundTripper
}

func (t HeaderTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.Header {
		r.Header[k] = vs
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}
