package redisstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

// reportPercentiles adds p50 and p99 of lat to b's results, in ms.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e6, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Nanoseconds())/1e6, "p99-ms")
}

// BenchmarkCachedCheckThroughRedis is a license check whose verdict another
// replica cached in Redis: what every call costs with REDIS_URL set.
func BenchmarkCachedCheckThroughRedis(b *testing.B) {
	rs := replicas(b, redistest.URL(b), 2, Options{})
	ctx := context.Background()
	mk := func(s *Store) *license.Checker {
		return &license.Checker{Backend: license.Dev{}, Store: s.Licenses(), TTL: time.Hour, Grace: 24 * time.Hour, Logger: quiet}
	}
	if r := mk(rs[0]).Check(ctx, "bench-key"); r.Verdict.Status != license.Valid {
		b.Fatalf("first check: %+v", r)
	}
	c := mk(rs[1])
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		r := c.Check(ctx, "bench-key")
		lat = append(lat, time.Since(start))
		if !r.Cached || r.Verdict.Status != license.Valid {
			b.Fatalf("check not answered from Redis: %+v", r)
		}
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkCancelFanOut is Cancel on one replica of a call running on
// another, until the call has ended and the canceller knows it.
func BenchmarkCancelFanOut(b *testing.B) {
	rs := replicas(b, redistest.URL(b), 3, Options{})
	k := calls.Key{License: license.Hash("bench"), Thread: "t"}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		c := startSlow(b, rs[(i+1)%3].Calls(), k, 0)
		b.StartTimer()
		start := time.Now()
		n, still, err := rs[i%3].Calls().Cancel(ctx, k, 5*time.Second)
		lat = append(lat, time.Since(start))
		if n != 1 || still != 0 || err != nil {
			b.Fatalf("Cancel = (%d, %d, %v)", n, still, err)
		}
		<-c.ended
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkAllow is one rate-limit decision in Redis.
func BenchmarkAllow(b *testing.B) {
	s := replicas(b, redistest.URL(b), 1, Options{})[0]
	ctx := context.Background()
	lic := license.Hash("bench")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, _, err := s.Limiter().Allow(ctx, lic, "amazon", 1_000_000); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkResultPutGet stores and reads back a 1 MB result.
func BenchmarkResultPutGet(b *testing.B) {
	rs := replicas(b, redistest.URL(b), 2, Options{})
	ctx := context.Background()
	owner := license.Hash("bench")
	st := results.Stored{Plugin: "web-crawl", Tool: "crawl"}
	for range 100 {
		st.Items = append(st.Items, []byte(`"`+randHex(5000)+`"`))
	}
	b.SetBytes(int64(100 * 10000))
	b.ResetTimer()
	for range b.N {
		id, err := rs[0].Results().Put(ctx, owner, st)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rs[1].Results().Get(ctx, owner, id); err != nil {
			b.Fatal(err)
		}
	}
}
