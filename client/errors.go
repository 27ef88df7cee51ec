package client

import (
	"errors"
	"fmt"
	"strings"
)

// Codes the app answers its plugin routes with. They are the values of
// [Error.Code].
const (
	CodeNotFound         = "plugin_not_found"         // 404: an id not listed, or no such plugin
	CodeAlreadyConnected = "plugin_already_connected" // 409: the plugin or its URL is connected
	CodeNameTaken        = "plugin_name_taken"        // 409: a custom plugin's name is in use
	CodeEgressDisabled   = "egress_disabled"          // 403: a host the user has not allowed
	CodeThirdPartyOff    = "third_party_off"          // 403: third-party plugins are off
	CodeNeedsHTTPS       = "plugin_needs_https"       // 422: a server off this computer without TLS
	CodeNeedsSignIn      = "plugin_needs_sign_in"     // 422: the server refused the key (401/403)
	CodeNeedsKey         = "plugin_needs_key"         // 422: a token entry connected without its key
	CodeUnreachable      = "plugin_unreachable"       // 502: the server could not be listed
	CodeDisconnected     = "plugin_disconnected"      // 409: a check of a disconnected plugin
	CodeBadURL           = "plugin_url_invalid"       // 422: a URL that is not an http(s) server URL
	CodeBadName          = "plugin_name_invalid"      // 422: a name with no letter or digit
	CodeBadKey           = "plugin_key_invalid"       // 422: a key that cannot be sent in a header
	CodeApprovalClosed   = "tool_always_asks"         // 422: Always allow on a tool that always asks
)

// PurposePlugin is the purpose an egress refusal names for a plugin's
// server, so that the prompt words its question for one.
const PurposePlugin = "plugin"

// Error is a refusal of one of the app's plugin routes: the HTTP status and
// code the app answers with, and what the screen needs to word it.
type Error struct {
	Status  int      // the app's HTTP status: 403, 404, 409, 422 or 502
	Code    string   // one of the Code constants
	Name    string   // the plugin's name or id, when the code concerns one
	Hosts   []string // egress_disabled: every host not allowed
	Purpose string   // egress_disabled: why the hosts would be reached ("plugin")
	Err     error    // the cause, such as a listing's error; may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", e.Status, e.Code)
	switch e.Code {
	case CodeNotFound:
		fmt.Fprintf(&b, ": %q is not a listed or connected plugin", e.Name)
	case CodeAlreadyConnected:
		fmt.Fprintf(&b, ": %q is connected already; disconnect or remove it first", e.Name)
	case CodeNameTaken:
		fmt.Fprintf(&b, ": a plugin named %q is connected; choose another name", e.Name)
	case CodeEgressDisabled:
		fmt.Fprintf(&b, ": allow %s in Settings › Network first (purpose: %s)", strings.Join(e.Hosts, ", "), e.Purpose)
	case CodeThirdPartyOff:
		b.WriteString(": allow third-party plugins first")
	case CodeNeedsHTTPS:
		b.WriteString(": a server off this computer must be reached over https")
	case CodeNeedsSignIn:
		b.WriteString(": the server refused the key; give a key it accepts")
	case CodeNeedsKey:
		fmt.Fprintf(&b, ": %q needs its key to connect", e.Name)
	case CodeUnreachable:
		b.WriteString(": the server could not be listed")
	case CodeDisconnected:
		fmt.Fprintf(&b, ": %q is disconnected; connect it again first", e.Name)
	case CodeBadName:
		b.WriteString(": a plugin's name needs at least one letter or digit")
	case CodeBadKey:
		b.WriteString(": the key has characters a request header cannot carry")
	case CodeApprovalClosed:
		b.WriteString(": this tool does not say it is read-only or harmless, so it always asks")
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IsCode reports whether err is, or wraps, an [*Error] with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// RefusalError is a server's HTTP refusal of a listing: an answer other than
// 2xx, kept after the retries. It keeps the HTTP status and the body's
// reason, which is how a license refusal reaches the checks.
type RefusalError struct {
	URL        string // the server's URL; a URL never carries a credential here
	StatusCode int    // the HTTP status, e.g. 401, 403, 503
	// Reason is the body's "reason" (contract 2: missing_license, expired,
	// revoked, invalid, license_service_unavailable, rate_limited, …), ""
	// when the body has none.
	Reason string
	// Message is the body's human "message", at most 300 characters, "" when
	// none. It is the server's text: show it as such.
	Message string
	// WWWAuthenticate holds the refusal's WWW-Authenticate header values,
	// which name an OAuth server's protected resource metadata.
	WWWAuthenticate []string
	// RetryAfter is the Retry-After header, "" when absent.
	RetryAfter string
}

func (e *RefusalError) Error() string {
	s := fmt.Sprintf("%s refused the listing with HTTP %d", e.URL, e.StatusCode)
	if e.Reason != "" {
		s += " (reason " + e.Reason + ")"
	}
	return s
}

// UnreachableError is a listing that got no usable answer: a network error,
// a timeout, or an answer that is not MCP.
type UnreachableError struct {
	URL string
	// Network is true when the last attempt failed to reach the server or
	// lost the connection (such failures are retried), false when the server
	// answered something that is not an MCP listing.
	Network bool
	Err     error
}

func (e *UnreachableError) Error() string {
	if e.Network {
		return fmt.Sprintf("%s could not be reached: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("%s did not answer as an MCP server: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }
