package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the MCP protocol version the client speaks.
const ProtocolVersion = "2025-11-25"

// DefaultRetryDelays are the waits before a listing's retries: a network
// error, 408, 429 or 5xx is retried twice, 0.2 and 0.4 seconds apart.
var DefaultRetryDelays = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}

// Limits on what one listing accepts from a server.
const (
	maxPages = 200
	maxTools = 5000
)

// Lister lists MCP servers' tools over Streamable HTTP with the official MCP
// Go SDK, the way the app does: each listing opens its own connection and
// closes it, tools/list is followed through its cursors, a network error,
// 408, 429 or 5xx is retried, and a server that forgot the session is
// listed once more on a new one. It never calls a tool.
//
// The zero value is ready to use.
type Lister struct {
	// HTTPClient makes the requests; nil means a client with a 60 s
	// timeout. Its Transport is wrapped, never changed.
	HTTPClient *http.Client
	// RetryDelays are the waits before each retry; nil means
	// DefaultRetryDelays. An empty non-nil slice retries nothing.
	RetryDelays []time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests replace
	// it to record the schedule without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

var defaultHTTPClient = &http.Client{Timeout: 60 * time.Second}

func (l *Lister) httpClient() *http.Client {
	if l != nil && l.HTTPClient != nil {
		return l.HTTPClient
	}
	return defaultHTTPClient
}

func (l *Lister) delays() []time.Duration {
	if l != nil && l.RetryDelays != nil {
		return l.RetryDelays
	}
	return DefaultRetryDelays
}

func (l *Lister) sleep(ctx context.Context, d time.Duration) error {
	if l != nil && l.Sleep != nil {
		return l.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errForgotten is a listing whose server forgot its session.
var errForgotten = errors.New("the server forgot the session")

// ListTools lists every tool of the server at serverURL, sending header
// (such as Authorization) with every request to the server's origin. A
// refusal is a [*RefusalError] keeping the HTTP status and the body's
// reason; a server that could not be reached or did not answer as MCP is an
// [*UnreachableError]; a done ctx is ctx's error.
func (l *Lister) ListTools(ctx context.Context, serverURL string, header http.Header) ([]*mcp.Tool, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &UnreachableError{URL: serverURL, Err: fmt.Errorf("not an http(s) URL")}
	}
	delays := l.delays()
	relisted := false
	for attempt := 0; ; {
		tools, err := l.listOnce(ctx, serverURL, header)
		if err == nil {
			return tools, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, errForgotten) {
			if !relisted {
				relisted = true
				continue // once more, on a new connection; not a retry
			}
			err = &UnreachableError{URL: serverURL, Err: errForgotten}
		}
		if !retryable(err) || attempt >= len(delays) {
			return nil, err
		}
		if err := l.sleep(ctx, delays[attempt]); err != nil {
			return nil, err
		}
		attempt++
	}
}

// retryable reports whether a listing's failure is retried: a network
// error, 408, 429 or 5xx.
func retryable(err error) bool {
	var ref *RefusalError
	if errors.As(err, &ref) {
		s := ref.StatusCode
		return s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
	}
	var un *UnreachableError
	return errors.As(err, &un) && un.Network
}

// listOnce makes one listing on its own connection.
func (l *Lister) listOnce(ctx context.Context, serverURL string, header http.Header) ([]*mcp.Tool, error) {
	base := l.httpClient()
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	u, _ := url.Parse(serverURL)
	lt := &listingTransport{ctx: ctx, base: rt, origin: originOf(u.Scheme, u.Host), header: header}
	hc := *base
	hc.Transport = lt

	transport := &mcp.StreamableClientTransport{
		Endpoint:             serverURL,
		HTTPClient:           &hc,
		MaxRetries:           -1,   // retries are this listing's own
		DisableStandaloneSSE: true, // a listing needs no server-initiated messages
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "surfsense", Version: "pluginhost-client"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := cl.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, classify(ctx, serverURL, lt, err)
	}
	defer cs.Close()

	var tools []*mcp.Tool
	seenCursor := map[string]bool{}
	seenName := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, &UnreachableError{URL: serverURL, Err: fmt.Errorf("tools/list gave more than %d pages", maxPages)}
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, classify(ctx, serverURL, lt, err)
		}
		for _, t := range res.Tools {
			if t == nil || t.Name == "" || seenName[t.Name] {
				continue // a nameless or repeated tool cannot be offered
			}
			seenName[t.Name] = true
			tools = append(tools, t)
		}
		if len(tools) > maxTools {
			return nil, &UnreachableError{URL: serverURL, Err: fmt.Errorf("the server lists more than %d tools", maxTools)}
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seenCursor[res.NextCursor] {
			return nil, &UnreachableError{URL: serverURL, Err: fmt.Errorf("tools/list repeats its cursor %.40q", res.NextCursor)}
		}
		seenCursor[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// classify turns the SDK's error into the listing's error, from what the
// transport saw.
func classify(ctx context.Context, serverURL string, lt *listingTransport, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ref, forgotten, netErr := lt.state()
	switch {
	case forgotten:
		return errForgotten
	case ref != nil:
		r := *ref
		r.URL = serverURL
		return &r
	case netErr != nil:
		return &UnreachableError{URL: serverURL, Network: true, Err: netErr}
	}
	return &UnreachableError{URL: serverURL, Err: err}
}
