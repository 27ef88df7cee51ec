package tasks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/tasks"
	"github.com/surfsense/pluginhost/host/tasks/taskstest"
)

func TestMemory(t *testing.T) {
	taskstest.Run(t, &tasks.Memory{})
}

// A lease released while the task still works (its run returned without an
// end) fails the task with Lost on the next read, never leaving it working.
func TestMemoryLeaseReleasedWhileWorkingFails(t *testing.T) {
	m := &tasks.Memory{}
	in := taskstest.NewTask("o")
	lease, err := m.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	lease.Release()
	got, err := m.Get(context.Background(), "o", in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.Failed || got.Error == nil || *got.Error != tasks.Lost || got.StatusMessage != tasks.LostMessage {
		t.Fatalf("got %+v, want failed with Lost", got)
	}
}

// A task past its TTL is gone, as an unknown one.
func TestMemoryExpires(t *testing.T) {
	now := time.Now()
	m := &tasks.Memory{Now: func() time.Time { return now }}
	in := taskstest.NewTask("o")
	in.Created, in.TTL = now, time.Minute
	lease, err := m.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	now = now.Add(time.Minute + time.Millisecond)
	if _, err := m.Get(context.Background(), "o", in.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("expired task: %v, want ErrNotFound", err)
	}
}

// Memory keeps at most Max tasks; Create says so rather than grow.
func TestMemoryBounded(t *testing.T) {
	m := &tasks.Memory{Max: 2}
	for i := range 3 {
		_, err := m.Create(context.Background(), taskstest.NewTask("o"))
		if (i < 2) != (err == nil) {
			t.Fatalf("create %d: %v", i, err)
		}
		if i == 2 && !errors.Is(err, tasks.ErrFull) {
			t.Fatalf("third create: %v, want ErrFull", err)
		}
	}
}

func TestValidID(t *testing.T) {
	if id := tasks.NewID(); !tasks.ValidID(id) {
		t.Fatalf("NewID %q is not valid", id)
	}
	for _, bad := range []string{"", "task_", "task_0123", "res_0123456789abcdef0123456789abcdef", "task_0123456789ABCDEF0123456789abcdef", "task_0123456789abcdef0123456789abcdeg"} {
		if tasks.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func FuzzValidID(f *testing.F) {
	f.Add(tasks.NewID())
	f.Add("task_zz")
	f.Fuzz(func(t *testing.T, id string) {
		if tasks.ValidID(id) && (len(id) != 37 || id[:5] != "task_") {
			t.Fatalf("ValidID accepted %q", id)
		}
	})
}
