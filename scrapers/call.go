package scrapers

import (
	"encoding/json"
	"sync"
)

// Call collects what one tool call produces. A tool adds items as it goes, so
// that when the deadline or a cancel ends it early the host still returns what
// was gathered, marked partial. Call is safe for concurrent use. The zero value
// is not usable: the host makes one per call with [NewCall].
type Call struct {
	mu       sync.Mutex
	items    []json.RawMessage
	partial  bool
	reasons  []string
	meta     map[string]any
	failed   []Failed
	images   []Image
	progress func(message string, done, total int)
}

// NewCall returns an empty Call. progress, when non-nil, receives the tool's
// progress reports (the host forwards them as MCP progress notifications).
func NewCall(progress func(message string, done, total int)) *Call {
	return &Call{progress: progress}
}

// Add appends one item (a struct or map that marshals to a JSON object; it
// should name where it came from in a "url" field). An item that cannot be
// marshalled is dropped and the call marked partial.
func (c *Call) Add(item any) { c.add(item, nil) }

// Image is a picture a tool returns beside its items: the host sends it as
// an MCP image content, after the text, with the page of items that holds
// its item (so get_result's pages carry theirs too).
type Image struct {
	// Item is the index of the item it shows (the order of Add).
	Item     int    `json:"item"`
	MIMEType string `json:"mime_type"` // image/png
	Data     []byte `json:"data"`
}

// AddWithImage appends one item, as Add does, with a picture of it
// (mimeType, data: a PNG screenshot). The item should say what the picture
// is (its size, what was cut), since a client that reads only text never
// sees it. An item that cannot be marshalled is dropped with its picture.
func (c *Call) AddWithImage(item any, mimeType string, data []byte) {
	c.add(item, &Image{MIMEType: mimeType, Data: data})
}

// add appends item and, when img is not nil, its picture.
func (c *Call) add(item any, img *Image) {
	b, err := json.Marshal(item)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.partial = true
		c.reasons = append(c.reasons, "an item could not be encoded: "+err.Error())
		return
	}
	c.items = append(c.items, b)
	if img != nil {
		img.Item = len(c.items) - 1
		c.images = append(c.images, *img)
	}
}

// Failed is the item recorded for a source (page, query, product) that failed
// while the call as a whole went on.
type Failed struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// Fail records that one source failed (as an item with its url and error) and
// marks the call partial: a failed page is reported per page, not as a failed
// call.
func (c *Call) Fail(source string, err error) {
	f := Failed{URL: source, Error: err.Error()}
	c.Add(f)
	c.mu.Lock()
	c.failed = append(c.failed, f)
	c.mu.Unlock()
	c.MarkPartial("some sources failed")
}

// MarkPartial marks the result partial and says why (once per distinct reason).
func (c *Call) MarkPartial(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.partial = true
	for _, r := range c.reasons {
		if r == reason {
			return
		}
	}
	c.reasons = append(c.reasons, reason)
}

// SetMeta sets a result-level field beside the items (results_provider, …).
func (c *Call) SetMeta(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.meta == nil {
		c.meta = map[string]any{}
	}
	c.meta[key] = value
}

// Progress reports progress: done of total units (total 0 when unknown).
func (c *Call) Progress(message string, done, total int) {
	if c.progress != nil {
		c.progress(message, done, total)
	}
}

// Outcome is a snapshot of what a call gathered.
type Outcome struct {
	Items   []json.RawMessage
	Partial bool
	Reasons []string
	Meta    map[string]any
	// Failed are the sources recorded with Fail (they are among Items too).
	Failed []Failed
	// Images are the pictures added with AddWithImage, in item order.
	Images []Image
}

// Snapshot returns a copy of what the call has gathered so far.
func (c *Call) Snapshot() Outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := Outcome{
		Items:   append([]json.RawMessage(nil), c.items...),
		Partial: c.partial,
		Reasons: append([]string(nil), c.reasons...),
		Failed:  append([]Failed(nil), c.failed...),
		Images:  append([]Image(nil), c.images...),
	}
	if len(c.meta) > 0 {
		o.Meta = make(map[string]any, len(c.meta))
		for k, v := range c.meta {
			o.Meta[k] = v
		}
	}
	return o
}

// Len is the number of items added so far.
func (c *Call) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
