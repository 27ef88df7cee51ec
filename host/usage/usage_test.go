package usage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func at(day string, hour int) time.Time {
	d, _ := ParseDay(day)
	return d.Time().Add(time.Duration(hour) * time.Hour)
}

func ev(lic, plugin, tool string, t time.Time, calls int64) Event {
	return Event{License: lic, Plugin: plugin, Tool: tool, Time: t, Counts: Counts{Calls: calls, Items: 2 * calls}}
}

func TestParseDayAndMonth(t *testing.T) {
	for _, s := range []string{"2026-12-01", "2024-02-29", "0001-01-01"} {
		if _, err := ParseDay(s); err != nil {
			t.Errorf("ParseDay(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "2026-12-1", "2026-13-01", "2025-02-29", "2026-12-01T00:00:00Z", " 2026-12-01", "20261201", "2026-12-01\n"} {
		if _, err := ParseDay(s); err == nil {
			t.Errorf("ParseDay(%q) accepted it", s)
		}
	}
	if _, err := ParseMonth("2026-12"); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"2026-1", "2026-13", "2026-12-01", ""} {
		if _, err := ParseMonth(s); err == nil {
			t.Errorf("ParseMonth(%q) accepted it", s)
		}
	}
	if d := DayOf(time.Date(2026, 12, 31, 23, 59, 59, 0, time.FixedZone("x", -5*3600))); d != "2027-01-01" {
		t.Errorf("DayOf a time west of UTC = %s, want its UTC day 2027-01-01", d)
	}
	for _, tm := range []time.Time{time.Date(2026, 12, 31, 23, 59, 59, 999, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.FixedZone("e", 3600))} {
		d, m := dayMonthOf(tm)
		if d != DayOf(tm) || m != MonthOf(tm) {
			t.Errorf("dayMonthOf(%v) = %s %s, want %s %s", tm, d, m, DayOf(tm), MonthOf(tm))
		}
	}
	if n := Span("2026-10-18", "2026-12-01"); n != 45 {
		t.Errorf("Span = %d, want 45", n)
	}
	if n := Span("2026-12-02", "2026-12-01"); n != 0 {
		t.Errorf("Span backwards = %d", n)
	}
	if n := Span("0001-01-01", "9999-12-31"); n <= MaxRangeDays {
		t.Errorf("Span of the widest range = %d", n)
	}
	if ds := Days("2026-12-30", "2027-01-02"); len(ds) != 4 || ds[3] != "2027-01-02" || ds[2].Month() != "2027-01" {
		t.Errorf("Days = %v", ds)
	}
}

func FuzzParseDay(f *testing.F) {
	for _, s := range []string{"2026-12-01", "2026-02-30", "9999-99-99", "-001-01-01", "2026-12-01\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDay(s)
		if err != nil {
			return
		}
		if string(d) != s || DayOf(d.Time()) != d || Span(d, d) != 1 {
			t.Fatalf("ParseDay(%q) = %q, which does not round-trip", s, d)
		}
	})
}

func TestMemoryCountsPerLicenseDayAndMonth(t *testing.T) {
	ctx := context.Background()
	m := &Memory{}
	m.Add(ev("a", "p", "x", at("2026-11-30", 23), 1))
	m.Add(ev("a", "p", "x", at("2026-12-01", 0), 2))
	m.Add(ev("a", "p", "y", at("2026-12-01", 5), 3))
	m.Add(ev("b", "p", "x", at("2026-12-01", 5), 7))
	days, _ := m.Days(ctx, "a", []Day{"2026-11-30", "2026-12-01", "2026-12-02"})
	if len(days) != 2 || days["2026-11-30"].Total().Calls != 1 || days["2026-12-01"].Total().Calls != 5 || days["2026-12-01"][Tool{"p", "y"}].Items != 6 {
		t.Fatalf("days = %+v", days)
	}
	if mo, _ := m.Month(ctx, "a", "2026-12"); mo.Total().Calls != 5 {
		t.Fatalf("December = %+v", mo)
	}
	if mo, _ := m.Month(ctx, "a", "2026-11"); mo.Total().Calls != 1 {
		t.Fatalf("November = %+v", mo)
	}
	if mo, _ := m.Month(ctx, "c", "2026-12"); len(mo) != 0 {
		t.Fatalf("a license that used nothing = %+v", mo)
	}
	top, _ := m.Top(ctx, Period{Month: "2026-12"}, 1)
	if len(top) != 1 || top[0].License != "b" || top[0].Counts.Calls != 7 {
		t.Fatalf("top = %+v", top)
	}
}

