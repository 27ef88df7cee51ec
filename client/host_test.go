package client_test

// Tests against the real plugin host, run in process by host/hosttest: the
// app's connect, checks, readiness, license verdict, registry fetch and
// doctor, end to end.

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/client"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/registry"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// keys is a license backend with fixed keys; a key it does not know is
// invalid.
type keys struct {
	mu sync.Mutex
	m  map[string]license.Status
	n  int // validations asked
}

func (k *keys) Name() string { return "test" }

func (k *keys) Validate(_ context.Context, key string) (license.Verdict, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n++
	st, ok := k.m[key]
	if !ok {
		return license.Verdict{Status: license.Invalid}, nil
	}
	plan := "team"
	return license.Verdict{Status: st, Plan: &plan}, nil
}

const (
	validKey   = "host-test-valid-key"
	expiredKey = "host-test-expired-key"
	revokedKey = "host-test-revoked-key"
)

func startHost(t *testing.T) *hosttest.Host {
	t.Helper()
	return hosttest.Start(t, hosttest.Options{Plugins: all.Plugins, Backend: &keys{m: map[string]license.Status{
		validKey: license.Valid, expiredKey: license.Expired, revokedKey: license.Revoked,
	}}})
}

func firstParty(t *testing.T) *registry.List {
	t.Helper()
	l, err := registry.FirstPartyList()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRealHostConnectEveryFirstPartyPlugin(t *testing.T) {
	ctx := context.Background()
	h := startHost(t)
	fp := firstParty(t)
	c := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(h.URL), License: client.StaticLicense{Key: validKey}, FirstParty: fp}
	want := 0
	for _, e := range fp.Plugins {
		p, err := c.ConnectFirstParty(ctx, e.ID)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if p.CheckFailure != client.CheckOK || p.URL != h.URL+"/"+e.ID+"/mcp" || p.CredentialKind != client.CredentialLicense {
			t.Errorf("%s: row %+v", e.ID, p)
		}
		tools, _ := c.Store.Tools(ctx, e.ID)
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
			if !tl.Annotations.ReadOnly() || !tl.Enabled {
				t.Errorf("%s.%s: read-only %v, on %v", e.ID, tl.Name, tl.Annotations.ReadOnly(), tl.Enabled)
			}
			if client.NeedsApproval(p, tl) {
				t.Errorf("%s.%s: a first-party read-only tool asks", e.ID, tl.Name)
			}
		}
		if missing, extra := registry.ToolsMatch(e.Tools, names); len(missing)+len(extra) > 0 {
			t.Errorf("%s: missing %v, extra %v", e.ID, missing, extra)
		}
		want += len(tools)
	}
	ready, err := c.ReadyTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ready) != want {
		t.Errorf("%d ready tools, want %d", len(ready), want)
	}
	found := false
	for _, r := range ready {
		if r.QualifiedName == "web-crawl__crawl" {
			found = true
		}
	}
	if !found && fp.Lookup("web-crawl") != nil {
		t.Errorf("web-crawl__crawl is not ready")
	}
	lv, err := c.CheckLicense(ctx, false)
	if err != nil || !lv.Answered || lv.Status != "valid" || lv.Plan != "team" || len(lv.Plugins) != len(fp.Plugins) {
		t.Errorf("verdict = %+v, %v", lv, err)
	}
}

