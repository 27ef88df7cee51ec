package usage

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxEntries bounds a [Memory] or a [Buffer]: the most (license,
// period, plugin, tool) entries it holds.
const DefaultMaxEntries = 200_000

// Memory is the usage store of one replica without Redis. Days older than
// DayRetention and months older than MonthRetention are dropped as days
// pass; at most MaxEntries entries are held, and an event that would need a
// new one beyond that is not counted ([Memory.Dropped] says how many).
// The zero value is ready.
type Memory struct {
	// MaxEntries bounds the entries; zero is DefaultMaxEntries.
	MaxEntries int

	mu      sync.Mutex
	lics    map[string]*licenseUsage
	entries int
	newest  Day
	dropped atomic.Int64
}

type licenseUsage struct {
	plan   string
	days   map[Day]Table
	months map[Month]Table
}

var _ Store = (*Memory)(nil)

// Add counts e.
func (m *Memory) Add(e Event) {
	day, month := dayMonthOf(e.Time)
	k := Tool{e.Plugin, e.Tool}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lics == nil {
		m.lics = map[string]*licenseUsage{}
	}
	if day > m.newest {
		m.newest = day
		m.prune(day)
	}
	l := m.lics[e.License]
	if l == nil {
		l = &licenseUsage{days: map[Day]Table{}, months: map[Month]Table{}}
		m.lics[e.License] = l
	}
	if e.Plan != "" {
		l.plan = e.Plan
	}
	dt, mt := l.days[day], l.months[month]
	_, inDay := dt[k]
	_, inMonth := mt[k]
	need := 0
	if !inDay {
		need++
	}
	if !inMonth {
		need++
	}
	if need > 0 && m.entries+need > m.max() {
		m.dropped.Add(1)
		return
	}
	m.entries += need
	if dt == nil {
		dt = Table{}
		l.days[day] = dt
	}
	if mt == nil {
		mt = Table{}
		l.months[month] = mt
	}
	c := dt[k]
	c.Add(e.Counts)
	dt[k] = c
	c = mt[k]
	c.Add(e.Counts)
	mt[k] = c
}

func (m *Memory) max() int {
	if m.MaxEntries > 0 {
		return m.MaxEntries
	}
	return DefaultMaxEntries
}

// prune drops what is past its retention on day today. m.mu is held.
func (m *Memory) prune(today Day) {
	t := today.Time()
	oldestDay := DayOf(t.Add(-DayRetention + 24*time.Hour))
	oldestMonth := MonthOf(t.Add(-MonthRetention))
	for h, l := range m.lics {
		for d, tab := range l.days {
			if d < oldestDay {
				m.entries -= len(tab)
				delete(l.days, d)
			}
		}
		for mo, tab := range l.months {
			if mo < oldestMonth {
				m.entries -= len(tab)
				delete(l.months, mo)
			}
		}
		if len(l.days) == 0 && len(l.months) == 0 {
			delete(m.lics, h)
		}
	}
}

// Dropped is how many events were not counted because MaxEntries was reached.
func (m *Memory) Dropped() int64 { return m.dropped.Load() }

// Days are license's counts on days.
func (m *Memory) Days(_ context.Context, license string, days []Day) (map[Day]Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[Day]Table{}
	l := m.lics[license]
	if l == nil {
		return out, nil
	}
	for _, d := range days {
		if t := l.days[d]; len(t) > 0 {
			out[d] = cloneTable(t)
		}
	}
	return out, nil
}

// Month is license's counts in mo.
func (m *Memory) Month(_ context.Context, license string, mo Month) (Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.lics[license]; l != nil {
		return cloneTable(l.months[mo]), nil
	}
	return Table{}, nil
}

// Top are the n licenses that made most calls in p.
func (m *Memory) Top(_ context.Context, p Period, n int) ([]Ranked, error) {
	m.mu.Lock()
	var out []Ranked
	for h, l := range m.lics {
		var t Table
		if p.Day != "" {
			t = l.days[p.Day]
		} else {
			t = l.months[p.Month]
		}
		if tot := t.Total(); !tot.IsZero() {
			out = append(out, Ranked{License: h, Plan: l.plan, Counts: tot})
		}
	}
	m.mu.Unlock()
	SortRanked(out)
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// SortRanked orders licenses by calls made, most first, then by hash.
func SortRanked(r []Ranked) {
	slices.SortFunc(r, func(a, b Ranked) int {
		if a.Counts.Made() != b.Counts.Made() {
			if a.Counts.Made() > b.Counts.Made() {
				return -1
			}
			return 1
		}
		if a.License < b.License {
			return -1
		}
		if a.License > b.License {
			return 1
		}
		return 0
	})
}

func cloneTable(t Table) Table {
	out := make(Table, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}
