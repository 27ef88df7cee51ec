package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/results"
)

// resultStore keeps each result as JSON under prefix+"res:"+id for
// results.TTL, with the owner's license hash beside it.
type resultStore struct{ s *Store }

var _ results.Store = resultStore{}

type storedResult struct {
	Owner  string         `json:"owner"`
	Result results.Stored `json:"result"`
}

func (r resultStore) Put(ctx context.Context, owner string, st results.Stored) (string, error) {
	s := r.s
	b, err := json.Marshal(storedResult{Owner: owner, Result: st})
	if err != nil {
		return "", err
	}
	id := results.NewID()
	err = s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		return s.rdb.Set(ctx, s.key("res", id), b, results.TTL).Err()
	})
	if err != nil {
		// Kept on this replica only, under an id that names it: get_result
		// works when it lands here, and the other replicas say where it is.
		s.fallback("results")
		id = results.LocalID(s.replica)
		s.resMem.Keep(owner, id, st)
		s.log.Warn("a large result is kept in this replica's memory only: redis refused it", "replica", s.replica, "bytes", len(b), "error", err.Error())
		return id, nil
	}
	return id, nil
}

func (r resultStore) Get(ctx context.Context, owner, id string) (results.Stored, error) {
	s := r.s
	if !validResultID(id) {
		return results.Stored{}, results.ErrNotFound
	}
	var sr storedResult
	var found bool
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		b, err := s.rdb.Get(ctx, s.key("res", id)).Bytes()
		if err != nil {
			return err
		}
		if json.Unmarshal(b, &sr) == nil {
			found = true
		}
		return nil
	})
	switch {
	case err == nil && found:
		if sr.Owner != owner {
			return results.Stored{}, results.ErrNotFound
		}
		return sr.Result, nil
	case err != nil && !errors.Is(err, redis.Nil):
		s.fallback("results")
	}
	// Absent from Redis, or Redis unreachable: it may have been stored here
	// during an outage, or, when its id names another replica, there.
	got, err := s.resMem.Get(ctx, owner, id)
	if errors.Is(err, results.ErrNotFound) {
		if holder, ok := results.HeldBy(id); ok && holder != results.ReplicaName(s.replica) {
			return results.Stored{}, &results.HeldElsewhereError{ID: id, Replica: holder, Here: s.replica}
		}
	}
	return got, err
}

// validResultID accepts the shape of results.NewID's ids ("res_" and hex
// digits) loosely enough to survive a longer id: anything else is unknown
// without asking Redis.
func validResultID(id string) bool {
	rest, ok := strings.CutPrefix(id, "res_")
	if !ok || len(rest) == 0 || len(rest) > 128 {
		return false
	}
	for _, c := range rest {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
