package resultcache

import (
	"encoding/json"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// Entry is a stored answer: the items of a whole run, its result-level
// fields (results_provider, …), its pictures (screenshots) and when its run
// started fetching.
type Entry struct {
	Items     []json.RawMessage `json:"items"`
	Meta      map[string]any    `json:"meta,omitempty"`
	Images    []scrapers.Image  `json:"images,omitempty"`
	FetchedAt time.Time         `json:"fetched_at"`
}

// Size is an estimate of the entry's bytes, for the bounds of a Store.
func (e *Entry) Size() int {
	n := 64
	for _, it := range e.Items {
		n += len(it) + 24
	}
	for _, im := range e.Images {
		n += len(im.Data)*4/3 + 64 // stored as base64
	}
	for k, v := range e.Meta {
		b, _ := json.Marshal(v)
		n += len(k) + len(b) + 16
	}
	return n
}

// Outcome is the entry as a call's outcome.
func (e *Entry) Outcome() scrapers.Outcome {
	return scrapers.Outcome{Items: e.Items, Meta: e.Meta, Images: e.Images}
}

// Cacheable reports whether a run's end may be stored: it finished by
// itself (runErr and cause nil), whole (not partial, no failed source) and
// found something. Partial, blocked and failed results are never stored.
func Cacheable(out scrapers.Outcome, runErr, cause error) bool {
	return runErr == nil && cause == nil && !out.Partial && len(out.Failed) == 0 && len(out.Items) > 0
}
