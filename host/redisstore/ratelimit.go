package redisstore

import (
	"context"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/host/ratelimit"
)

// limiter counts calls in Redis: a sliding window (a sorted set of call
// times) under prefix+"rl:"+license+":"+plugin, and concurrency slots (a
// sorted set of expiry times, refreshed by heartbeats) under
// prefix+"conc:"+license. While Redis is unreachable it falls back to this
// replica's own ratelimit.Memory (fail open to a local limit).
type limiter struct{ s *Store }

var _ ratelimit.Limiter = limiter{}

func (l limiter) Allow(ctx context.Context, license, plugin string, perMinute int) (bool, time.Duration, error) {
	s := l.s
	if perMinute <= 0 {
		return true, 0, nil
	}
	var res []int64
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		res, err = scriptAllow.Run(ctx, s.rdb, []string{s.key("rl", license, plugin)},
			perMinute, randHex(8), s.rlWindow.Milliseconds()).Int64Slice()
		return err
	})
	if err != nil || len(res) != 2 {
		s.fallback("ratelimit")
		return s.rlMem.Allow(ctx, license, plugin, perMinute)
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, time.Duration(res[1]) * time.Millisecond, nil
}

func (l limiter) Acquire(ctx context.Context, license string, max int) (func(), bool, error) {
	s := l.s
	if max <= 0 {
		return func() {}, true, nil
	}
	r := &reg{rkey: s.key("conc", license), member: s.replica + "/" + randHex(8)}
	var got int64
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		got, err = scriptAcquire.Run(ctx, s.rdb, []string{r.rkey},
			max, s.opts.CallTTL.Milliseconds(), r.member).Int64()
		return err
	})
	if err != nil {
		s.fallback("ratelimit")
		return s.rlMem.Acquire(ctx, license, max)
	}
	if got != 1 {
		return nil, false, nil
	}
	s.addReg(r) // heartbeats keep the slot while the call runs
	var once sync.Once
	return func() { once.Do(func() { s.dropReg(r, true) }) }, true, nil
}
