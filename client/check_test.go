package client

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ann(readOnly, destructive, idempotent, openWorld *bool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{DestructiveHint: destructive, OpenWorldHint: openWorld}
	if readOnly != nil {
		a.ReadOnlyHint = *readOnly
	}
	if idempotent != nil {
		a.IdempotentHint = *idempotent
	}
	return a
}

var (
	yes = bptr(true)
	no  = bptr(false)
)

func TestLessSafeThan(t *testing.T) {
	a := func(ro, de, id, ow *bool) Annotations {
		return listing(&mcp.Tool{Name: "x", Annotations: ann(ro, de, id, ow)}).Annotations
	}
	cases := []struct {
		name     string
		old, new Annotations
		less     bool
	}{
		{"same", a(yes, no, nil, yes), a(yes, no, nil, yes), false},
		{"stops being read-only", a(yes, no, nil, yes), a(nil, no, nil, yes), true},
		{"becomes read-only", a(nil, nil, nil, nil), a(yes, nil, nil, nil), false},
		{"stops saying harmless", a(nil, no, nil, nil), a(nil, nil, nil, nil), true},
		{"says destructive", a(nil, no, nil, nil), a(nil, yes, nil, nil), true},
		{"says harmless", a(nil, yes, nil, nil), a(nil, no, nil, nil), false},
		{"read-only's destructive hint is meaningless", a(yes, no, nil, nil), a(yes, yes, nil, nil), false},
		{"stops saying idempotent", a(nil, no, yes, nil), a(nil, no, nil, nil), true},
		{"reaches an open world", a(yes, nil, nil, no), a(yes, nil, nil, yes), true},
		{"open world by default", a(yes, nil, nil, no), a(yes, nil, nil, nil), true},
		{"closes its world", a(yes, nil, nil, yes), a(yes, nil, nil, no), false},
		{"no annotations to none", Annotations{}, Annotations{}, false},
	}
	for _, tc := range cases {
		if got := tc.new.LessSafeThan(tc.old); got != tc.less {
			t.Errorf("%s: LessSafeThan = %v, want %v", tc.name, got, tc.less)
		}
	}
}

func TestRecordTools(t *testing.T) {
	now := mustTime("2026-12-01T00:00:00Z")
	then := mustTime("2026-11-01T00:00:00Z")
	tool := func(name, desc string, a *mcp.ToolAnnotations) *mcp.Tool {
		return &mcp.Tool{Name: name, Title: name, Description: desc, InputSchema: map[string]any{"type": "object"}, Annotations: a}
	}
	first := firstTools([]*mcp.Tool{
		tool("keep", "Keeps.", ann(yes, no, nil, yes)),
		tool("describe", "Old words.", ann(yes, no, nil, yes)),
		tool("unsafe", "Reads.", ann(yes, no, nil, yes)),
		tool("drop", "Dropped.", nil),
		tool("retitle", "Same.", ann(yes, no, nil, yes)),
		tool("waiting", "New last time.", nil),
	}, then)
	// The user set things: "keep" always allowed, "waiting" still new and off.
	first[0].Approval = ApprovalAlways
	first[5].Enabled, first[5].Change = false, ChangeAdded
	listed := []*mcp.Tool{
		tool("added", "Brand new.", ann(yes, no, nil, yes)),
		tool("keep", "Keeps.", ann(yes, no, nil, yes)),
		tool("describe", "New words.", ann(yes, no, nil, yes)),
		tool("unsafe", "Reads.", ann(nil, nil, nil, yes)),
		{Name: "retitle", Title: "Another title", Description: "Same.", InputSchema: map[string]any{"type": "object", "required": []string{"q"}}, Annotations: ann(yes, no, nil, yes)},
		tool("waiting", "New last time, changed again.", nil),
	}
	got := RecordTools(first, listed, now)
	byName := map[string]PluginTool{}
	var order []string
	for _, tl := range got {
		byName[tl.Name] = tl
		order = append(order, tl.Name)
	}
	if !slices.Equal(order, []string{"added", "keep", "describe", "unsafe", "retitle", "waiting"}) {
		t.Fatalf("order = %v (the dropped tool must be deleted)", order)
	}
	for i, tl := range got {
		if tl.Position != i {
			t.Errorf("%s at position %d, want %d", tl.Name, tl.Position, i)
		}
	}
	cases := []struct {
		name    string
		enabled bool
		change  Change
	}{
		{"added", false, ChangeAdded},
		{"keep", true, ChangeNone},
		{"describe", false, ChangeChanged},
		{"unsafe", false, ChangeChanged},
		{"retitle", true, ChangeNone},
		{"waiting", false, ChangeAdded},
	}
	for _, tc := range cases {
		tl := byName[tc.name]
		if tl.Enabled != tc.enabled || tl.Change != tc.change {
			t.Errorf("%s: enabled %v change %q, want %v %q", tc.name, tl.Enabled, tl.Change, tc.enabled, tc.change)
		}
	}
	if a := byName["added"]; !a.FirstSeenAt.Equal(now) || a.Approval != ApprovalAsk || a.Exposure != ExposureDirect {
		t.Errorf("added = %+v", a)
	}
	if k := byName["keep"]; k.Approval != ApprovalAlways || !k.FirstSeenAt.Equal(then) {
		t.Errorf("keep lost the user's settings: %+v", k)
	}
	if r := byName["retitle"]; r.Title != "Another title" || string(r.InputSchema) != `{"required":["q"],"type":"object"}` {
		t.Errorf("retitle's listing not updated: %+v %s", r, r.InputSchema)
	}
	if d := byName["describe"]; d.Description != "New words." {
		t.Errorf("describe = %q", d.Description)
	}
}

