package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/license"
)

// licenseStore keeps verdicts under prefix+"lic:"+hash, for as long as the
// checker asks (the grace period), and mirrors every entry it saves or loads
// into this replica's memory, which answers while Redis does not.
type licenseStore struct{ s *Store }

var _ license.Store = licenseStore{}

func (l licenseStore) Load(ctx context.Context, hash string) (license.Entry, bool, error) {
	s := l.s
	var (
		e     license.Entry
		found bool
		keep  time.Duration
	)
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		pipe := s.rdb.Pipeline()
		get := pipe.Get(ctx, s.key("lic", hash))
		ttl := pipe.PTTL(ctx, s.key("lic", hash))
		_, err := pipe.Exec(ctx)
		if errors.Is(get.Err(), redis.Nil) {
			return nil
		}
		if err != nil {
			return err
		}
		if json.Unmarshal([]byte(get.Val()), &e) != nil {
			e = license.Entry{} // unreadable: as if absent, the checker asks again
			return nil
		}
		found, keep = true, ttl.Val()
		return nil
	})
	if err != nil {
		s.fallback("license")
		return s.licMem.Load(ctx, hash)
	}
	if found && keep > 0 {
		_ = s.licMem.Save(ctx, hash, e, keep)
	}
	return e, found, nil
}

func (l licenseStore) Save(ctx context.Context, hash string, e license.Entry, keep time.Duration) error {
	s := l.s
	_ = s.licMem.Save(ctx, hash, e, keep)
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	err = s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		if keep < time.Millisecond {
			return s.rdb.Del(ctx, s.key("lic", hash)).Err()
		}
		return s.rdb.Set(ctx, s.key("lic", hash), b, keep).Err()
	})
	if err != nil {
		s.fallback("license")
	}
	return nil // kept in memory; Redis gets the next verdict
}

// Lock is SET NX PX with a random token; unlock deletes the lock only while
// it still holds that token. While Redis is unreachable it grants the lock
// (fail open): every replica may then ask the backend itself, which is
// better than none asking.
func (l licenseStore) Lock(ctx context.Context, hash string, ttl time.Duration) (func(), bool, error) {
	s := l.s
	if ttl <= 0 {
		ttl = 10 * time.Second
	}
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	k, token := s.key("lic-lock", hash), randHex(16)
	var ok bool
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		ok, err = s.rdb.SetNX(ctx, k, token, ttl).Result()
		return err
	})
	if err != nil {
		s.fallback("license")
		return func() {}, true, nil
	}
	if !ok {
		return nil, false, nil
	}
	return func() {
		_ = s.do(s.ctx, s.opts.Timeout, func(ctx context.Context) error {
			return scriptUnlock.Run(ctx, s.rdb, []string{k}, token).Err()
		})
	}, true, nil
}
