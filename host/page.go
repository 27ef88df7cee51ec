package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/surfsense/pluginhost/host/results"
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
	// ResultHeldBy names the replica whose memory alone keeps the rest of
	// the result, when the store the replicas share refused it
	// (results.LocalID): get_result answers there only.
	ResultHeldBy string `json:"result_held_by,omitempty"`
	NextOffset   *int   `json:"next_offset,omitempty"`
	// CutItems names the items on this page that were cut to fit
	// RESULT_MAX_BYTES; get_result with whole returns each uncut.
	CutItems []CutItem `json:"cut_items,omitempty"`
	// Cached and FetchedAt mark an answer from the shared result cache
	// (resultcache.go): when its run began fetching.
	Cached    bool           `json:"cached,omitempty"`
	FetchedAt *time.Time     `json:"fetched_at,omitempty"`
	Meta      map[string]any `json:"-"`
	// Images are the pictures of the items on this page (screenshots),
	// sent as image contents after the text.
	Images []scrapers.Image `json:"-"`
}

// CutItem is one item cut to fit a page: its index in the result, its size
// whole, and the fields shortened (dotted paths: "markdown", "links").
type CutItem struct {
	Index  int      `json:"index"`
	Bytes  int      `json:"bytes"`
	Fields []string `json:"fields"`
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

// page takes the items from offset that fit in RESULT_MAX_BYTES, storing the
// whole result for get_result when they do not all fit. A page holds at
// least one item; when that one alone passes RESULT_MAX_BYTES it is cut to
// fit (its longest strings and lists shortened, named in cut_items) and the
// whole result is stored, so that get_result with whole returns it uncut.
// whole asks for the item at offset alone, uncut.
func (h *Host) page(ctx context.Context, c caller, plugin, tool string, out scrapers.Outcome, offset int, resultID string, whole bool) (Page, error) {
	p := Page{Partial: out.Partial, PartialReasons: out.Reasons, TotalItems: len(out.Items), Offset: offset, Meta: out.Meta, ResultID: resultID}
	size := 0
	end := offset
	for end < len(out.Items) {
		n := len(out.Items[end]) + 1
		if end > offset && (whole || size+n > h.cfg.ResultMaxBytes) {
			break
		}
		size += n
		end++
	}
	p.Items = out.Items[offset:end]
	if end == offset+1 && !whole && len(p.Items[0]) > h.cfg.ResultMaxBytes {
		cut, fields := cutToFit(p.Items[0], h.cfg.ResultMaxBytes)
		p.CutItems = []CutItem{{Index: offset, Bytes: len(p.Items[0]), Fields: fields}}
		p.Items = []json.RawMessage{cut}
	}
	if end < len(out.Items) || len(p.CutItems) > 0 {
		if p.ResultID == "" {
			sctx, endSpan := h.childSpan(ctx, "result store")
			id, err := h.stores.Results.Put(sctx, c.LicenseHash, storedFrom(plugin, tool, out))
			endSpan(err, attribute.Int("surfsense.items", len(out.Items)))
			if err != nil {
				return Page{}, fmt.Errorf("the result was too large to return whole and could not be kept for get_result: %v", err)
			}
			p.ResultID = id
		}
	}
	if p.ResultID != "" {
		p.ResultHeldBy, _ = results.HeldBy(p.ResultID)
	}
	if end < len(out.Items) {
		next := end
		p.NextOffset = &next
	}
	if p.Items == nil {
		p.Items = []json.RawMessage{}
	}
	for _, im := range out.Images {
		if im.Item >= offset && im.Item < end {
			p.Images = append(p.Images, im)
		}
	}
	return p, nil
}

// cutToFit shortens the JSON value v until it encodes in at most limit bytes:
// the largest string or list first (strings keep their beginning, lists their
// first entries), into objects and lists as deep as needed. Types are kept,
// so the item still conforms to its schema. It returns the value and the
// paths of what it shortened.
func cutToFit(v json.RawMessage, limit int) (json.RawMessage, []string) {
	var fields []string
	out := cutValue(v, limit, "", &fields)
	return out, fields
}

func cutValue(v json.RawMessage, limit int, path string, fields *[]string) json.RawMessage {
	if len(v) <= limit {
		return v
	}
	switch t := bytes.TrimSpace(v); {
	case len(t) > 0 && t[0] == '"':
		var s string
		if json.Unmarshal(t, &s) != nil {
			return v
		}
		*fields = append(*fields, path)
		for keep := len(s) - (len(t) - limit); ; keep -= max(len(t)-limit, 16) {
			if keep <= 0 {
				return json.RawMessage(`""`)
			}
			for keep > 0 && !utf8.RuneStart(s[keep]) {
				keep--
			}
			if t, _ = json.Marshal(s[:keep]); len(t) <= limit {
				return t
			}
		}
	case len(t) > 0 && t[0] == '[':
		var list []json.RawMessage
		if json.Unmarshal(t, &list) != nil {
			return v
		}
		*fields = append(*fields, path)
		size := 2
		for i, e := range list {
			if size+len(e)+1 > limit {
				if i == 0 && limit > 2 { // the first entry, cut itself
					list = []json.RawMessage{cutValue(e, limit-2, path+".0", fields)}
				} else {
					list = list[:i]
				}
				break
			}
			size += len(e) + 1
		}
		b, _ := json.Marshal(list)
		return b
	case len(t) > 0 && t[0] == '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(t, &obj) != nil {
			return v
		}
		for total := len(t); total > limit; {
			// The largest field is shortened by what the object is over.
			var key string
			for k, f := range obj {
				if key == "" || len(f) > len(obj[key]) || len(f) == len(obj[key]) && k < key {
					key = k
				}
			}
			f := obj[key]
			over := total - limit
			if key == "" || len(f) <= 2 || over >= len(f)-2 && isEmptyJSON(f) {
				break
			}
			obj[key] = cutValue(f, len(f)-over, joinPath(path, key), fields)
			b, _ := json.Marshal(obj)
			if len(b) >= total {
				break // nothing more to shorten
			}
			total = len(b)
		}
		b, _ := json.Marshal(obj)
		return b
	}
	return v
}

func isEmptyJSON(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case `""`, `[]`, `{}`:
		return true
	}
	return false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
