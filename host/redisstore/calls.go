package redisstore

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/calls"
)

// registry is the thread registry shared by the replicas.
//
// Each call is a member replicaID+"/"+callID of the sorted set
// prefix+"calls:"+licenseHash+":"+thread, scored with its expiry time;
// heartbeats push the expiry forward while the call runs, so the calls of a
// replica that died lapse after CallTTL. The calls themselves are run by
// this replica's calls.Memory.
//
// Cancel snapshots the set and publishes the key on prefix+"cancel" in one
// script; every replica cancels its own calls of that key, and each call,
// when it has ended, removes its member and publishes on prefix+"ended". The
// canceller waits until no member of its snapshot remains (or the wait
// passed), woken by those messages and checking every 50 ms besides.
type registry struct{ s *Store }

var _ calls.Registry = registry{}

type keyMsg struct {
	License string `json:"l"`
	Thread  string `json:"t"`
	From    string `json:"r,omitempty"`
	// Member, on the cancel channel, names the one call by request id to
	// cancel (requests.go); the message is about no thread then.
	Member string `json:"m,omitempty"`
}

func (s *Store) callsKey(k calls.Key) string { return s.key("calls", k.License, k.Thread) }

func (r registry) Start(ctx context.Context, key calls.Key, cancel func()) (func(), error) {
	s := r.s
	rg := &reg{rkey: s.callsKey(key), member: s.replica + "/" + randHex(8), key: key}
	memDone, err := s.calMem.Start(ctx, key, func() {
		rg.cancelled.Store(true)
		cancel()
	})
	if err != nil {
		return nil, err
	}
	s.addReg(rg)
	err = s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptRefresh.Run(ctx, s.rdb, []string{rg.rkey}, s.opts.CallTTL.Milliseconds(), rg.member).Err()
	})
	if err != nil {
		// Runs and can be cancelled here; the heartbeat after Redis answers
		// again registers it for the other replicas.
		s.fallback("calls")
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			memDone()
			s.dropReg(rg, true)
			s.wake(key)
		})
	}, nil
}

func (r registry) Cancel(ctx context.Context, key calls.Key, wait time.Duration) (int, int, error) {
	s := r.s
	woken := s.addWaiter(key)
	defer s.removeWaiter(key, woken)

	var remote []string
	msg, _ := json.Marshal(keyMsg{License: key.License, Thread: key.Thread, From: s.replica})
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		members, err := scriptCancel.Run(ctx, s.rdb, []string{s.callsKey(key)}, s.key("cancel"), string(msg)).StringSlice()
		if err != nil {
			return err
		}
		own := s.replica + "/"
		for _, m := range members {
			if !strings.HasPrefix(m, own) {
				remote = append(remote, m)
			}
		}
		return nil
	})
	if err != nil {
		s.fallback("calls") // this replica's calls only
	}
	local := s.calMem.CancelLocal(key)
	cancelled := len(local) + len(remote)

	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if len(remote) > 0 {
			var live []string
			err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
				var err error
				live, err = scriptLive.Run(ctx, s.rdb, []string{s.callsKey(key)}, anySlice(remote)...).StringSlice()
				return err
			})
			if err == nil {
				remote = live
			} // unreachable: keep counting them as running
		}
		running := calls.CountOpen(local) + len(remote)
		if running == 0 {
			return cancelled, 0, nil
		}
		select {
		case <-woken:
		case <-tick.C:
		case <-deadline.C:
			return cancelled, calls.CountOpen(local) + len(remote), nil
		case <-ctx.Done():
			return cancelled, calls.CountOpen(local) + len(remote), nil
		}
	}
}

