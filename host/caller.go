package host

import (
	"context"
	"errors"
	"net/http"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/license"
)

type ctxKey int

const (
	ctxCaller ctxKey = iota
	ctxRequestDone
	ctxRequestID
)

// caller is who made a request: the license's hash (never the key), its
// verdict, the thread it belongs to and whether it reads text only.
type caller struct {
	LicenseHash string
	Result      license.Result
	Thread      string
	TextOnly    bool
}

// threadPattern is X-SurfSense-Thread's form (CONTRACTS.md, "Calls: headers
// the host reads").
var threadPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// ValidThread reports whether id is a well-formed thread id.
func ValidThread(id string) bool { return threadPattern.MatchString(id) }

var (
	// errNoLicense: no Authorization: License <key> (contract 2's 401).
	errNoLicense = errors.New("send Authorization: License <key>")
	// errBadThread: X-SurfSense-Thread is there but malformed (a 400).
	errBadThread = errors.New("X-SurfSense-Thread must be one header of 1 to 128 characters from A-Z a-z 0-9 . _ : -")
)

// readCaller builds the caller of a request from its headers, and is the one
// place that reads them: the license key (returned for the check, and kept
// only as its hash), X-SurfSense-Thread and x-surfsense-text-only. Every path
// uses it: the license middleware, and the tool handlers when the SDK does not
// hand the middleware's context on.
//
// The error is errNoLicense (nothing else is read then) or errBadThread (the
// caller and key are returned with it: the license is checked before the
// thread is refused, as contract 2 orders).
func readCaller(h http.Header) (caller, string, error) {
	key, err := license.ParseAuthorization(h.Values("Authorization"))
	if err != nil {
		return caller{}, "", errNoLicense
	}
	c := caller{LicenseHash: license.Hash(key), TextOnly: h.Get("x-surfsense-text-only") == "1"}
	if vals := h.Values("X-SurfSense-Thread"); len(vals) > 0 {
		if len(vals) != 1 || !ValidThread(vals[0]) {
			return c, key, errBadThread
		}
		c.Thread = vals[0]
	}
	return c, key, nil
}

func callerFrom(ctx context.Context) (caller, bool) {
	c, ok := ctx.Value(ctxCaller).(caller)
	return c, ok
}

// callerOfRequest finds the caller the license middleware put in the HTTP
// request's context; when the SDK does not hand that context on, it is read
// again from the request's headers (a malformed thread is then left out: the
// middleware already refused such requests).
func callerOfRequest(ctx context.Context, req *mcp.CallToolRequest) (caller, bool) {
	if c, ok := callerFrom(ctx); ok {
		return c, true
	}
	if req.Extra == nil || req.Extra.Header == nil {
		return caller{}, false
	}
	c, _, err := readCaller(req.Extra.Header)
	if errors.Is(err, errNoLicense) {
		return caller{}, false
	}
	return c, true
}

// requestContext is the HTTP request's context, carried to the tool handler
// so that a call whose client went away is cancelled: the MCP SDK runs
// handlers on a context that outlives the request.
func requestContext(ctx context.Context) context.Context {
	rc, _ := ctx.Value(ctxRequestDone).(context.Context)
	return rc
}
