package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/internal/redistest"
)

func usageEvent(lic, tool string, t time.Time, calls int64) usage.Event {
	return usage.Event{License: lic, Plan: "team", Plugin: "web-crawl", Tool: tool, Time: t,
		Counts: usage.Counts{Calls: calls, Items: 3 * calls, UpstreamRequests: 2 * calls, UpstreamBytes: 1000 * calls, Refused: usage.Refused{RateLimited: 1}}}
}

func TestUsageSummedAcrossStoresWithExpiries(t *testing.T) {
	url := redistest.URL(t)
	ctx := context.Background()
	rs := replicas(t, url, 3, Options{UsageFlushInterval: time.Hour})
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range 30 {
		rs[i%3].Usage().Add(usageEvent("hash-a", "crawl", now, 1))
	}
	rs[0].Usage().Add(usageEvent("hash-b", "crawl", now, 5))
	for _, s := range rs {
		if err := s.FlushUsage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	days, err := rs[1].Usage().Days(ctx, "hash-a", []usage.Day{"2026-12-01", "2026-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	w := usage.Counts{Calls: 30, Items: 90, UpstreamRequests: 60, UpstreamBytes: 30000, Refused: usage.Refused{RateLimited: 30}}
	if got := days["2026-12-01"][usage.Tool{Plugin: "web-crawl", Tool: "crawl"}]; got != w || len(days) != 1 {
		t.Fatalf("day = %+v (%d days), want %+v", got, len(days), w)
	}
	m, err := rs[2].Usage().Month(ctx, "hash-a", "2026-12")
	if err != nil || m.Total() != w {
		t.Fatalf("month = %+v, %v", m.Total(), err)
	}
	top, err := TopUsage(ctx, url, rs[0].opts.Prefix, usage.Period{Month: "2026-12"}, 1)
	if err != nil || len(top) != 1 || top[0].License != "hash-a" || top[0].Plan != "team" || top[0].Counts != w {
		t.Fatalf("top = %+v, %v", top, err)
	}

	c := raw(t, url)
	p := rs[0].opts.Prefix
	for key, ttl := range map[string]time.Duration{
		p + "usage:d:hash-a:2026-12-01": usage.DayRetention,
		p + "usage:m:hash-a:2026-12":    usage.MonthRetention,
		p + "usage:top:d:2026-12-01":    usage.DayRetention,
		p + "usage:top:m:2026-12":       usage.MonthRetention,
		p + "usage:plan:hash-a":         usage.MonthRetention,
	} {
		got := c.TTL(ctx, key).Val()
		if got < ttl-time.Minute || got > ttl {
			t.Errorf("TTL of %s = %v, want %v", key, got, ttl)
		}
	}
	// Nothing names a key in clear: only the hashes the host gave.
	keys := c.Keys(ctx, p+"usage:*").Val()
	if len(keys) == 0 {
		t.Fatal("no usage keys")
	}
	for _, k := range keys {
		if !strings.Contains(k, "hash-") && !strings.Contains(k, ":top:") && !strings.Contains(k, ":batch:") {
			t.Errorf("unexpected usage key %s", k)
		}
	}
}

// A batch sent while the connection freezes is applied late, after its
// write timed out; its retry, with the same id, is not counted again.
func TestUsageBatchRetriedAfterALostAnswerCountsOnce(t *testing.T) {
	srv := redistest.StartProcess(t)
	f := newFreezer(t, srv.Addr)
	ctx := context.Background()
	s := replicas(t, f.url(), 1, Options{Timeout: 200 * time.Millisecond, ProbeInterval: 50 * time.Millisecond, UsageFlushInterval: time.Hour})[0]
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s.Usage().Add(usageEvent("hash-a", "crawl", now, 4))
	f.frozen.Store(true)
	if err := s.FlushUsage(ctx); err == nil {
		t.Fatal("a write to a frozen Redis succeeded")
	}
	s.Usage().Add(usageEvent("hash-a", "crawl", now, 1)) // during the fault
	f.frozen.Store(false)                                // the held script reaches Redis now
	waitFor(t, 5*time.Second, "Redis answers again", func() bool { return s.Health().Up })
	waitFor(t, 5*time.Second, "the buffer is written", func() bool { return s.FlushUsage(ctx) == nil && s.usage.Held() == 0 })
	m, err := s.Usage().Month(ctx, "hash-a", "2026-12")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Total().Calls; got != 5 {
		t.Fatalf("calls = %d, want 5: the retried batch counted twice, or a count was lost", got)
	}
}

func TestUsageBufferedWhileRedisIsDownAndBounded(t *testing.T) {
	srv := redistest.StartProcess(t)
	ctx := context.Background()
	s := replicas(t, srv.URL, 1, Options{Timeout: 200 * time.Millisecond, ProbeInterval: 50 * time.Millisecond, UsageFlushInterval: 20 * time.Millisecond, UsageMaxEntries: 2})[0]
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	srv.Kill(t)
	waitFor(t, 5*time.Second, "the store sees Redis down", func() bool { return !s.Health().Up })
	for range 50 {
		s.Usage().Add(usageEvent("hash-a", "crawl", now, 1))
		s.Usage().Add(usageEvent("hash-a", "other", now, 1))
		s.Usage().Add(usageEvent("hash-b", "crawl", now, 1)) // a third entry: past the bound
		time.Sleep(time.Millisecond)
	}
	if _, err := s.Usage().Days(ctx, "hash-a", []usage.Day{"2026-12-01"}); err == nil {
		t.Fatal("a read with Redis down succeeded")
	}
	if d := s.usage.Dropped(); d != 50 {
		t.Fatalf("dropped = %d, want the 50 events of the entry past the bound", d)
	}
	srv.Restart(t)
	waitFor(t, 5*time.Second, "the loop writes the buffer once Redis answers", func() bool { return s.usage.Held() == 0 })
	m, err := s.Usage().Month(ctx, "hash-a", "2026-12")
	if err != nil || m.Total().Calls != 100 {
		t.Fatalf("hash-a = %+v, %v; want 100 calls", m.Total(), err)
	}
}

func TestParseUsageLeavesOutWhatItDoesNotKnow(t *testing.T) {
	tab := parseUsage(map[string]string{
		"web-crawl|crawl|calls": "3", "web-crawl|crawl|items": "x", "web-crawl|crawl|bogus": "1",
		"nobars": "1", "one|bar": "1", "a|b|c|calls": "2",
	})
	if len(tab) != 2 || tab[usage.Tool{Plugin: "web-crawl", Tool: "crawl"}].Calls != 3 || tab[usage.Tool{Plugin: "a", Tool: "b|c"}].Calls != 2 {
		t.Fatalf("parsed %+v", tab)
	}
}
