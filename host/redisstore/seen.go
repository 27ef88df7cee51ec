package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/surfsense/pluginhost/oauthpage"
)

// SeenStates remembers used OAuth callback states across replicas, so that
// a callback link works once behind any replica: SET NX with a ten-minute
// lifetime under prefix+"oauth-state:"+SHA-256 of the state (the state
// itself is never stored). While Redis is unreachable it falls back to this
// replica's oauthpage.MemorySeen: a link then works once per replica, and the
// app still accepts only a state it issued, once.
func (s *Store) SeenStates() oauthpage.SeenStates { return seenStore{s} }

type seenStore struct{ s *Store }

func (v seenStore) FirstUse(ctx context.Context, state string) (bool, error) {
	s := v.s
	sum := sha256.Sum256([]byte(state))
	k := s.key("oauth-state", hex.EncodeToString(sum[:]))
	var first bool
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		first, err = s.rdb.SetNX(ctx, k, "1", oauthpage.DefaultSeenTTL).Result()
		return err
	})
	if err != nil {
		s.fallback("oauth")
		return s.seenMem.FirstUse(ctx, state)
	}
	// Remembered here too, so that a fault right after does not make the
	// state new again on this replica.
	_, _ = s.seenMem.FirstUse(ctx, state)
	return first, nil
}

// Check is Health in the form host.Stores.Health takes: ok, or a detail
// naming what is degraded and the last error.
func (s *Store) Check() (ok bool, detail string) {
	h := s.Health()
	if h.OK() {
		return true, "ok"
	}
	switch {
	case !h.Up:
		return false, "redis unreachable (politeness is per replica until it answers): " + h.LastError
	default:
		return false, "redis answers but the cancel subscription is down (reconnecting)"
	}
}
