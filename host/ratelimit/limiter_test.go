package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestMemoryWindowPerLicenseAndPlugin(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := &Memory{Now: func() time.Time { return now }}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if ok, _, _ := m.Allow(ctx, "L", "amazon", 3); !ok {
			t.Fatalf("call %d refused", i)
		}
		now = now.Add(10 * time.Second)
	}
	ok, retry, _ := m.Allow(ctx, "L", "amazon", 3)
	if ok || retry != 30*time.Second {
		t.Fatalf("4th call: ok %v, retry %s (want 30s: the first call leaves the window then)", ok, retry)
	}
	if ok, _, _ := m.Allow(ctx, "L", "walmart", 3); !ok {
		t.Fatal("another plugin shares the budget")
	}
	if ok, _, _ := m.Allow(ctx, "M", "amazon", 3); !ok {
		t.Fatal("another license shares the budget")
	}
	now = now.Add(31 * time.Second)
	if ok, _, _ := m.Allow(ctx, "L", "amazon", 3); !ok {
		t.Fatal("still refused after the window moved")
	}
	if ok, _, _ := m.Allow(ctx, "L", "amazon", 0); !ok {
		t.Fatal("0 is no limit")
	}
}

func TestMemoryConcurrencySlots(t *testing.T) {
	var m Memory
	ctx := context.Background()
	r1, ok1, _ := m.Acquire(ctx, "L", 2)
	_, ok2, _ := m.Acquire(ctx, "L", 2)
	_, ok3, _ := m.Acquire(ctx, "L", 2)
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("slots: %v %v %v", ok1, ok2, ok3)
	}
	r1()
	r1() // releasing twice frees one slot only
	if _, ok, _ := m.Acquire(ctx, "L", 2); !ok {
		t.Fatal("a released slot was not given back")
	}
	if _, ok, _ := m.Acquire(ctx, "L", 2); ok {
		t.Fatal("a double release freed two slots")
	}
	if _, ok, _ := m.Acquire(ctx, "other", 2); !ok {
		t.Fatal("another license shares the slots")
	}
}
