package usage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
)

// Entry is one license's counts of one tool on one day, as a [Buffer]
// hands them to its [Sink]. The sink counts them in the day and in its
// month.
type Entry struct {
	License string
	Plan    string // the last plan seen in the events summed, "" when none
	Day     Day
	Plugin  string
	Tool    string
	Counts  Counts
}

// Batch is entries written at once. ID is unique to the batch; a batch is
// written again, with the same ID, only when the effect of the last attempt
// is unknown.
type Batch struct {
	ID      string
	Entries []Entry
}

// Sink writes batches to a shared store (host/redisstore).
type Sink interface {
	// Write counts b's entries. A batch written twice with one ID is
	// counted once: an error may come after the store applied it (a lost
	// answer), and the Buffer then writes it again.
	Write(ctx context.Context, b Batch) error
}

// ErrNotWritten is wrapped by a Sink's error when nothing of the batch was
// sent (the store is known to be down): the Buffer then sums the batch back
// into what it holds, where new events add to it. After any other error the
// batch may have been applied, and is written again as it was, with its ID.
var ErrNotWritten = errors.New("usage batch not written")

// DefaultBatchSize is how many entries a [Buffer] writes in one batch.
const DefaultBatchSize = 256

// Buffer sums events in memory and writes them to a Sink when flushed: on
// every call's path Add only takes a lock and adds to a map entry. What a
// flush could not write is kept, and written first by the next flush, with
// the same batch ids. It holds at most MaxEntries entries (license, day,
// plugin, tool) between what waits to be written and what came since; an
// event that needs a new entry beyond that is dropped and counted in
// [Buffer.Dropped]. Events adding to an entry already held are never
// dropped, so a long outage loses only the first use of a new license,
// tool or day past the bound.
type Buffer struct {
	sink      Sink
	max       int
	batchSize int

	mu             sync.Mutex
	cur            map[entryKey]*Entry
	pending        []Batch // cut from cur, not yet written
	pendingEntries int
	// pendingKeys are the entries of pending; overlap counts those that
	// also have an entry in cur again (events that came while their batch
	// was being written), so the bound counts each entry once.
	pendingKeys map[entryKey]struct{}
	overlap     int
	dropped     atomic.Int64

	flushMu sync.Mutex // one flush at a time
	idBase  string
	seq     atomic.Uint64
}

type entryKey struct {
	license      string
	day          Day
	plugin, tool string
}

// NewBuffer is a Buffer writing to sink. maxEntries <= 0 is
// DefaultMaxEntries; batchSize <= 0 is DefaultBatchSize.
func NewBuffer(sink Sink, maxEntries, batchSize int) *Buffer {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	return &Buffer{sink: sink, max: maxEntries, batchSize: batchSize, cur: map[entryKey]*Entry{}, idBase: hex.EncodeToString(id[:]) + "-"}
}

// Add sums e into the entry of its license, day, plugin and tool.
func (b *Buffer) Add(e Event) {
	day, _ := dayMonthOf(e.Time)
	k := entryKey{e.License, day, e.Plugin, e.Tool}
	b.mu.Lock()
	en := b.cur[k]
	if en == nil {
		_, held := b.pendingKeys[k]
		if !held && b.heldLocked() >= b.max {
			b.mu.Unlock()
			b.dropped.Add(1)
			return
		}
		if held {
			b.overlap++
		}
		en = &Entry{License: k.license, Day: k.day, Plugin: k.plugin, Tool: k.tool}
		b.cur[k] = en
	}
	en.Counts.Add(e.Counts)
	if e.Plan != "" {
		en.Plan = e.Plan
	}
	b.mu.Unlock()
}

// Flush writes what the Buffer holds: first what an earlier flush could
// not write, then what came since. On an error it stops, keeping the rest
// for the next flush.
func (b *Buffer) Flush(ctx context.Context) error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	for range 2 { // what was pending, then what is new
		b.mu.Lock()
		if len(b.pending) == 0 {
			b.cut()
		}
		pending := b.pending
		b.mu.Unlock()
		if len(pending) == 0 {
			return nil
		}
		done, written := 0, 0
		var err error
		for _, bt := range pending {
			if err = b.sink.Write(ctx, bt); err != nil {
				break
			}
			done++
			written += len(bt.Entries)
		}
		b.mu.Lock()
		for _, bt := range b.pending[:done] {
			for _, e := range bt.Entries {
				k := entryKey{e.License, e.Day, e.Plugin, e.Tool}
				delete(b.pendingKeys, k)
				if b.cur[k] != nil {
					b.overlap--
				}
			}
		}
		b.pending = b.pending[done:]
		b.pendingEntries -= written
		if err != nil && errors.Is(err, ErrNotWritten) {
			b.unpend()
		}
		if len(b.pending) == 0 {
			b.pending = nil
		}
		b.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// cut moves cur into pending batches. b.mu is held.
func (b *Buffer) cut() {
	if len(b.cur) == 0 {
		return
	}
	entries := make([]Entry, 0, len(b.cur))
	for _, e := range b.cur {
		entries = append(entries, *e)
	}
	b.pendingEntries = len(entries)
	b.pendingKeys = make(map[entryKey]struct{}, len(entries))
	for k := range b.cur {
		b.pendingKeys[k] = struct{}{}
	}
	b.overlap = 0
	for len(entries) > 0 {
		n := min(b.batchSize, len(entries))
		b.pending = append(b.pending, Batch{ID: b.idBase + strconv.FormatUint(b.seq.Add(1), 10), Entries: entries[:n:n]})
		entries = entries[n:]
	}
	b.cur = make(map[entryKey]*Entry, len(b.cur))
}

// unpend sums the pending batches, none of them sent, back into cur, so
// that events coming during a fault add to the entries held rather than
// needing new ones. b.mu is held.
func (b *Buffer) unpend() {
	for _, bt := range b.pending {
		for _, e := range bt.Entries {
			k := entryKey{e.License, e.Day, e.Plugin, e.Tool}
			en := b.cur[k]
			if en == nil {
				en = &Entry{License: e.License, Day: e.Day, Plugin: e.Plugin, Tool: e.Tool}
				b.cur[k] = en
			}
			en.Counts.Add(e.Counts)
			if en.Plan == "" {
				en.Plan = e.Plan
			}
		}
	}
	b.pending, b.pendingEntries, b.pendingKeys, b.overlap = nil, 0, nil, 0
}

// Held is how many entries wait to be written.
func (b *Buffer) Held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.heldLocked()
}

// heldLocked counts the entries held, each once: those waiting in pending
// and those in cur that are not also pending. b.mu is held.
func (b *Buffer) heldLocked() int {
	return len(b.cur) + b.pendingEntries - b.overlap
}

// Dropped is how many events were not counted because the bound was reached.
func (b *Buffer) Dropped() int64 { return b.dropped.Load() }
