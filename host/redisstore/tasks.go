package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/tasks"
)

// Tasks (tasks.Store), for MCP Tasks.
//
// Each task is a hash prefix+"task:"+ownerHash+":"+id (its fields below),
// expiring with the task's TTL; its owner is in the key, so another
// license's read finds nothing, as for an unknown id. Its lease is the
// member id of the sorted set prefix+"task-leases", scored with its expiry
// and renewed by this replica's heartbeats (the same as its calls'
// registrations), so a replica that dies stops renewing it: after CallTTL
// the next read of the task fails it with tasks.Lost, in the same script
// that finds the lease lapsed. Every move is a script that changes a task
// only while it is working.
//
// There is no fallback to memory: a task must be readable on every replica
// before it is returned, so while Redis is down Create fails and the host
// answers the call directly (the client, having declared the extension,
// takes either).

type taskStore struct{ s *Store }

var _ tasks.Store = taskStore{}

// Tasks is the store of MCP Tasks shared by the replicas.
func (s *Store) Tasks() tasks.Store { return taskStore{s} }

func (s *Store) taskKey(owner, id string) string { return s.key("task", owner, id) }
func (s *Store) taskLeases() string              { return s.key("task-leases") }

// scriptTaskCreate stores a working task and its lease. KEYS[1] the task,
// KEYS[2] the leases; ARGV[1] the id, ARGV[2] the lease in ms, ARGV[3] the
// TTL in ms, then field, value pairs. Lapsed leases are dropped on the way.
var scriptTaskCreate = redis.NewScript(luaNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// scriptTaskGet reads a task, failing it first when it works and its lease
// lapsed. KEYS[1] the task, KEYS[2] the leases; ARGV[1] the id, ARGV[2]
// the statusMessage, ARGV[3] the error (JSON), ARGV[4] the time (ms).
var scriptTaskGet = redis.NewScript(luaNow + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HGET', KEYS[1], 'status') == 'working' then
  local sc = redis.call('ZSCORE', KEYS[2], ARGV[1])
  if (not sc) or tonumber(sc) <= now then
    redis.call('HSET', KEYS[1], 'status', 'failed', 'msg', ARGV[2], 'error', ARGV[3], 'updated', ARGV[4])
    redis.call('ZREM', KEYS[2], ARGV[1])
  end
end
return redis.call('HGETALL', KEYS[1])
`)

// scriptTaskProgress sets a working task's message. KEYS[1] the task;
// ARGV[1] the message, ARGV[2] the time (ms). Returns 0 when there is no
// such task.
var scriptTaskProgress = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'status') == 'working' then
  redis.call('HSET', KEYS[1], 'msg', ARGV[1], 'updated', ARGV[2])
end
return 1
`)

// scriptTaskFinish ends a working task. KEYS[1] the task, KEYS[2] the
// leases; ARGV[1] the id, ARGV[2] the status, ARGV[3] the message, ARGV[4]
// the time (ms), ARGV[5] the result, ARGV[6] the error. Returns the task as
// it is after.
var scriptTaskFinish = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HGET', KEYS[1], 'status') == 'working' then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'msg', ARGV[3], 'updated', ARGV[4], 'result', ARGV[5], 'error', ARGV[6])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
`)

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// taskLease is a task's registration in the heartbeats.
type taskLease struct {
	s   *Store
	reg *reg
}

func (l taskLease) Release() { l.s.dropReg(l.reg, true) }

func (ts taskStore) Create(ctx context.Context, t tasks.Task) (tasks.Lease, error) {
	s := ts.s
	if !tasks.ValidID(t.ID) || t.Owner == "" {
		return nil, errors.New("redisstore: a task needs an id from tasks.NewID and an owner")
	}
	rg := &reg{rkey: s.taskLeases(), member: t.ID}
	args := []any{t.ID, s.opts.CallTTL.Milliseconds(), max(t.TTL.Milliseconds(), 1),
		"plugin", t.Plugin, "tool", t.Tool, "thread", t.Thread, "status", string(tasks.Working),
		"msg", t.StatusMessage, "created", ms(t.Created), "updated", ms(t.Updated), "ttl", t.TTL.Milliseconds()}
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptTaskCreate.Run(ctx, s.rdb, []string{s.taskKey(t.Owner, t.ID), s.taskLeases()}, args...).Err()
	})
	if err != nil {
		s.fallback("tasks")
		return nil, err
	}
	s.addReg(rg) // renewed by the heartbeats from now on
	return taskLease{s: s, reg: rg}, nil
}

func (ts taskStore) Get(ctx context.Context, owner, id string) (tasks.Task, error) {
	s := ts.s
	if !tasks.ValidID(id) || owner == "" {
		return tasks.Task{}, tasks.ErrNotFound
	}
	lost, _ := json.Marshal(tasks.Lost)
	var fields []string
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		var err error
		fields, err = scriptTaskGet.Run(ctx, s.rdb, []string{s.taskKey(owner, id), s.taskLeases()}, id, tasks.LostMessage, string(lost), ms(time.Now())).StringSlice()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return tasks.Task{}, tasks.ErrNotFound
	}
	if err != nil {
		s.fallback("tasks")
		return tasks.Task{}, err
	}
	return taskFromFields(owner, id, fields)
}

func (ts taskStore) Progress(ctx context.Context, owner, id, message string, at time.Time) error {
	s := ts.s
	if !tasks.ValidID(id) || owner == "" {
		return tasks.ErrNotFound
	}
	var found int64
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		found, err = scriptTaskProgress.Run(ctx, s.rdb, []string{s.taskKey(owner, id)}, message, ms(at)).Int64()
		return err
	})
	if err != nil {
		s.fallback("tasks")
		return err
	}
	if found == 0 {
		return tasks.ErrNotFound
	}
	return nil
}

func (ts taskStore) Finish(ctx context.Context, owner, id string, e tasks.End) (tasks.Task, error) {
	s := ts.s
	if !e.Status.Terminal() {
		return tasks.Task{}, errors.New("redisstore: a task ends completed, failed or cancelled")
	}
	if !tasks.ValidID(id) || owner == "" {
		return tasks.Task{}, tasks.ErrNotFound
	}
	var result, rpcErr string
	if e.Status == tasks.Completed {
		result = string(e.Result)
	}
	if e.Status == tasks.Failed && e.Error != nil {
		b, _ := json.Marshal(e.Error)
		rpcErr = string(b)
	}
	var fields []string
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		var err error
		fields, err = scriptTaskFinish.Run(ctx, s.rdb, []string{s.taskKey(owner, id), s.taskLeases()},
			id, string(e.Status), e.Message, ms(e.At), result, rpcErr).StringSlice()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return tasks.Task{}, tasks.ErrNotFound
	}
	if err != nil {
		s.fallback("tasks")
		return tasks.Task{}, err
	}
	return taskFromFields(owner, id, fields)
}

// taskFromFields reads HGETALL's field, value list.
func taskFromFields(owner, id string, fields []string) (tasks.Task, error) {
	t := tasks.Task{ID: id, Owner: owner}
	for i := 0; i+1 < len(fields); i += 2 {
		v := fields[i+1]
		switch fields[i] {
		case "plugin":
			t.Plugin = v
		case "tool":
			t.Tool = v
		case "thread":
			t.Thread = v
		case "status":
			t.Status = tasks.Status(v)
		case "msg":
			t.StatusMessage = v
		case "created":
			t.Created = fromMs(v)
		case "updated":
			t.Updated = fromMs(v)
		case "ttl":
			n, _ := strconv.ParseInt(v, 10, 64)
			t.TTL = time.Duration(n) * time.Millisecond
		case "result":
			if v != "" {
				t.Result = json.RawMessage(v)
			}
		case "error":
			if v != "" {
				var e tasks.RPCError
				if json.Unmarshal([]byte(v), &e) == nil {
					t.Error = &e
				}
			}
		}
	}
	switch t.Status {
	case tasks.Working, tasks.Completed, tasks.Failed, tasks.Cancelled:
	default:
		return tasks.Task{}, errors.New("redisstore: a stored task has no known status")
	}
	return t, nil
}

func fromMs(v string) time.Time {
	n, _ := strconv.ParseInt(v, 10, 64)
	return time.UnixMilli(n).UTC()
}