// TestCheckToolsChangeOnTheServer runs checks against a stand-in server
// whose tools change between listings.
func TestCheckToolsChangeOnTheServer(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds notes."), readOnlyTool("list", "Lists notes."), readOnlyTool("old", "Old."))
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	p, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"})
	if err != nil {
		t.Fatal(err)
	}
	// The server changes: a new tool, a new description, a tool gone.
	s.addTool(readOnlyTool("export", "Exports notes."))
	s.addTool(readOnlyTool("find", "Finds notes and sends them elsewhere."))
	s.server.RemoveTools("old")
	p, err = c.Check(ctx, p.ID)
	if err != nil || p.CheckFailure != CheckOK {
		t.Fatalf("check: %v %q", err, p.CheckFailure)
	}
	tools, _ := c.Store.Tools(ctx, p.ID)
	state := map[string]string{}
	for _, tl := range tools {
		state[tl.Name] = string(tl.Change)
		if tl.Enabled {
			state[tl.Name] += "+on"
		}
	}
	want := map[string]string{"find": "changed", "list": "+on", "export": "added"}
	if len(state) != len(want) {
		t.Fatalf("tools = %v, want %v", state, want)
	}
	for k, v := range want {
		if state[k] != v {
			t.Errorf("%s: %q, want %q", k, state[k], v)
		}
	}
	if ready, _ := c.ReadyTools(ctx); len(ready) != 0 {
		t.Errorf("a custom plugin's tools are ready while third-party plugins are off: %+v", ready)
	}
	c.SetThirdPartyAllowed(ctx, true)
	ready, _ := c.ReadyTools(ctx)
	if len(ready) != 1 || ready[0].QualifiedName != "notes__list" {
		t.Errorf("ready = %+v, want only notes__list", ready)
	}
	// Switching it on clears the mark.
	if err := c.SetToolEnabled(ctx, p.ID, "find", true); err != nil {
		t.Fatal(err)
	}
	tools, _ = c.Store.Tools(ctx, p.ID)
	for _, tl := range tools {
		if tl.Name == "find" && (tl.Change != ChangeNone || !tl.Enabled) {
			t.Errorf("find after switching on: %+v", tl)
		}
	}
	// Unchanged at the next check: it stays on.
	c.Check(ctx, p.ID)
	tools, _ = c.Store.Tools(ctx, p.ID)
	for _, tl := range tools {
		if tl.Name == "find" && !tl.Enabled {
			t.Errorf("find switched off again without a change")
		}
	}
}

func TestCheckFailures(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		status int
		reason string
		prior  CheckFailure
		want   CheckFailure
	}{
		{"a 401 is sign_in", 401, "", CheckOK, CheckSignIn},
		{"a 403 with another reason is sign_in", 403, "forbidden", CheckOK, CheckSignIn},
		{"missing_license", 401, "missing_license", CheckOK, CheckNeedsLicense},
		{"expired", 403, "expired", CheckOK, CheckLicenseExpired},
		{"revoked", 403, "revoked", CheckOK, CheckLicenseRevoked},
		{"invalid", 403, "invalid", CheckOK, CheckLicenseInvalid},
		{"a 5xx is unreachable", 503, "license_service_unavailable", CheckOK, CheckUnreachable},
		{"a 404 is unreachable", 404, "", CheckOK, CheckUnreachable},
		{"down keeps a refused license", 502, "", CheckLicenseExpired, CheckLicenseExpired},
		{"down replaces sign_in", 502, "", CheckSignIn, CheckUnreachable},
		{"a new license refusal replaces the old", 403, "revoked", CheckLicenseExpired, CheckLicenseRevoked},
		{"an answer clears a license failure", 0, "", CheckLicenseExpired, CheckOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
			c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
			p, err := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"})
			if err != nil {
				t.Fatal(err)
			}
			p.CheckFailure = tc.prior
			c.Store.PutPlugin(ctx, p)
			if tc.status != 0 {
				s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
					refuse(w, tc.status, tc.reason)
					return true
				})
			}
			before := p.CheckedAt
			time.Sleep(time.Millisecond)
			p, err = c.Check(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p.CheckFailure != tc.want {
				t.Errorf("check_failure = %q, want %q", p.CheckFailure, tc.want)
			}
			if !p.CheckedAt.After(before) {
				t.Errorf("checked_at not moved")
			}
			tools, _ := c.Store.Tools(ctx, p.ID)
			if len(tools) != 1 || !tools[0].Enabled {
				t.Errorf("a failed check lost the tools: %+v", tools)
			}
		})
	}
}

func TestCheckRefusals(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	p, _ := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"})
	_, err := c.Check(ctx, "nope")
	wantError(t, err, 404, CodeNotFound)

	cons := &Consents{}
	c.Egress = cons
	s.reset()
	_, err = c.Check(ctx, p.ID)
	wantError(t, err, 403, CodeEgressDisabled)
	if len(s.seen()) != 0 {
		t.Errorf("a host not allowed was contacted")
	}
	c.Egress = nil

	if err := c.Disconnect(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Check(ctx, p.ID)
	wantError(t, err, 409, CodeDisconnected)
	row, _ := c.Store.Plugin(ctx, p.ID)
	if row.Credential != "" || !row.Disconnected() {
		t.Errorf("disconnected row = %+v", row)
	}
}

// TestCheckConcurrentShareOneListing: checks of one plugin started together
// make one listing.
func TestCheckConcurrentShareOneListing(t *testing.T) {
	ctx := context.Background()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	p, _ := c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Notes"})
	release := make(chan struct{})
	var once sync.Once
	entered := make(chan struct{})
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if rpcMethod(seenBody(r)) == "initialize" {
			once.Do(func() { close(entered) })
			<-release
		}
		return false
	})
	s.reset()
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	wg.Add(1)
	go func() { defer wg.Done(); _, err := c.Check(ctx, p.ID); errs <- err }()
	<-entered
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); _, err := c.Check(ctx, p.ID); errs <- err }()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	inits := 0
	for _, r := range s.seen() {
		if rpcMethod(r.Body) == "initialize" {
			inits++
		}
	}
	if inits != 1 {
		t.Errorf("%d listings for five concurrent checks, want 1", inits)
	}
}

func TestCheckStaleListsOnlyReadyPlugins(t *testing.T) {
	ctx := context.Background()
	s1 := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	s2 := newStandIn(t, standInOptions{}, readOnlyTool("b", "B."))
	now := mustTime("2026-12-01T10:00:00Z")
	c := &Client{Store: &MemoryStore{}, Lister: quickLister(), Now: func() time.Time { return now }}
	c.SetThirdPartyAllowed(ctx, true)
	c.ConnectCustom(ctx, CustomPlugin{URL: s1.URL(), Name: "One"})
	c.ConnectCustom(ctx, CustomPlugin{URL: s2.URL(), Name: "Two"})
	c.SetPluginEnabled(ctx, "two", false)
	s1.reset()
	s2.reset()
	if n, err := c.CheckStale(ctx, 5*time.Minute); err != nil || n != 0 {
		t.Fatalf("fresh checks listed %d (%v)", n, err)
	}
	now = now.Add(6 * time.Minute)
	n, err := c.CheckStale(ctx, 5*time.Minute)
	if err != nil || n != 1 {
		t.Fatalf("listed %d (%v), want 1", n, err)
	}
	if len(s1.seen()) == 0 || len(s2.seen()) != 0 {
		t.Errorf("the ready plugin was listed %d times, the plugin switched off %d times", len(s1.seen()), len(s2.seen()))
	}
}
