package client

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Egress is the user's consent per host (Settings › Network): a request
// leaves only for a host it allows. Hosts are lowercase names or addresses
// without port.
type Egress interface {
	Allowed(host string) bool
}

// EgressRecorder is an [Egress] that also records a host asked about and
// refused, so Settings › Network can list it as off.
type EgressRecorder interface {
	Egress
	RecordOff(host, purpose string)
}

// EgressFunc adapts a function to [Egress].
type EgressFunc func(host string) bool

// Allowed implements [Egress].
func (f EgressFunc) Allowed(host string) bool { return f(host) }

// Consents is an [EgressRecorder] in memory. Its zero value allows nothing.
type Consents struct {
	mu      sync.Mutex
	allowed map[string]bool
	off     map[string]string // host → purpose it was refused for
}

// Allow allows hosts.
func (c *Consents) Allow(hosts ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.allowed == nil {
		c.allowed = map[string]bool{}
	}
	for _, h := range hosts {
		c.allowed[normHost(h)] = true
		delete(c.off, normHost(h))
	}
}

// Disallow takes hosts' consent back.
func (c *Consents) Disallow(hosts ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range hosts {
		delete(c.allowed, normHost(h))
	}
}

// Allowed implements [Egress].
func (c *Consents) Allowed(host string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.allowed[normHost(host)]
}

// RecordOff implements [EgressRecorder].
func (c *Consents) RecordOff(host, purpose string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off == nil {
		c.off = map[string]string{}
	}
	c.off[normHost(host)] = purpose
}

// Off returns the hosts recorded off, with the purpose each was asked for.
func (c *Consents) Off() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.off))
	for k, v := range c.off {
		out[k] = v
	}
	return out
}

func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]")), ".")
}

// notAllowed returns the hosts egress does not allow, sorted and without
// repeats; a nil egress allows every host. Hosts refused are recorded off
// when egress records.
func notAllowed(egress Egress, purpose string, hosts ...string) []string {
	if egress == nil {
		return nil
	}
	var out []string
	for _, h := range hosts {
		h = normHost(h)
		if h == "" || slices.Contains(out, h) {
			continue
		}
		if !egress.Allowed(h) {
			out = append(out, h)
			if r, ok := egress.(EgressRecorder); ok {
				r.RecordOff(h, purpose)
			}
		}
	}
	slices.Sort(out)
	return out
}

func egressError(purpose string, hosts []string) *Error {
	return &Error{Status: 403, Code: CodeEgressDisabled, Hosts: hosts, Purpose: purpose}
}

// consentedTransport refuses a request to a host egress does not allow
// before it leaves, redirects included.
type consentedTransport struct {
	base   http.RoundTripper
	egress Egress
}

// errHostOff is a request refused because its host is not allowed.
type errHostOff struct{ host string }

func (e *errHostOff) Error() string {
	return fmt.Sprintf("%s is not allowed in Settings › Network", e.host)
}

func (t *consentedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.egress != nil && !t.egress.Allowed(normHost(req.URL.Hostname())) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &errHostOff{host: normHost(req.URL.Hostname())}
	}
	return t.base.RoundTrip(req)
}
