package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/scrapers"
)

// MaxSharedValue bounds one value of the shared cache (a robots.txt as
// fetched is at most 500 KiB).
const MaxSharedValue = 1 << 20

// sharedCache is the small cache every replica reads (scrapers.SharedCache):
// a value under prefix+"shared:"+key with its TTL. While Redis cannot answer
// it answers nothing (a miss is the caller's cue to fetch for itself) and
// stores nothing; it never waits past Options.Timeout.
type sharedCache struct{ s *Store }

var _ scrapers.SharedCache = sharedCache{}

// SharedCache returns the cache the replicas share (web-crawl's robots.txt).
func (s *Store) SharedCache() scrapers.SharedCache { return sharedCache{s} }

func (c sharedCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	s := c.s
	var b []byte
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		b, err = s.rdb.Get(ctx, s.key("shared", key)).Bytes()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		s.fallback("shared_cache")
		return nil, false, err
	}
	return b, true, nil
}

func (c sharedCache) Set(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	s := c.s
	if len(val) > MaxSharedValue {
		return fmt.Errorf("redisstore: a shared value is at most %d bytes (got %d)", MaxSharedValue, len(val))
	}
	if ttl <= 0 {
		return errors.New("redisstore: a shared value needs a TTL")
	}
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return s.rdb.Set(ctx, s.key("shared", key), val, ttl).Err()
	})
	if err != nil {
		s.fallback("shared_cache")
	}
	return err
}

// SetIfAbsent sets key only when it is absent (SET NX PX), saying whether
// it did: robots.Leaser, so that replicas missing the same robots.txt at
// once fetch it once between them. While Redis cannot answer it says yes,
// so that each replica fetches for itself.
func (c sharedCache) SetIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	s := c.s
	if len(val) > MaxSharedValue || ttl <= 0 {
		return false, fmt.Errorf("redisstore: a shared lease is at most %d bytes with a TTL", MaxSharedValue)
	}
	var ok bool
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		ok, err = s.rdb.SetNX(ctx, s.key("shared", key), val, ttl).Result()
		return err
	})
	if err != nil {
		s.fallback("shared_cache")
		return true, nil
	}
	return ok, nil
}
