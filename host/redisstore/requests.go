package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/surfsense/pluginhost/host/calls"
)

// Calls by request id (calls.RequestRegistry), for notifications/cancelled.
//
// Each call is a member replicaID+"/"+callID+"|"+thread of the sorted set
// prefix+"req:"+licenseHash+":"+plugin+":"+sha256(id)[:16], scored with its
// expiry and kept alive by the same heartbeats as the thread registry.
// CancelRequest runs one script that drops expired members, keeps those of
// the thread asked (when one is), and, when exactly one is left, publishes
// it on the cancel channel; the replica whose member it is cancels that call
// alone. Several left: none is cancelled.

func (s *Store) requestKey(r calls.Request) string {
	sum := sha256.Sum256([]byte(r.ID))
	return s.key("req", r.License, r.Plugin, hex.EncodeToString(sum[:8]))
}

// requestCalls are this replica's calls by their member.
type requestCalls struct {
	mu     sync.Mutex
	cancel map[string]func()
}

func (rc *requestCalls) add(member string, cancel func()) {
	rc.mu.Lock()
	if rc.cancel == nil {
		rc.cancel = map[string]func(){}
	}
	rc.cancel[member] = cancel
	rc.mu.Unlock()
}

func (rc *requestCalls) drop(member string) {
	rc.mu.Lock()
	delete(rc.cancel, member)
	rc.mu.Unlock()
}

// fire cancels this replica's call member, if it still runs.
func (rc *requestCalls) fire(member string) bool {
	rc.mu.Lock()
	f := rc.cancel[member]
	rc.mu.Unlock()
	if f != nil {
		f()
	}
	return f != nil
}

func (r registry) StartRequest(ctx context.Context, req calls.Request, cancel func()) (func(), error) {
	s := r.s
	rg := &reg{rkey: s.requestKey(req), member: s.replica + "/" + randHex(8) + "|" + req.Thread}
	var once sync.Once
	fire := func() { once.Do(cancel) }
	memDone, err := s.calMem.StartRequest(ctx, req, fire)
	if err != nil {
		return nil, err
	}
	s.reqCalls.add(rg.member, fire)
	s.addReg(rg)
	err = s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptRefresh.Run(ctx, s.rdb, []string{rg.rkey}, s.opts.CallTTL.Milliseconds(), rg.member).Err()
	})
	if err != nil {
		s.fallback("calls") // registered by the next heartbeat
	}
	var doneOnce sync.Once
	return func() {
		doneOnce.Do(func() {
			memDone()
			s.reqCalls.drop(rg.member)
			s.dropReg(rg, true)
		})
	}, nil
}

func (r registry) CancelRequest(ctx context.Context, req calls.Request) (int, error) {
	s := r.s
	var members []string
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		members, err = scriptCancelOne.Run(ctx, s.rdb, []string{s.requestKey(req)}, s.key("cancel"), req.Thread, req.License).StringSlice()
		return err
	})
	if err != nil {
		s.fallback("calls") // this replica's calls only
		return s.calMem.CancelRequest(ctx, req)
	}
	if len(members) == 1 && strings.HasPrefix(members[0], s.replica+"/") {
		s.reqCalls.fire(members[0]) // our own: at once, not through pub/sub
	}
	return len(members), nil
}

// cancelOne is the message scriptCancelOne publishes: the one member to
// cancel (its replica acts on it).
func (s *Store) handleCancelOne(km keyMsg) {
	if km.Member != "" && strings.HasPrefix(km.Member, s.replica+"/") {
		s.reqCalls.fire(km.Member)
	}
}