func TestMemoryDropsWhatIsPastRetention(t *testing.T) {
	ctx := context.Background()
	m := &Memory{}
	m.Add(ev("a", "p", "x", at("2026-01-01", 1), 1))
	m.Add(ev("a", "p", "x", at("2026-02-15", 1), 1)) // 45 days later: Jan 1 is past
	if d, _ := m.Days(ctx, "a", []Day{"2026-01-01"}); len(d) != 0 {
		t.Fatalf("a day 45 days old is still held: %+v", d)
	}
	if mo, _ := m.Month(ctx, "a", "2026-01"); mo.Total().Calls != 1 {
		t.Fatalf("January's month was dropped with its day: %+v", mo)
	}
	m.Add(ev("a", "p", "x", at("2027-03-10", 1), 1)) // 400 days after January's end
	if mo, _ := m.Month(ctx, "a", "2026-01"); len(mo) != 0 {
		t.Fatalf("a month past 400 days is still held: %+v", mo)
	}
	if mo, _ := m.Month(ctx, "a", "2026-02"); mo.Total().Calls != 1 {
		t.Fatalf("February 2026 (within 400 days) was dropped: %+v", mo)
	}
}

func TestMemoryBounded(t *testing.T) {
	m := &Memory{MaxEntries: 4}
	for i := range 5 {
		m.Add(ev(string(rune('a'+i)), "p", "x", at("2026-12-01", 1), 1)) // two entries each: day and month
	}
	m.Add(ev("a", "p", "x", at("2026-12-01", 2), 1)) // an entry held: counted
	if m.Dropped() != 3 {
		t.Fatalf("dropped = %d, want 3", m.Dropped())
	}
	if d, _ := m.Days(context.Background(), "a", []Day{"2026-12-01"}); d["2026-12-01"].Total().Calls != 2 {
		t.Fatalf("an entry already held stopped counting: %+v", d)
	}
}

// sink records batches, failing while fail is set; a failing write may
// still apply (a lost answer) when applyOnFail is set.
type sink struct {
	mu          sync.Mutex
	fail        bool
	applyOnFail bool
	seen        map[string]bool
	got         map[entryKey]Counts
	writes      int
}

func (s *sink) Write(_ context.Context, b Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.fail && !s.applyOnFail {
		return fmt.Errorf("down: %w", ErrNotWritten)
	}
	if s.seen == nil {
		s.seen, s.got = map[string]bool{}, map[entryKey]Counts{}
	}
	if !s.seen[b.ID] {
		s.seen[b.ID] = true
		for _, e := range b.Entries {
			k := entryKey{e.License, e.Day, e.Plugin, e.Tool}
			c := s.got[k]
			c.Add(e.Counts)
			s.got[k] = c
		}
	}
	if s.fail {
		return errors.New("the answer was lost")
	}
	return nil
}

func (s *sink) calls(lic string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for k, c := range s.got {
		if k.license == lic {
			n += c.Calls
		}
	}
	return n
}

func TestBufferKeepsWhatItCouldNotWriteAndRetriesWithTheSameIDs(t *testing.T) {
	ctx := context.Background()
	s := &sink{}
	b := NewBuffer(s, 0, 2)
	for i := range 5 {
		b.Add(ev("a", "p", string(rune('x'+i%3)), at("2026-12-01", 1), 1))
	}
	s.fail, s.applyOnFail = true, true // applied, but the answers are lost
	if err := b.Flush(ctx); err == nil {
		t.Fatal("a failed write was not reported")
	}
	b.Add(ev("a", "p", "x", at("2026-12-01", 2), 10)) // comes during the fault
	s.fail = false
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.calls("a"); n != 15 {
		t.Fatalf("written calls = %d, want 15: a retried batch counted twice or a count was lost", n)
	}
	if b.Held() != 0 {
		t.Fatalf("held after a good flush = %d", b.Held())
	}
}

