package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// Page is the JSON a tool result carries: items, and when the items did not
// all fit, where the rest is.
type Page struct {
	Items          []json.RawMessage `json:"items"`
	Partial        bool              `json:"partial"`
	PartialReasons []string          `json:"partial_reasons,omitempty"`
	TotalItems     int               `json:"total_items"`
	Offset         int               `json:"offset"`
	ResultID       string            `json:"result_id,omitempty"`
	NextOffset     *int              `json:"next_offset,omitempty"`
	Meta           map[string]any    `json:"-"`
}

// MarshalJSON puts the meta fields (results_provider, …) beside the others.
func (p Page) MarshalJSON() ([]byte, error) {
	type plain Page
	b, err := json.Marshal(plain(p))
	if err != nil || len(p.Meta) == 0 {
		return b, err
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range p.Meta {
		if _, taken := m[k]; taken {
			continue
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = vb
	}
	return json.Marshal(m)
}

// page takes the items from offset that fit in RESULT_MAX_BYTES (at least
// one), storing the whole result for get_result when they do not all fit.
func (h *Host) page(ctx context.Context, c caller, plugin, tool string, out scrapers.Outcome, offset int, resultID string) (Page, error) {
	p := Page{Partial: out.Partial, PartialReasons: out.Reasons, TotalItems: len(out.Items), Offset: offset, Meta: out.Meta, ResultID: resultID}
	size := 0
	end := offset
	for end < len(out.Items) {
		n := len(out.Items[end]) + 1
		if end > offset && size+n > h.cfg.ResultMaxBytes {
			break
		}
		size += n
		end++
	}
	p.Items = out.Items[offset:end]
	if end < len(out.Items) {
		if p.ResultID == "" {
			id, err := h.stores.Results.Put(ctx, c.LicenseHash, storedFrom(plugin, tool, out))
			if err != nil {
				return Page{}, fmt.Errorf("the result was too large to return whole and could not be kept for get_result: %v", err)
			}
			p.ResultID = id
		}
		next := end
		p.NextOffset = &next
	}
	if p.Items == nil {
		p.Items = []json.RawMessage{}
	}
	return p, nil
}
