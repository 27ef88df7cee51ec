package license_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/license/keygentest"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newChecker(t *testing.T, kg *keygentest.Server) (*license.Checker, *clock) {
	t.Helper()
	b, err := license.NewKeygen(kg.URL, kg.Account)
	if err != nil {
		t.Fatal(err)
	}
	b.Client = kg.Client()
	b.Client.Timeout = 0
	clk := &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	return &license.Checker{Backend: b, Timeout: 300 * time.Millisecond, Now: clk.Now}, clk
}

func TestKeygenCodeMapping(t *testing.T) {
	exp := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	kg := keygentest.New("acct", map[string]keygentest.License{
		"valid":      {Code: "VALID", Plan: "team", Expiry: &exp},
		"expired":    {Code: "EXPIRED"},
		"suspended":  {Code: "SUSPENDED"},
		"banned":     {Code: "BANNED"},
		"nomachine":  {Code: "NO_MACHINE"},
		"nomachines": {Code: "NO_MACHINES"},
		"toomany":    {Code: "TOO_MANY_MACHINES"},
		"fpscope":    {Code: "FINGERPRINT_SCOPE_MISMATCH"},
		"heartbeat":  {Code: "HEARTBEAT_DEAD"},
		"product":    {Code: "PRODUCT_SCOPE_MISMATCH"},
		"policy":     {Code: "POLICY_SCOPE_REQUIRED"},
	})
	defer kg.Close()
	c, _ := newChecker(t, kg)
	want := map[string]string{
		"valid": "", "expired": "expired", "suspended": "revoked", "banned": "revoked",
		"nomachine": "", "nomachines": "", "toomany": "", "fpscope": "", "heartbeat": "",
		"product": "invalid", "policy": "invalid", "unknown-key": "invalid",
	}
	for key, reason := range want {
		r := c.Check(context.Background(), key)
		if r.Reason() != reason {
			t.Errorf("%s: reason %q, want %q", key, r.Reason(), reason)
		}
	}
	r := c.Check(context.Background(), "valid")
	if r.Verdict.Plan == nil || *r.Verdict.Plan != "team" || r.Verdict.ExpiresAt == nil || !r.Verdict.ExpiresAt.Equal(exp) {
		t.Errorf("valid key: plan/expiry not read from Keygen's answer: %+v", r.Verdict)
	}
}

func TestCacheTTLAndOneRequestPerKey(t *testing.T) {
	kg := keygentest.New("acct", map[string]keygentest.License{"k": {Code: "VALID"}})
	defer kg.Close()
	c, clk := newChecker(t, kg)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Check(context.Background(), "k").Reason() != "" {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d concurrent checks were refused", bad.Load())
	}
	if n := kg.Requests(); n != 1 {
		t.Fatalf("64 concurrent checks of one key made %d Keygen requests, want 1", n)
	}
	clk.Add(4 * time.Minute)
	if r := c.Check(context.Background(), "k"); !r.Cached || kg.Requests() != 1 {
		t.Fatalf("a check within the TTL asked Keygen again (requests %d)", kg.Requests())
	}
	kg.Set("k", keygentest.License{Code: "SUSPENDED"})
	clk.Add(2 * time.Minute)
	if r := c.Check(context.Background(), "k"); r.Reason() != "revoked" || kg.Requests() != 2 {
		t.Fatalf("after the TTL a suspended key gave %q with %d requests, want revoked with 2", r.Reason(), kg.Requests())
	}
}

func TestGraceWhileUnreachable(t *testing.T) {
	for _, outage := range []struct {
		name string
		set  func(*keygentest.Server)
	}{
		{"5xx", func(s *keygentest.Server) { s.SetOutage(keygentest.ServerError) }},
		{"429", func(s *keygentest.Server) { s.SetOutage(keygentest.TooMany) }},
		{"timeout", func(s *keygentest.Server) { s.Delay = 2 * time.Second; s.SetOutage(keygentest.Slow) }},
		{"refused", func(s *keygentest.Server) { s.Refuse() }},
	} {
		t.Run(outage.name, func(t *testing.T) {
			kg := keygentest.New("acct", map[string]keygentest.License{"k": {Code: "VALID"}, "bad": {Code: "EXPIRED"}})
			defer kg.Close()
			c, clk := newChecker(t, kg)
			ctx := context.Background()
			if c.Check(ctx, "k").Reason() != "" || c.Check(ctx, "bad").Reason() != "expired" {
				t.Fatal("first checks did not pass through")
			}
			outage.set(kg)
			clk.Add(10 * time.Minute) // past the TTL: Keygen is asked and fails
			start := time.Now()
			r := c.Check(ctx, "k")
			if r.Reason() != "" || !r.FromGrace {
				t.Fatalf("a key validated 10 minutes ago was %q during an outage, want valid from grace", r.Reason())
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("the check took %s: the Keygen timeout was not applied", time.Since(start))
			}
			if c.Check(ctx, "bad").Reason() != "expired" {
				t.Fatal("a known expired key turned into something else during the outage")
			}
			if r := c.Check(ctx, "never-seen"); r.Reason() != license.ReasonUnavailable {
				t.Fatalf("a never-validated key during an outage gave %q, want %s", r.Reason(), license.ReasonUnavailable)
			}
			clk.Add(24 * time.Hour)
			if r := c.Check(ctx, "k"); r.Reason() != license.ReasonUnavailable {
				t.Fatalf("after the grace period the key gave %q, want %s", r.Reason(), license.ReasonUnavailable)
			}
		})
	}
}