func anySlice(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// --- waiting cancellers

func (s *Store) addWaiter(k calls.Key) chan struct{} {
	ch := make(chan struct{}, 1)
	s.waitMu.Lock()
	if s.waiters[k] == nil {
		s.waiters[k] = map[chan struct{}]struct{}{}
	}
	s.waiters[k][ch] = struct{}{}
	s.waitMu.Unlock()
	return ch
}

func (s *Store) removeWaiter(k calls.Key, ch chan struct{}) {
	s.waitMu.Lock()
	delete(s.waiters[k], ch)
	if len(s.waiters[k]) == 0 {
		delete(s.waiters, k)
	}
	s.waitMu.Unlock()
}

// wake tells the cancellers waiting on k that one of its calls ended.
func (s *Store) wake(k calls.Key) {
	s.waitMu.Lock()
	for ch := range s.waiters[k] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	s.waitMu.Unlock()
}

// --- this replica's registrations

func (s *Store) addReg(r *reg) {
	s.regMu.Lock()
	s.regs[r.member] = r
	s.regMu.Unlock()
}

// dropReg forgets r; with remove, it deletes its member from Redis (and, for
// a cancelled call, tells the canceller), or leaves that to the next
// heartbeat when Redis does not answer.
func (s *Store) dropReg(r *reg, remove bool) {
	s.regMu.Lock()
	delete(s.regs, r.member)
	s.regMu.Unlock()
	if !remove {
		return
	}
	var ended []byte
	if r.cancelled.Load() {
		ended, _ = json.Marshal(keyMsg{License: r.key.License, Thread: r.key.Thread})
	}
	err := s.do(s.ctx, s.opts.Timeout, func(ctx context.Context) error {
		pipe := s.rdb.Pipeline()
		pipe.ZRem(ctx, r.rkey, r.member)
		if ended != nil {
			pipe.Publish(ctx, s.key("ended"), ended)
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil && s.ctx.Err() == nil {
		s.regMu.Lock()
		if len(s.pending) < 100_000 {
			s.pending = append(s.pending, removal{r.rkey, r.member})
		}
		s.regMu.Unlock()
	}
}

// heartbeat refreshes this replica's registrations (every Heartbeat, and
// at once when Redis answers again after a fault).
func (s *Store) heartbeat() {
	s.regMu.Lock()
	keys := make([]string, 0, len(s.regs))
	args := make([]any, 1, len(s.regs)+1)
	args[0] = s.opts.CallTTL.Milliseconds()
	members := make([]string, 0, len(s.regs))
	for _, r := range s.regs {
		keys = append(keys, r.rkey)
		args = append(args, r.member)
		members = append(members, r.member)
	}
	pending := s.pending
	s.pending = nil
	s.regMu.Unlock()

	if len(keys) > 0 {
		err := s.do(s.ctx, s.opts.Timeout, func(ctx context.Context) error {
			return scriptRefresh.Run(ctx, s.rdb, keys, args...).Err()
		})
		if err != nil {
			s.fallback("calls")
		}
		// A registration that ended while the refresh ran was just put back:
		// remove it again.
		s.regMu.Lock()
		for i, m := range members {
			if _, ok := s.regs[m]; !ok {
				pending = append(pending, removal{keys[i], m})
			}
		}
		s.regMu.Unlock()
	}
	if len(pending) == 0 {
		return
	}
	err := s.do(s.ctx, s.opts.Timeout, func(ctx context.Context) error {
		pipe := s.rdb.Pipeline()
		for _, p := range pending {
			pipe.ZRem(ctx, p.rkey, p.member)
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil && s.ctx.Err() == nil {
		s.regMu.Lock()
		if len(s.pending)+len(pending) <= 100_000 {
			s.pending = append(s.pending, pending...)
		}
		s.regMu.Unlock()
	}
}

// subscribeLoop receives cancels and ends from the other replicas. go-redis
// reconnects and subscribes again by itself after a fault; a message sent
// while this replica was cut off is lost (its calls then end by their
// deadline, and the canceller reports them as still running).
func (s *Store) subscribeLoop() {
	defer s.wg.Done()
	cancelCh, endedCh := s.key("cancel"), s.key("ended")
	subscribe := func() *redis.PubSub {
		s.psMu.Lock()
		defer s.psMu.Unlock()
		if s.ctx.Err() != nil {
			return nil
		}
		s.ps = s.rdb.Subscribe(s.ctx, cancelCh, endedCh)
		return s.ps
	}
	ps := subscribe()
	if ps == nil {
		return
	}
	defer func() { _ = ps.Close() }()
	var once sync.Once
	pinged := false
	for {
		msg, err := ps.ReceiveTimeout(s.ctx, 2*time.Second)
		if s.ctx.Err() != nil {
			return
		}
		if err != nil {
			if !isTimeoutErr(err) {
				s.subNow.Store(false)
			}
			if isTimeoutErr(err) {
				if pinged { // no answer to the last ping: the connection is dead
					s.subNow.Store(false)
					_ = ps.Close()
					if ps = subscribe(); ps == nil {
						return
					}
					pinged = false
					continue
				}
				pinged = ps.Ping(s.ctx) == nil
				continue
			}
			if !s.sleep(100 * time.Millisecond) {
				return
			}
			continue
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" && m.Count == 2 {
				s.subNow.Store(true)
				once.Do(func() { close(s.subscribed) })
			}
		case *redis.Message:
			s.handleMessage(m.Channel, m.Payload)
		}
	}
}

// handleMessage acts on a message of the cancel or ended channel; anything
// malformed is ignored.
func (s *Store) handleMessage(channel, payload string) {
	var km keyMsg
	if json.Unmarshal([]byte(payload), &km) != nil || km.License == "" {
		return
	}
	key := calls.Key{License: km.License, Thread: km.Thread}
	switch channel {
	case s.key("cancel"):
		if km.Member != "" {
			s.handleCancelOne(km)
			return
		}
		if km.From != s.replica { // the canceller cancels its own directly
			s.calMem.CancelLocal(key)
		}
	case s.key("ended"):
		s.wake(key)
	}
}

func isTimeoutErr(err error) bool {
	type timeout interface{ Timeout() bool }
	t, ok := err.(timeout)
	return ok && t.Timeout()
}
