package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/tasks"
	"github.com/surfsense/pluginhost/host/tasks/taskstest"
	"github.com/surfsense/pluginhost/internal/redistest"
)

// The Redis store keeps every rule the in-memory one keeps, on a real
// redis-server, and a task made on one replica reads the same on another.
func TestTasksStore(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	taskstest.Run(t, rs[0].Tasks())
	t.Run("another-replica-reads-it", func(t *testing.T) {
		ctx := context.Background()
		in := taskstest.NewTask("owner")
		lease, err := rs[0].Tasks().Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		if err := rs[0].Tasks().Progress(ctx, "owner", in.ID, "page 2 of 9", in.Created.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := rs[1].Tasks().Get(ctx, "owner", in.ID)
		if err != nil || got.Status != tasks.Working || got.StatusMessage != "page 2 of 9" {
			t.Fatalf("B reads (%+v, %v), want A's working task with its progress", got, err)
		}
		// B cancels it; A's late completion changes nothing.
		if got, err := rs[1].Tasks().Finish(ctx, "owner", in.ID, tasks.End{Status: tasks.Cancelled, Message: "cancelled", At: time.Now()}); err != nil || got.Status != tasks.Cancelled {
			t.Fatalf("B's cancel: %+v %v", got, err)
		}
		if got, _ := rs[0].Tasks().Finish(ctx, "owner", in.ID, tasks.End{Status: tasks.Completed, Result: json.RawMessage(`{}`), At: time.Now()}); got.Status != tasks.Cancelled || got.Result != nil {
			t.Fatalf("A's completion after B's cancel: %+v", got)
		}
	})
}

// A replica that dies mid-task leaves the task failed with tasks.Lost once
// its lease lapses (CallTTL), read from another replica; while it lives,
// heartbeats keep the task working past many lifetimes of the lease.
func TestTaskOfDeadReplicaFails(t *testing.T) {
	url := redistest.URL(t)
	o := Options{Prefix: testPrefix(), CallTTL: 400 * time.Millisecond, Heartbeat: 100 * time.Millisecond}
	rs := replicas(t, url, 2, o)
	ctx := context.Background()
	in := taskstest.NewTask("owner")
	if _, err := rs[1].Tasks().Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * o.CallTTL)
	if got, err := rs[0].Tasks().Get(ctx, "owner", in.ID); err != nil || got.Status != tasks.Working {
		t.Fatalf("while its replica lives: (%+v, %v), want working", got, err)
	}
	_ = rs[1].Close() // no more heartbeats; the lease is never released
	died := time.Now()
	var got tasks.Task
	waitFor(t, 5*time.Second, "the task to fail", func() bool {
		got, _ = rs[0].Tasks().Get(ctx, "owner", in.ID)
		return got.Status != tasks.Working
	})
	took := time.Since(died)
	if got.Status != tasks.Failed || got.Error == nil || *got.Error != tasks.Lost || got.StatusMessage != tasks.LostMessage {
		t.Fatalf("after its replica died: %+v, want failed with tasks.Lost", got)
	}
	if took > o.CallTTL+time.Second {
		t.Fatalf("the task failed %v after its replica died; the lease is %v", took, o.CallTTL)
	}
	t.Logf("a dead replica's task failed %v after it died (lease %v)", took.Round(time.Millisecond), o.CallTTL)
}

// While Redis is down a task is not created (it could not be read by the
// other replicas): Create fails at once, and the host answers directly.
func TestTaskCreateFailsWhileRedisIsDown(t *testing.T) {
	srv := redistest.StartProcess(t)
	s := replicas(t, srv.URL, 1, Options{Prefix: testPrefix(), Timeout: 250 * time.Millisecond, ProbeInterval: 100 * time.Millisecond})[0]
	srv.Kill(t)
	waitFor(t, 2*time.Second, "the store to notice the fault", func() bool {
		_, err := s.Tasks().Create(context.Background(), taskstest.NewTask("o"))
		return err != nil && !s.Health().Up
	})
	start := time.Now()
	if _, err := s.Tasks().Create(context.Background(), taskstest.NewTask("o")); err == nil {
		t.Fatal("Create succeeded with Redis down")
	}
	if _, err := s.Tasks().Get(context.Background(), "o", tasks.NewID()); err == nil || errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get with Redis down = %v; want an error that is not ErrNotFound (the task may exist)", err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("failing took %v with Redis known down", took)
	}
}