func TestKeygenOther4xxIsInvalid(t *testing.T) {
	kg := keygentest.New("acct", map[string]keygentest.License{"k": {Code: "VALID"}})
	defer kg.Close()
	kg.SetOutage(keygentest.BadRequest)
	c, _ := newChecker(t, kg)
	if r := c.Check(context.Background(), "k"); r.Reason() != "invalid" {
		t.Fatalf("a 400 from Keygen gave %q, want invalid", r.Reason())
	}
}

func TestKeygenWrongAccountIsInvalid(t *testing.T) {
	kg := keygentest.New("acct", map[string]keygentest.License{"k": {Code: "VALID"}})
	defer kg.Close()
	b, _ := license.NewKeygen(kg.URL, "other")
	v, err := b.Validate(context.Background(), "k")
	if err != nil || v.Status != license.Invalid {
		t.Fatalf("404 from Keygen: %v %v, want invalid", v, err)
	}
}

func TestNewKeygenConfig(t *testing.T) {
	if _, err := license.NewKeygen("ftp://x", "a"); err == nil {
		t.Error("ftp origin accepted")
	}
	if _, err := license.NewKeygen("https://x", " "); err == nil {
		t.Error("empty account accepted")
	}
}

func TestFileBackend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.json")
	past := time.Now().Add(-time.Hour)
	write := func(doc any) {
		b, _ := json.Marshal(doc)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(map[string]any{"keys": []map[string]any{
		{"sha256": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "status": "valid", "plan": "team"}, // foo
		{"key": "old", "status": "valid", "expires_at": past},
		{"key": "gone", "status": "revoked"},
	}})
	f, err := license.NewFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for key, want := range map[string]license.Status{"foo": license.Valid, "old": license.Expired, "gone": license.Revoked, "nope": license.Invalid} {
		v, err := f.Validate(ctx, key)
		if err != nil || v.Status != want {
			t.Errorf("%s: %v %v, want %s", key, v.Status, err, want)
		}
	}
	// The file is read again when it changes.
	time.Sleep(10 * time.Millisecond)
	write(map[string]any{"keys": []map[string]any{{"key": "foo", "status": "expired"}, {"key": "new", "status": "valid"}}})
	future := time.Now().Add(time.Second)
	_ = os.Chtimes(path, future, future)
	if v, _ := f.Validate(ctx, "foo"); v.Status != license.Expired {
		t.Errorf("changed file not read again: foo is %s", v.Status)
	}
	for _, bad := range []string{`not json`, `{"keys":[{"key":"a","status":"maybe"}]}`, `{"keys":[{"status":"valid"}]}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := license.NewFile(path, nil); err == nil {
			t.Errorf("bad file %s accepted", bad)
		}
	}
	if _, err := license.NewFile(filepath.Join(dir, "missing.json"), nil); err == nil {
		t.Error("missing file accepted")
	}
}

func TestDevBackend(t *testing.T) {
	v, _ := license.Dev{}.Validate(context.Background(), "anything")
	if v.Status != license.Valid || v.Plan == nil || *v.Plan != "dev" {
		t.Fatalf("dev backend: %+v", v)
	}
	if v, _ := (license.Dev{}).Validate(context.Background(), ""); v.Status != license.Invalid {
		t.Fatal("dev backend accepted an empty key")
	}
}

func TestHashNeverTheKey(t *testing.T) {
	h := license.Hash("secret-key")
	if h == "secret-key" || len(h) != 64 || h != license.Hash("secret-key") || h == license.Hash("secret-kez") {
		t.Fatalf("hash %q", h)
	}
}

func TestUnreachableErrorsWrap(t *testing.T) {
	kg := keygentest.New("acct", nil)
	kg.SetOutage(keygentest.ServerError)
	defer kg.Close()
	b, _ := license.NewKeygen(kg.URL, "acct")
	_, err := b.Validate(context.Background(), "k")
	if !errors.Is(err, license.ErrUnreachable) {
		t.Fatalf("503: %v does not wrap ErrUnreachable", err)
	}
}

// BenchmarkCachedCheck is the cost of a license check answered from the cache.
func BenchmarkCachedCheck(b *testing.B) {
	kg := keygentest.New("acct", map[string]keygentest.License{"k": {Code: "VALID"}})
	defer kg.Close()
	kb, _ := license.NewKeygen(kg.URL, "acct")
	c := &license.Checker{Backend: kb}
	ctx := context.Background()
	c.Check(ctx, "k")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if c.Check(ctx, "k").Reason() != "" {
			b.Fatal("refused")
		}
	}
}