func TestBufferBoundedDuringAFault(t *testing.T) {
	ctx := context.Background()
	s := &sink{fail: true}
	b := NewBuffer(s, 3, 0)
	for i := range 5 {
		b.Add(ev(string(rune('a'+i)), "p", "x", at("2026-12-01", 1), 1))
	}
	_ = b.Flush(ctx)
	for range 100 { // the entries held keep counting, new ones are dropped
		b.Add(ev("a", "p", "x", at("2026-12-01", 1), 1))
		b.Add(ev("z", "p", "x", at("2026-12-01", 1), 1))
	}
	if b.Held() != 3 || b.Dropped() != 102 {
		t.Fatalf("held %d, dropped %d; want 3 and 102", b.Held(), b.Dropped())
	}
	s.fail = false
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.calls("a"); n != 101 {
		t.Fatalf("license a = %d calls, want 101", n)
	}
	if n := s.calls("d"); n != 0 {
		t.Fatalf("a dropped license was written: %d", n)
	}
}

func TestBufferConcurrentAdds(t *testing.T) {
	s := &sink{}
	b := NewBuffer(s, 0, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				b.Add(ev("a", "p", "x", at("2026-12-01", (g+i)%24), 1))
				if i%100 == 0 {
					_ = b.Flush(context.Background())
				}
			}
		}()
	}
	wg.Wait()
	_ = b.Flush(context.Background())
	if n := s.calls("a"); n != 8000 {
		t.Fatalf("calls = %d, want 8000", n)
	}
}

func BenchmarkBufferAdd(b *testing.B) {
	buf := NewBuffer(&sink{}, 0, 0)
	e := ev("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "web-crawl", "crawl", time.Now(), 1)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			buf.Add(e)
		}
	})
}

func BenchmarkMemoryAdd(b *testing.B) {
	m := &Memory{}
	e := ev("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "web-crawl", "crawl", time.Now(), 1)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Add(e)
		}
	})
}

// blockingSink holds every write until release is closed, failing it as
// not written: a flush in progress while Redis is down.
type blockingSink struct {
	started chan struct{}
	release chan struct{}
}

func (s *blockingSink) Write(context.Context, Batch) error {
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-s.release
	return fmt.Errorf("down: %w", ErrNotWritten)
}

// Events for an entry whose batch is being written are not new entries:
// at the bound they still count, and only a new entry is dropped.
func TestBufferAtTheBoundKeepsCountingDuringAFlush(t *testing.T) {
	s := &blockingSink{started: make(chan struct{}, 1), release: make(chan struct{})}
	b := NewBuffer(s, 2, 0)
	b.Add(ev("a", "p", "x", at("2026-12-01", 1), 1))
	b.Add(ev("a", "p", "y", at("2026-12-01", 1), 1))
	done := make(chan error)
	go func() { done <- b.Flush(context.Background()) }()
	<-s.started // both entries are cut into a batch now being written
	for range 10 {
		b.Add(ev("a", "p", "x", at("2026-12-01", 1), 1))
		b.Add(ev("a", "p", "y", at("2026-12-01", 1), 1))
		b.Add(ev("b", "p", "x", at("2026-12-01", 1), 1)) // a third entry: past the bound
	}
	if d, h := b.Dropped(), b.Held(); d != 10 || h != 2 {
		t.Fatalf("during the flush: dropped %d, held %d; want 10 and 2", d, h)
	}
	close(s.release)
	if err := <-done; err == nil {
		t.Fatal("the failed write was not reported")
	}
	if d, h := b.Dropped(), b.Held(); d != 10 || h != 2 {
		t.Fatalf("after the failed flush: dropped %d, held %d; want 10 and 2", d, h)
	}
	ok := &sink{}
	b.sink = ok
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := ok.calls("a"); n != 22 {
		t.Fatalf("license a = %d calls, want 22", n)
	}
}
