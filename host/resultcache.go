package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/scrapers"
)

// The shared result cache (CONTRACTS.md, "Tool results": Cache): identical
// calls (plugin, tool, canonical arguments; never the license) within
// RESULT_CACHE_TTL are answered from one run. resultcache holds the runs and
// the answers; this file is what a call brings to it: the max_age_seconds
// argument and the key.

// MaxAgeArg is the argument every scraper tool takes beside its own: the
// oldest cached answer the caller accepts, in seconds (0 fetches afresh).
// The host takes it out before the tool decodes its (strict) arguments, and
// publishes it in every tool's input schema.
const MaxAgeArg = "max_age_seconds"

// maxMaxAge bounds max_age_seconds (a day); answers are kept only for
// RESULT_CACHE_TTL anyway.
const maxMaxAge = 86400

// withMaxAge returns s with the max_age_seconds property added (s is not
// changed).
func withMaxAge(s *jsonschema.Schema, ttl time.Duration) *jsonschema.Schema {
	if s == nil {
		s = &jsonschema.Schema{Type: "object"}
	}
	out := *s
	out.Properties = make(map[string]*jsonschema.Schema, len(s.Properties)+1)
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	zero, most := 0.0, float64(maxMaxAge)
	desc := "How old a cached answer to this same call may be, in seconds; 0 fetches afresh. Cached answers say cached: true and fetched_at."
	if ttl > 0 {
		desc = fmt.Sprintf("How old a cached answer to this same call may be, in seconds (default and at most %d, the host's cache lifetime); 0 fetches afresh. Cached answers say cached: true and fetched_at.", int(ttl/time.Second))
	}
	out.Properties[MaxAgeArg] = &jsonschema.Schema{Type: "integer", Minimum: &zero, Maximum: &most, Description: desc}
	if len(s.PropertyOrder) > 0 {
		out.PropertyOrder = append(append([]string(nil), s.PropertyOrder...), MaxAgeArg)
	}
	return &out
}

// splitMaxAge takes max_age_seconds out of a call's arguments. maxAge is
// negative when the call did not send it (the cache's TTL applies). Anything
// that is not a JSON object is left for the tool to refuse.
func splitMaxAge(raw json.RawMessage) (json.RawMessage, time.Duration, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || !bytes.Contains(trimmed, []byte(MaxAgeArg)) {
		return raw, -1, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(trimmed, &m) != nil {
		return raw, -1, nil
	}
	v, ok := m[MaxAgeArg]
	if !ok {
		return raw, -1, nil
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if err != nil || n < 0 || n > maxMaxAge {
		return nil, 0, scrapers.Argf(MaxAgeArg, "must be a whole number of seconds from 0 (fetch afresh) to %d", maxMaxAge)
	}
	delete(m, MaxAgeArg)
	rest, err := json.Marshal(m)
	if err != nil {
		return nil, 0, scrapers.Argf("arguments", "could not be read: %v", err)
	}
	return rest, time.Duration(n) * time.Second, nil
}

// question reads a call's arguments: what the tool gets (without
// max_age_seconds), the age the caller accepts, and the call's cache key
// ("" when the cache is off or the arguments cannot be canonicalised). An
// error is the tool's own argument error, found before anything runs.
func (h *Host) question(p scrapers.Plugin, t scrapers.Tool, raw json.RawMessage) (json.RawMessage, time.Duration, string, error) {
	args, maxAge, err := splitMaxAge(raw)
	if err != nil || !h.cache.Enabled() {
		return args, maxAge, "", err
	}
	var canon []byte
	if t.Canonical != nil {
		if canon, err = t.Canonical(args); err != nil {
			return nil, 0, "", err
		}
	} else if canon, err = scrapers.CanonicalArgs(args, t.InputSchema); err != nil {
		return args, maxAge, "", nil // the tool says what is wrong
	}
	return args, maxAge, resultcache.Key(p.ID, t.Name, canon), nil
}

// published is t as tools/list shows it: taking max_age_seconds while the
// cache is on.
func (h *Host) published(t scrapers.Tool) scrapers.Tool {
	if h.cache.Enabled() {
		t.InputSchema = withMaxAge(t.InputSchema, h.cache.TTL())
	}
	return t
}

// newResultCache builds the host's cache from its configuration and stores.
func newResultCache(cfg Config, st Stores, log *slog.Logger) *resultcache.Cache {
	return resultcache.New(resultcache.Options{TTL: cfg.ResultCacheTTL, Store: st.ResultCache, Leases: st.ResultLeases,
		Grace: stopGrace, Logger: log})
}
