package redisstore

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/scrapers"
)

// politeness keeps each site's limits for every replica together
// (scrapers.Politeness): a site's slots are a sorted set of leases scored by
// expiry under prefix+"pol:"+key, the earliest next start under
// prefix+"pol-next:"+key, and a hold under prefix+"pol-hold:"+key+"|"+exit.
// A lease is refreshed by this replica's heartbeats while its request runs,
// so that a replica that dies frees its slots within CallTTL (15 s). While
// Redis cannot answer, each request falls back to this replica's own limits
// (scrapers.LocalPoliteness): at most N times a site's limit across N
// replicas for the time of the fault, and never a wait on Redis.
type politeness struct{ s *Store }

var _ scrapers.Politeness = politeness{}

// Politeness returns the politeness kept in Redis for every replica.
func (s *Store) Politeness() scrapers.Politeness { return politeness{s} }

// Polling for a slot: a full site is asked again after a short wait that
// grows to pollMax, with jitter so that waiters do not ask in step.
const (
	pollMin = 20 * time.Millisecond
	pollMax = 200 * time.Millisecond
)

func (p politeness) Acquire(ctx context.Context, sl scrapers.Slot) (scrapers.Lease, error) {
	s := p.s
	limit := max(sl.Limit, 1)
	r := &reg{rkey: s.key("pol", sl.Key), member: s.replica + "/" + randHex(8)}
	keys := []string{r.rkey, s.key("pol-next", sl.Key), s.key("pol-hold", sl.Key+"|"+sl.Exit)}
	poll := pollMin
	for {
		var res []any
		err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
			var err error
			res, err = scriptPoliteAcquire.Run(ctx, s.rdb, keys,
				limit, sl.Interval.Milliseconds(), s.opts.CallTTL.Milliseconds(), r.member).Slice()
			return err
		})
		if err != nil || len(res) != 3 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.fallback("politeness")
			return s.polMem.Acquire(ctx, sl)
		}
		status, _ := res[0].(int64)
		waitMS, _ := res[1].(int64)
		wait := time.Duration(waitMS) * time.Millisecond
		switch status {
		case 1: // taken; the start may be later (the interval)
			s.addReg(r)
			l := &redisLease{p: p, r: r}
			if err := scrapers.Sleep(ctx, wait); err != nil {
				l.Release(0)
				return nil, err
			}
			return l, nil
		case -1: // held
			reason, _ := res[2].(string)
			if !scrapers.HeldWait(ctx, wait) {
				return nil, &scrapers.HeldError{Key: sl.Key, Exit: sl.Exit, Wait: wait, Reason: reason}
			}
			if err := scrapers.Sleep(ctx, wait); err != nil {
				return nil, err
			}
		default: // every slot taken: ask again soon
			d := min(poll, max(wait, time.Millisecond))
			d = d/2 + rand.N(d/2+1)
			if err := scrapers.Sleep(ctx, d); err != nil {
				return nil, err
			}
			poll = min(poll*2, pollMax)
		}
	}
}

func (p politeness) Hold(ctx context.Context, key, exit string, d time.Duration, reason string) {
	if d <= 0 {
		return
	}
	d = min(d, scrapers.MaxHold)
	s := p.s
	s.polMem.Hold(ctx, key, exit, d, reason) // this replica knows it during a fault too
	err := s.do(context.WithoutCancel(ctx), s.opts.Timeout, func(ctx context.Context) error {
		return scriptPoliteHold.Run(ctx, s.rdb, []string{s.key("pol-hold", key+"|"+exit)}, d.Milliseconds(), reason).Err()
	})
	if err != nil {
		s.fallback("politeness")
	}
}

type redisLease struct {
	p    politeness
	r    *reg
	once sync.Once
}

// Release gives the slot back, after the pause when there is one (the
// member's expiry is moved to then, so that it lapses by itself). The
// Redis command runs apart: a page never waits on it.
func (l *redisLease) Release(after time.Duration) {
	l.once.Do(func() {
		go l.release(after) // ends within Options.Timeout
	})
}

func (l *redisLease) release(after time.Duration) {
	s := l.p.s
	if after <= 0 {
		s.dropReg(l.r, true)
		return
	}
	s.dropReg(l.r, false)
	err := s.do(s.ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptPoliteRelease.Run(ctx, s.rdb, []string{l.r.rkey}, after.Milliseconds(), l.r.member).Err()
	})
	if err != nil {
		s.fallback("politeness")
		// The lease lapses by its expiry; the heartbeat drops it sooner
		// (its removals are bounded as the heartbeat bounds them).
		s.regMu.Lock()
		if len(s.pending) < 100_000 {
			s.pending = append(s.pending, removal{l.r.rkey, l.r.member})
		}
		s.regMu.Unlock()
	}
}

// scriptPoliteAcquire takes a slot of a site. KEYS[1] the slots (a sorted
// set of members scored by expiry), KEYS[2] the earliest next start, KEYS[3]
// the hold of this exit; ARGV[1] the limit, ARGV[2] the interval between
// starts in ms, ARGV[3] the lease's lifetime in ms, ARGV[4] the member.
// Returns {1, ms until the start, ""} when taken, {0, ms until the first
// lease lapses, ""} when every slot is taken, {-1, ms the hold lasts,
// reason} when held.
var scriptPoliteAcquire = redis.NewScript(luaNow + `
local held = redis.call('PTTL', KEYS[3])
if held > 0 then
  return {-1, held, redis.call('GET', KEYS[3]) or ''}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(tonumber(first[2]) - now, 1), ''}
end
local start = now
local interval = tonumber(ARGV[2])
if interval > 0 then
  local nxt = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  if nxt > start then start = nxt end
  redis.call('SET', KEYS[2], start + interval, 'PX', start + interval - now + 1000)
end
local expiry = start + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], expiry, ARGV[4])
if redis.call('PTTL', KEYS[1]) < expiry - now then
  redis.call('PEXPIRE', KEYS[1], expiry - now)
end
return {1, start - now, ''}
`)

// scriptPoliteRelease keeps a released slot taken for a pause: KEYS[1] the
// slots, ARGV[1] the pause in ms, ARGV[2] the member.
var scriptPoliteRelease = redis.NewScript(luaNow + `
local expiry = now + tonumber(ARGV[1])
if redis.call('ZADD', KEYS[1], 'XX', 'CH', expiry, ARGV[2]) == 1 and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
`)

// scriptPoliteHold holds a site's exit: KEYS[1] the hold, ARGV[1] its
// length in ms, ARGV[2] the reason. A longer hold already there stays.
var scriptPoliteHold = redis.NewScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
end
return 1
`)
