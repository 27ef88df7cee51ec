package redisstore

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/surfsense/pluginhost/host/calls"
)

// FuzzHandleMessage feeds the cancel and ended channels anything: a message
// never panics, and only a well-formed cancel of a key ends its calls.
func FuzzHandleMessage(f *testing.F) {
	s, err := New(context.Background(), "redis://127.0.0.1:1/0", Options{Logger: quiet, Prefix: "p:"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	for _, seed := range []struct{ ch, payload string }{
		{"p:cancel", `{"l":"abc","t":"thread-1","r":"other"}`},
		{"p:cancel", `{"l":"abc","t":"thread-1"}`},
		{"p:ended", `{"l":"abc","t":"thread-1"}`},
		{"p:cancel", `{"l":"","t":"x"}`},
		{"p:cancel", `not json`},
		{"p:cancel", `{"l":1,"t":[]}`},
		{"p:other", `{"l":"abc","t":"thread-1"}`},
		{"", ""},
	} {
		f.Add(seed.ch, seed.payload)
	}
	key := calls.Key{License: "abc", Thread: "thread-1"}
	f.Fuzz(func(t *testing.T, channel, payload string) {
		cancelled := false
		done, err := s.calMem.Start(context.Background(), key, func() { cancelled = true })
		if err != nil {
			t.Fatal(err)
		}
		s.handleMessage(channel, payload)
		done()
		var km keyMsg
		wellFormed := channel == "p:cancel" && jsonIs(payload, &km) && km.License == key.License && km.Thread == key.Thread && km.From != s.replica
		if cancelled != wellFormed {
			t.Fatalf("handleMessage(%q, %q) cancelled=%v, want %v", channel, payload, cancelled, wellFormed)
		}
	})
}

func jsonIs(s string, v any) bool { return json.Unmarshal([]byte(s), v) == nil }
