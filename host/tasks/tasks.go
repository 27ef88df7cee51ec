// Package tasks keeps the MCP Tasks of long tool calls (the extension
// io.modelcontextprotocol/tasks of protocol 2026-07-28): each task's state
// where every replica can read it, so that tasks/get and tasks/cancel may
// reach any replica, and a lease held by the replica that runs it, so that a
// replica that dies leaves its tasks failed rather than working forever.
//
// A task moves once, from working to one of the terminal states; a terminal
// state never changes. The in-memory [Memory] serves one replica; the Redis
// store (host/redisstore) shares tasks between replicas.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// Status is a task's state, as the extension names it.
type Status string

// The states a task of this host takes (it never asks its client for input,
// so never input_required).
const (
	Working   Status = "working"
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Terminal reports whether s is a state a task never leaves.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// ErrNotFound is returned for an unknown or expired task id and for a task
// another license made: the three answer alike, so an id reveals nothing.
var ErrNotFound = errors.New("no such task: it expired, was never made, or belongs to another license")

// RPCError is the JSON-RPC error a failed task carries.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// CodeInternalError is the JSON-RPC code of a task whose run was lost.
const CodeInternalError = -32603

// Lost is the error of a task whose replica stopped renewing its lease.
var Lost = RPCError{Code: CodeInternalError, Message: "the replica running this task stopped before it finished (its lease lapsed); call the tool again"}

// LostMessage is the statusMessage of such a task.
const LostMessage = "failed: the replica running this task stopped before it finished; call the tool again"

// Task is one task's state.
type Task struct {
	ID     string
	Owner  string // license.Hash of the key that made it, never the key
	Plugin string
	Tool   string
	Thread string // X-SurfSense-Thread of the call, "" when none

	Status        Status
	StatusMessage string
	Created       time.Time
	Updated       time.Time
	// TTL is how long the task is kept from its creation.
	TTL time.Duration
	// Result is the whole result (a 2026-07-28 CallToolResult) of a
	// completed task.
	Result json.RawMessage
	// Error is the error of a failed task.
	Error *RPCError
}

// End is a task's move from working to a terminal state.
type End struct {
	Status  Status // Completed, Failed or Cancelled
	Message string // its statusMessage
	Result  json.RawMessage
	Error   *RPCError
	At      time.Time
}

// Lease is a replica's hold on a task it runs. While it is held the task is
// alive; Release ends it (call it after the task's End). A lease that lapses
// (its replica died or lost the store for longer than the lease lasts) turns
// a working task failed on its next read.
type Lease interface {
	Release()
}

// Store keeps tasks. Every method is safe for concurrent use.
type Store interface {
	// Create stores t (working) with a lease held by this replica, and
	// returns only once any replica's Get would find it.
	Create(ctx context.Context, t Task) (Lease, error)
	// Get returns the task owner made with id, or ErrNotFound. A working
	// task whose lease lapsed is failed (with Lost) first.
	Get(ctx context.Context, owner, id string) (Task, error)
	// Progress sets a working task's statusMessage; it does nothing to a
	// task in a terminal state.
	Progress(ctx context.Context, owner, id, message string, at time.Time) error
	// Finish moves a working task to e's terminal state and returns the
	// task as it is after: unchanged when it had already ended.
	Finish(ctx context.Context, owner, id string, e End) (Task, error)
}

// NewID returns a fresh, unguessable task id: 128 random bits in hex,
// prefixed so that it never reads as a result id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "task_" + hex.EncodeToString(b[:])
}

// ValidID reports whether id has NewID's form; anything else is unknown
// without a lookup.
func ValidID(id string) bool {
	if len(id) != 5+32 || id[:5] != "task_" {
		return false
	}
	for _, c := range id[5:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Memory is a Store in this process's memory, for one replica. The zero
// value is ready. Tasks are dropped once their TTL passed.
type Memory struct {
	mu sync.Mutex
	m  map[string]*memTask
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
	// Max bounds the tasks kept (working and ended, until their TTL); zero
	// is DefaultMax. Create fails when it is reached.
	Max int
}

// DefaultMax is Memory's bound on the tasks it keeps.
const DefaultMax = 10_000

// ErrFull is Create's error when Memory holds Max tasks.
var ErrFull = errors.New("tasks: this replica holds as many tasks as it may keep; the call is answered directly")

type memTask struct {
	t       Task
	expires time.Time
	leased  bool
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// memLease is a Memory task's lease: its replica is this process, so it
// lapses only when released before the task ended (a run that returned
// without an end, a bug the next read reports as a lost task).
type memLease struct {
	m    *Memory
	id   string
	once sync.Once
}

func (l *memLease) Release() {
	l.once.Do(func() {
		l.m.mu.Lock()
		if mt := l.m.m[l.id]; mt != nil {
			mt.leased = false
		}
		l.m.mu.Unlock()
	})
}

func (m *Memory) Create(_ context.Context, t Task) (Lease, error) {
	if !ValidID(t.ID) || t.Owner == "" {
		return nil, errors.New("tasks: a task needs an id from NewID and an owner")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]*memTask{}
	}
	now := m.now()
	for k, v := range m.m {
		if now.After(v.expires) {
			delete(m.m, k)
		}
	}
	limit := m.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	if len(m.m) >= limit {
		return nil, ErrFull
	}
	t.Status = Working
	t.Result, t.Error = nil, nil
	m.m[t.ID] = &memTask{t: t, expires: t.Created.Add(t.TTL), leased: true}
	return &memLease{m: m, id: t.ID}, nil
}

// find returns the live task owner made with id; m.mu is held.
func (m *Memory) find(owner, id string) *memTask {
	mt := m.m[id]
	if mt == nil || mt.t.Owner != owner || m.now().After(mt.expires) {
		return nil
	}
	if mt.t.Status == Working && !mt.leased {
		lost := Lost
		mt.t.Status, mt.t.StatusMessage, mt.t.Error, mt.t.Updated = Failed, LostMessage, &lost, m.now()
	}
	return mt
}

func (m *Memory) Get(_ context.Context, owner, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.find(owner, id)
	if mt == nil {
		return Task{}, ErrNotFound
	}
	return mt.t, nil
}

func (m *Memory) Progress(_ context.Context, owner, id, message string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.find(owner, id)
	if mt == nil {
		return ErrNotFound
	}
	if mt.t.Status == Working {
		mt.t.StatusMessage, mt.t.Updated = message, at
	}
	return nil
}

func (m *Memory) Finish(_ context.Context, owner, id string, e End) (Task, error) {
	if !e.Status.Terminal() {
		return Task{}, errors.New("tasks: a task ends completed, failed or cancelled")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.find(owner, id)
	if mt == nil {
		return Task{}, ErrNotFound
	}
	if mt.t.Status == Working {
		mt.t.Status, mt.t.StatusMessage, mt.t.Updated = e.Status, e.Message, e.At
		mt.t.Result, mt.t.Error = e.Result, e.Error
		if e.Status != Completed {
			mt.t.Result = nil
		}
		if e.Status != Failed {
			mt.t.Error = nil
		}
	}
	return mt.t, nil
}
