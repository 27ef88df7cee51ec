package scrapers

import (
	"container/list"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// PageBudget bounds the pages in flight in one process, across every plugin
// and call that share it: how many (MaxPages), and how many bytes they hold
// while their bodies are read and parsed (MaxBytes). The host makes one from
// MAX_PAGES_IN_FLIGHT and PAGES_MEMORY and gives it to every plugin
// (Env.Pages); per-site politeness (a fetcher's Site.MaxConcurrent and
// MinInterval, web-crawl's pages per host) is apart from it and still holds.
//
// A page takes a place with a first guess of its size ([PageBudget.Acquire])
// and grows its hold as its body comes ([PageHold.Grow]). A new page waits
// while the count or the bytes are used up; a page that grows past the
// bytes waits for room too, except the oldest page in flight, which always
// goes on, so that the pages in flight can never wait on each other. What the
// pages hold is therefore at most MaxBytes plus one page's own cap.
//
// The zero value is not usable; a nil *PageBudget bounds nothing.
type PageBudget struct {
	maxPages int
	maxBytes int64

	mu      sync.Mutex
	pages   int
	bytes   int64
	growing int           // holds waiting to grow: new pages wait behind them
	order   *list.List    // holds in flight, oldest first
	changed chan struct{} // closed and replaced whenever room is given back
	waits   int64         // pages and growths that had to wait, in all
}

// DefaultMaxPagesInFlight is MAX_PAGES_IN_FLIGHT's default: far above what
// the sites' politeness lets one replica fetch from a few sites, so that
// with many sites the bytes are what binds.
const DefaultMaxPagesInFlight = 1024

// NewPageBudget makes a budget of maxPages pages and maxBytes bytes; a
// value ≤ 0 takes the default (DefaultMaxPagesInFlight, DefaultPageMemory).
func NewPageBudget(maxPages int, maxBytes int64) *PageBudget {
	if maxPages <= 0 {
		maxPages = DefaultMaxPagesInFlight
	}
	if maxBytes <= 0 {
		maxBytes = DefaultPageMemory()
	}
	return &PageBudget{maxPages: maxPages, maxBytes: maxBytes, order: list.New(), changed: make(chan struct{})}
}

var (
	defaultBudgetOnce sync.Once
	defaultBudget     *PageBudget
)

// DefaultPageBudget is the process's budget with the defaults, for plugins
// built without Env.Pages (tests, the bench's bare server): one for the
// whole process, as the host's is.
func DefaultPageBudget() *PageBudget {
	defaultBudgetOnce.Do(func() { defaultBudget = NewPageBudget(0, 0) })
	return defaultBudget
}

// PageBudgetStats is what a budget holds now.
type PageBudgetStats struct {
	Pages, MaxPages int
	Bytes, MaxBytes int64
	Waits           int64 // pages and growths that waited for room, since the start
}

// Stats reports the pages and bytes held now and the limits.
func (b *PageBudget) Stats() PageBudgetStats {
	if b == nil {
		return PageBudgetStats{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return PageBudgetStats{Pages: b.pages, MaxPages: b.maxPages, Bytes: b.bytes, MaxBytes: b.maxBytes, Waits: b.waits}
}

// PageHold is one page's place in a budget. Release it once, when the page
// is done; a nil hold (from a nil budget) does nothing.
type PageHold struct {
	b     *PageBudget
	el    *list.Element
	bytes int64
}

// Acquire waits for a place for one page that first holds size bytes (at
// most MaxBytes), and returns the hold; the error is ctx's when it ends
// first.
func (b *PageBudget) Acquire(ctx context.Context, size int64) (*PageHold, error) {
	if b == nil {
		return nil, nil
	}
	size = min(max(size, 0), b.maxBytes)
	waited := false
	for {
		b.mu.Lock()
		if b.growing == 0 && b.pages < b.maxPages && (b.bytes+size <= b.maxBytes || b.pages == 0) {
			b.pages++
			b.bytes += size
			h := &PageHold{b: b, bytes: size}
			h.el = b.order.PushBack(h)
			b.mu.Unlock()
			return h, nil
		}
		if !waited {
			waited = true
			b.waits++
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Grow makes the hold total bytes when it holds fewer, waiting for room
// unless the page is the oldest in flight; the error is ctx's when it ends
// first (the hold is unchanged and must still be released).
func (h *PageHold) Grow(ctx context.Context, total int64) error {
	if h == nil {
		return nil
	}
	b := h.b
	waited, counted := false, false
	defer func() {
		if counted {
			b.mu.Lock()
			b.growing--
			b.mu.Unlock()
			b.wake()
		}
	}()
	for {
		b.mu.Lock()
		if h.el == nil || total <= h.bytes {
			b.mu.Unlock()
			return nil
		}
		more := total - h.bytes
		if b.bytes+more <= b.maxBytes || b.order.Front() == h.el {
			b.bytes += more
			h.bytes = total
			b.mu.Unlock()
			return nil
		}
		if !waited {
			waited, counted = true, true
			b.waits++
			b.growing++
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Bytes is what the hold holds now.
func (h *PageHold) Bytes() int64 {
	if h == nil {
		return 0
	}
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	return h.bytes
}

// Release gives the page's place and bytes back. Later calls do nothing.
func (h *PageHold) Release() {
	if h == nil {
		return
	}
	b := h.b
	b.mu.Lock()
	if h.el == nil {
		b.mu.Unlock()
		return
	}
	b.order.Remove(h.el)
	h.el = nil
	b.pages--
	b.bytes -= h.bytes
	h.bytes = 0
	b.mu.Unlock()
	b.wake()
}

// wake tells every waiter that room may have come.
func (b *PageBudget) wake() {
	b.mu.Lock()
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// DefaultPageMemory is PAGES_MEMORY's default: a quarter of the memory the
// container may use (its cgroup's limit, else the machine's), at least
// 64 MiB.
func DefaultPageMemory() int64 {
	return max(MemoryLimit()/4, 64<<20)
}

// MemoryLimit is the memory this process may use: the cgroup's limit
// (v2 memory.max, v1 memory.limit_in_bytes) when it has one, else the
// machine's (MemTotal), else 1 GiB.
func MemoryLimit() int64 {
	total := int64(1 << 30)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
						total = kb << 10
					}
				}
			}
		}
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < total {
			return n // "max" or a v1 "no limit" larger than the machine: the machine's
		}
	}
	return total
}

// ParseBytes reads a size such as 268435456, 256MiB, 512MB or 1GiB
// (KiB, MiB, GiB and KB, MB, GB; a bare number is bytes).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size such as 256MiB or 1GiB", s)
	}
	return n * mult, nil
}

type pageHoldCtxKey struct{}

// WithPageHold returns ctx carrying hold, for the code that reads the
// page's body to grow it (PageHoldFrom).
func WithPageHold(ctx context.Context, hold *PageHold) context.Context {
	return context.WithValue(ctx, pageHoldCtxKey{}, hold)
}

// PageHoldFrom is the hold ctx carries; nil (which bounds nothing) when none.
func PageHoldFrom(ctx context.Context) *PageHold {
	h, _ := ctx.Value(pageHoldCtxKey{}).(*PageHold)
	return h
}
