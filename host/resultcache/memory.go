package resultcache

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultMemoryBytes bounds a Memory store whose MaxBytes is zero.
const DefaultMemoryBytes = 64 << 20

// Memory is a Store in this process's memory, bounded: at most MaxBytes
// (estimated by Entry.Size) of entries, the least recently used evicted
// first; an entry larger than an eighth of the bound is not kept. The zero
// value is ready.
type Memory struct {
	// MaxBytes bounds the entries kept; zero is DefaultMemoryBytes.
	MaxBytes int
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time

	mu    sync.Mutex
	lru   list.List // of *memEntry, most recently used first
	byKey map[string]*list.Element
	bytes int
}

type memEntry struct {
	key     string
	e       Entry
	size    int
	expires time.Time
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Memory) max() int {
	if m.MaxBytes > 0 {
		return m.MaxBytes
	}
	return DefaultMemoryBytes
}

// Get returns the entry of key unless it expired.
func (m *Memory) Get(_ context.Context, key string) (Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byKey[key]
	if !ok {
		return Entry{}, false, nil
	}
	me := el.Value.(*memEntry)
	if !m.now().Before(me.expires) {
		m.remove(el)
		return Entry{}, false, nil
	}
	m.lru.MoveToFront(el)
	return me.e, true, nil
}

// Put keeps e for ttl, evicting the least recently used entries to stay in
// bounds.
func (m *Memory) Put(_ context.Context, key string, e Entry, ttl time.Duration) error {
	size := e.Size() + len(key)
	if ttl <= 0 || size > m.max()/8 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byKey == nil {
		m.byKey = map[string]*list.Element{}
	}
	if el, ok := m.byKey[key]; ok {
		m.remove(el)
	}
	m.byKey[key] = m.lru.PushFront(&memEntry{key: key, e: e, size: size, expires: m.now().Add(ttl)})
	m.bytes += size
	for m.bytes > m.max() {
		m.remove(m.lru.Back())
	}
	return nil
}

// Len is the number of entries kept (expired ones included until met).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

func (m *Memory) remove(el *list.Element) {
	me := el.Value.(*memEntry)
	m.lru.Remove(el)
	delete(m.byKey, me.key)
	m.bytes -= me.size
}