func TestRealHostLicenseRefusalsAndVerdict(t *testing.T) {
	ctx := context.Background()
	h := startHost(t)
	fp := firstParty(t)
	id := fp.Plugins[0].ID
	cases := []struct {
		key  string
		want client.CheckFailure
	}{
		{expiredKey, client.CheckLicenseExpired},
		{revokedKey, client.CheckLicenseRevoked},
		{"a-key-nobody-issued", client.CheckLicenseInvalid},
		{"", client.CheckNeedsLicense},
	}
	for _, tc := range cases {
		t.Run(string(tc.want), func(t *testing.T) {
			lic := &mutableLicense{key: tc.key}
			c := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(h.URL), License: lic, FirstParty: fp}
			p, err := c.ConnectFirstParty(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if p.CheckFailure != tc.want {
				t.Fatalf("connected with %q, want %q", p.CheckFailure, tc.want)
			}
			if ready, _ := c.ReadyTools(ctx); len(ready) != 0 {
				t.Errorf("a refused license's tools are ready: %v", ready)
			}
			lv, _ := c.CheckLicense(ctx, false)
			if !lv.Answered || lv.Failure != tc.want {
				t.Errorf("verdict = %+v", lv)
			}
			// The license renewed: the verdict brings the plugin back, and
			// the next check records its tools.
			lic.set(validKey)
			lv, _ = c.CheckLicense(ctx, false)
			if !lv.Answered || lv.Failure != client.CheckOK {
				t.Fatalf("verdict after renewal = %+v", lv)
			}
			p, err = c.Check(ctx, id)
			if err != nil || p.CheckFailure != client.CheckOK {
				t.Fatalf("check after renewal: %v %q", err, p.CheckFailure)
			}
			if ready, _ := c.ReadyTools(ctx); len(ready) == 0 {
				t.Errorf("no tool ready after renewal")
			}
		})
	}
}

func TestRealHostDownKeepsVerdicts(t *testing.T) {
	ctx := context.Background()
	h := startHost(t)
	fp := firstParty(t)
	id := fp.Plugins[0].ID
	c := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(h.URL), License: client.StaticLicense{Key: expiredKey}, FirstParty: fp,
		Lister: &client.Lister{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}}
	if _, err := c.ConnectFirstParty(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.Server.Close()
	lv, err := c.CheckLicense(ctx, false)
	if err != nil || lv.Answered || lv.Err == nil {
		t.Errorf("verdict from a host that is down = %+v, %v", lv, err)
	}
	p, err := c.Check(ctx, id)
	if err != nil || p.CheckFailure != client.CheckLicenseExpired {
		t.Errorf("a check that cannot reach the host: %v, %q (the refused license must stay)", err, p.CheckFailure)
	}
}

func TestRealHostRegistryAndDoctor(t *testing.T) {
	ctx := context.Background()
	h := startHost(t)
	trust := registry.Trust{PublicKey: registry.DevPublicKey()}
	v, err := registry.NewVerifier(trust)
	if err != nil {
		t.Fatal(err)
	}
	r := &client.Registry{Host: client.MustPluginHost(h.URL), Verifier: v}
	list, _, err := r.Fetch(ctx)
	if err != nil || list == nil || len(list.Plugins) == 0 {
		t.Fatalf("the host's registry: %v, %v", list, err)
	}

	var out bytes.Buffer
	ok, err := client.Doctor(ctx, client.DoctorOptions{Host: h.URL, License: validKey, Trust: trust}, &out)
	if err != nil || !ok {
		t.Fatalf("doctor on a healthy host: ok %v, %v\n%s", ok, err, out.String())
	}
	for _, want := range []string{"registry       ok    verified:", "first-party    ok", "license        ok    valid, plan team", "result         ok"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("doctor:\n%s", out.String())

	out.Reset()
	ok, err = client.Doctor(ctx, client.DoctorOptions{Host: h.URL, License: expiredKey}, &out)
	if err != nil || ok {
		t.Fatalf("doctor with an expired license: ok %v, %v", ok, err)
	}
	if !strings.Contains(out.String(), "license        FAIL  license expired") {
		t.Errorf("output:\n%s", out.String())
	}
	for _, k := range []string{validKey, expiredKey} {
		if strings.Contains(out.String(), k) {
			t.Errorf("the output shows a key")
		}
	}
}

type mutableLicense struct {
	mu  sync.Mutex
	key string
}

func (l *mutableLicense) set(k string) { l.mu.Lock(); l.key = k; l.mu.Unlock() }
func (l *mutableLicense) LicenseKey() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.key
}
func (l *mutableLicense) LicenseExpiry() (t time.Time) { return t }
