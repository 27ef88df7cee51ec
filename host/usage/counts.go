package usage

// Counts are what one license used in one period, of one tool or summed.
type Counts struct {
	// Calls are the tool calls answered (whatever the result: a tool error
	// is an answer).
	Calls int64 `json:"calls"`
	// Refused are the calls refused before they ran, by reason.
	Refused Refused `json:"refused"`
	// Items are the items returned (in the result or kept for get_result).
	Items int64 `json:"items"`
	// UpstreamRequests are the requests made to sites, retries and requests
	// through proxies included; UpstreamBytes their body bytes.
	UpstreamRequests int64 `json:"upstream_requests"`
	UpstreamBytes    int64 `json:"upstream_bytes"`
	// Blocked, Partial and Cancelled are calls answered that ended so: a
	// site blocked them, they returned part of what was asked, or they were
	// cancelled (POST /cancel or the client's notifications/cancelled).
	Blocked   int64 `json:"blocked"`
	Partial   int64 `json:"partial"`
	Cancelled int64 `json:"cancelled"`
	// Cached are calls answered from the shared result cache: an identical
	// call's stored answer, fetched again from no site (their upstream
	// requests are zero).
	Cached int64 `json:"cached"`
}

// Refused are calls refused before they ran, by reason.
type Refused struct {
	// RateLimited: over the per-minute limit of the license and plugin.
	RateLimited int64 `json:"rate_limited"`
	// Concurrency: over MAX_CONCURRENT_CALLS in flight.
	Concurrency int64 `json:"concurrency"`
	// License: refused by the license check (only keys the license service
	// knows: see the host's licensecheck.go).
	License int64 `json:"license"`
}

// Fields are the names of the counters, in the order of [Counts.Values]:
// the names Redis stores them under.
var Fields = [...]string{
	"calls", "refused_rate_limited", "refused_concurrency", "refused_license",
	"items", "upstream_requests", "upstream_bytes", "blocked", "partial", "cancelled", "cached",
}

// NumFields is len(Fields).
const NumFields = len(Fields)

// MadeFields is how many of the first Fields are calls made (answered or
// refused): the sum [Counts.Made] that ranks licenses.
const MadeFields = 4

// Values are the counters in the order of [Fields].
func (c Counts) Values() [NumFields]int64 {
	return [NumFields]int64{c.Calls, c.Refused.RateLimited, c.Refused.Concurrency, c.Refused.License,
		c.Items, c.UpstreamRequests, c.UpstreamBytes, c.Blocked, c.Partial, c.Cancelled, c.Cached}
}

// ptrs are the counters' addresses in the order of Fields.
func (c *Counts) ptrs() [NumFields]*int64 {
	return [NumFields]*int64{&c.Calls, &c.Refused.RateLimited, &c.Refused.Concurrency, &c.Refused.License,
		&c.Items, &c.UpstreamRequests, &c.UpstreamBytes, &c.Blocked, &c.Partial, &c.Cancelled, &c.Cached}
}

// Set sets the counter named field (one of [Fields]) to v; it reports
// whether the name is one.
func (c *Counts) Set(field string, v int64) bool {
	for i, f := range Fields {
		if f == field {
			*c.ptrs()[i] = v
			return true
		}
	}
	return false
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Calls += o.Calls
	c.Refused.RateLimited += o.Refused.RateLimited
	c.Refused.Concurrency += o.Refused.Concurrency
	c.Refused.License += o.Refused.License
	c.Items += o.Items
	c.UpstreamRequests += o.UpstreamRequests
	c.UpstreamBytes += o.UpstreamBytes
	c.Blocked += o.Blocked
	c.Partial += o.Partial
	c.Cancelled += o.Cancelled
	c.Cached += o.Cached
}

// Made are the calls made: answered or refused.
func (c Counts) Made() int64 {
	return c.Calls + c.Refused.RateLimited + c.Refused.Concurrency + c.Refused.License
}

// IsZero reports whether every counter is zero.
func (c Counts) IsZero() bool { return c == Counts{} }
