// Package taskstest checks a tasks.Store against the rules every store
// keeps: the in-memory one and the Redis one run the same checks.
package taskstest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/tasks"
)

// NewTask is a working task of owner, created now, kept for an hour.
func NewTask(owner string) tasks.Task {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return tasks.Task{ID: tasks.NewID(), Owner: owner, Plugin: "web-crawl", Tool: "crawl", Thread: "th-1",
		Status: tasks.Working, StatusMessage: "working", Created: now, Updated: now, TTL: time.Hour}
}

// Run checks every state change of st: creation, progress, each terminal
// state and its stickiness, and that unknown ids, malformed ids and another
// owner's ids all answer tasks.ErrNotFound.
func Run(t *testing.T, st tasks.Store) {
	ctx := context.Background()
	t.Run("create-get", func(t *testing.T) {
		in := NewTask("owner-a")
		in.StatusMessage = "starting"
		lease, err := st.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		got, err := st.Get(ctx, "owner-a", in.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != tasks.Working || got.StatusMessage != "starting" || got.Plugin != "web-crawl" || got.Tool != "crawl" || got.Thread != "th-1" ||
			!got.Created.Equal(in.Created) || got.TTL != time.Hour || got.Result != nil || got.Error != nil {
			t.Fatalf("read back %+v, want the task as created (%+v)", got, in)
		}
	})
	t.Run("not-found-alike", func(t *testing.T) {
		in := NewTask("owner-a")
		lease, err := st.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		for name, c := range map[string][2]string{
			"other owner": {"owner-b", in.ID},
			"unknown id":  {"owner-a", tasks.NewID()},
			"malformed":   {"owner-a", "task_../../x"},
			"empty":       {"owner-a", ""},
		} {
			if _, err := st.Get(ctx, c[0], c[1]); !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("%s: Get = %v, want ErrNotFound", name, err)
			}
			if err := st.Progress(ctx, c[0], c[1], "x", time.Now()); !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("%s: Progress = %v, want ErrNotFound", name, err)
			}
			if _, err := st.Finish(ctx, c[0], c[1], tasks.End{Status: tasks.Cancelled, At: time.Now()}); !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("%s: Finish = %v, want ErrNotFound", name, err)
			}
		}
		if got, _ := st.Get(ctx, "owner-a", in.ID); got.Status != tasks.Working {
			t.Errorf("another owner's Finish changed the task: %+v", got)
		}
	})
	t.Run("progress", func(t *testing.T) {
		in := NewTask("owner-a")
		lease, err := st.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		at := in.Created.Add(3 * time.Second)
		if err := st.Progress(ctx, "owner-a", in.ID, "page 3 of 200 (3 items so far)", at); err != nil {
			t.Fatal(err)
		}
		got, _ := st.Get(ctx, "owner-a", in.ID)
		if got.Status != tasks.Working || got.StatusMessage != "page 3 of 200 (3 items so far)" || !got.Updated.Equal(at) {
			t.Fatalf("after progress: %+v", got)
		}
	})
	for _, end := range []tasks.End{
		{Status: tasks.Completed, Message: "completed", Result: json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"resultType":"complete"}`)},
		{Status: tasks.Cancelled, Message: "cancelled by tasks/cancel"},
		{Status: tasks.Failed, Message: "failed", Error: &tasks.RPCError{Code: -32603, Message: "boom"}},
	} {
		t.Run("working-to-"+string(end.Status), func(t *testing.T) {
			in := NewTask("owner-a")
			lease, err := st.Create(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			defer lease.Release()
			end.At = in.Created.Add(time.Minute)
			got, err := st.Finish(ctx, "owner-a", in.ID, end)
			if err != nil {
				t.Fatal(err)
			}
			check := func(got tasks.Task) {
				t.Helper()
				if got.Status != end.Status || got.StatusMessage != end.Message || !got.Updated.Equal(end.At) ||
					string(got.Result) != string(end.Result) || (got.Error == nil) != (end.Error == nil) ||
					(got.Error != nil && *got.Error != *end.Error) {
					t.Fatalf("ended as %+v, want %+v", got, end)
				}
			}
			check(got)
			got, _ = st.Get(ctx, "owner-a", in.ID)
			check(got)
			// A terminal state is never left: neither a second end nor
			// progress changes it.
			again, err := st.Finish(ctx, "owner-a", in.ID, tasks.End{Status: tasks.Completed, Message: "late", Result: json.RawMessage(`{}`), At: end.At.Add(time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			check(again)
			if err := st.Progress(ctx, "owner-a", in.ID, "late progress", end.At.Add(2*time.Second)); err != nil {
				t.Fatal(err)
			}
			got, _ = st.Get(ctx, "owner-a", in.ID)
			check(got)
			lease.Release()
			got, _ = st.Get(ctx, "owner-a", in.ID)
			check(got) // a released lease fails only a working task
		})
	}
	t.Run("finish-needs-terminal", func(t *testing.T) {
		in := NewTask("owner-a")
		lease, err := st.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		if _, err := st.Finish(ctx, "owner-a", in.ID, tasks.End{Status: tasks.Working}); err == nil {
			t.Fatal("Finish to working was accepted")
		}
	})
}
