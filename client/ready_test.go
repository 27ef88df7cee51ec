package client

import (
	"context"
	"testing"
)

func TestReadyTools(t *testing.T) {
	ctx := context.Background()
	type setup struct {
		plugin     func(*InstalledPlugin)
		tool       func(*PluginTool)
		thirdParty bool
		egressOff  bool
	}
	cases := []struct {
		name   string
		source Source
		kind   CredentialKind
		s      setup
		ready  bool
	}{
		{"first-party, all on", SourceFirstParty, CredentialLicense, setup{}, true},
		{"first-party while third-party off", SourceFirstParty, CredentialLicense, setup{thirdParty: false}, true},
		{"tool switched off", SourceFirstParty, CredentialLicense, setup{tool: func(t *PluginTool) { t.Enabled = false }}, false},
		{"plugin switched off", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.Enabled = false }}, false},
		{"disconnected", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.DisconnectedAt = mustTime("2026-12-01T00:00:00Z") }}, false},
		{"a host not allowed", SourceFirstParty, CredentialLicense, setup{egressOff: true}, false},
		{"needs_license", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckNeedsLicense }}, false},
		{"license_expired", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckLicenseExpired }}, false},
		{"license_revoked", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckLicenseRevoked }}, false},
		{"license_invalid", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckLicenseInvalid }}, false},
		{"unreachable is offered as recorded", SourceFirstParty, CredentialLicense, setup{plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckUnreachable }}, true},
		{"registry while third-party on", SourceRegistry, CredentialToken, setup{thirdParty: true}, true},
		{"registry while third-party off", SourceRegistry, CredentialToken, setup{}, false},
		{"custom while third-party off", SourceCustom, CredentialNone, setup{}, false},
		{"custom while third-party on", SourceCustom, CredentialNone, setup{thirdParty: true}, true},
		{"removed from the registry", SourceRegistry, CredentialToken, setup{thirdParty: true, plugin: func(p *InstalledPlugin) { p.RemovedReason = "malware" }}, false},
		{"an OAuth plugin signed out", SourceRegistry, CredentialOAuth, setup{thirdParty: true, plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckSignIn }}, false},
		{"a key refused is still offered", SourceCustom, CredentialToken, setup{thirdParty: true, plugin: func(p *InstalledPlugin) { p.CheckFailure = CheckSignIn }}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := &MemoryStore{}
			p := InstalledPlugin{ID: "plug", Name: "Plug", Kind: "remote", Source: tc.source, URL: "https://p.acme.dev/mcp",
				Hosts: []string{"p.acme.dev", "auth.acme.dev"}, Enabled: true, CredentialKind: tc.kind}
			if tc.s.plugin != nil {
				tc.s.plugin(&p)
			}
			st.PutPlugin(ctx, p)
			tl := PluginTool{Name: "find", Description: "Finds.", Enabled: true, Approval: ApprovalAsk, Exposure: ExposureDirect,
				Annotations: Annotations{ReadOnlyHint: yes}}
			if tc.s.tool != nil {
				tc.s.tool(&tl)
			}
			st.PutTools(ctx, p.ID, []PluginTool{tl, {Name: "off", Enabled: false}})
			st.PutSettings(ctx, PluginSettings{ThirdPartyOn: tc.s.thirdParty})
			cons := &Consents{}
			cons.Allow("p.acme.dev")
			if !tc.s.egressOff {
				cons.Allow("auth.acme.dev")
			}
			c := &Client{Store: st, Egress: cons}
			got, err := c.ReadyTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != tc.ready || len(got) > 1 {
				t.Fatalf("ready = %+v, want ready %v", got, tc.ready)
			}
			if tc.ready && (got[0].QualifiedName != "plug__find" || got[0].Plugin != "plug" || got[0].Tool != "find") {
				t.Errorf("ready tool = %+v", got[0])
			}
		})
	}
}

func TestNeedsApproval(t *testing.T) {
	cases := []struct {
		name     string
		source   Source
		a        Annotations
		approval Approval
		want     bool
	}{
		{"first-party read-only never asks", SourceFirstParty, Annotations{ReadOnlyHint: yes}, ApprovalAsk, false},
		{"first-party not read-only, harmless, ask", SourceFirstParty, Annotations{DestructiveHint: no}, ApprovalAsk, true},
		{"first-party not read-only, harmless, always", SourceFirstParty, Annotations{DestructiveHint: no}, ApprovalAlways, false},
		{"no annotations always asks", SourceCustom, Annotations{}, ApprovalAlways, true},
		{"destructive always asks", SourceCustom, Annotations{DestructiveHint: yes}, ApprovalAlways, true},
		{"read-only custom asks by default", SourceCustom, Annotations{ReadOnlyHint: yes}, ApprovalAsk, true},
		{"read-only custom set to always", SourceCustom, Annotations{ReadOnlyHint: yes}, ApprovalAlways, false},
		{"harmless registry set to always", SourceRegistry, Annotations{DestructiveHint: no}, ApprovalAlways, false},
		{"read-only registry says destructive, set to always", SourceRegistry, Annotations{ReadOnlyHint: yes, DestructiveHint: yes}, ApprovalAlways, false},
		{"read-only false explicitly, destructive absent", SourceRegistry, Annotations{ReadOnlyHint: no}, ApprovalAlways, true},
	}
	for _, tc := range cases {
		got := NeedsApproval(InstalledPlugin{Source: tc.source}, PluginTool{Annotations: tc.a, Approval: tc.approval})
		if got != tc.want {
			t.Errorf("%s: NeedsApproval = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSetToolApproval(t *testing.T) {
	ctx := context.Background()
	st := &MemoryStore{}
	st.PutPlugin(ctx, InstalledPlugin{ID: "p", URL: "https://p.dev", Enabled: true, Source: SourceCustom})
	st.PutTools(ctx, "p", []PluginTool{
		{Name: "read", Annotations: Annotations{ReadOnlyHint: yes}, Approval: ApprovalAsk, Enabled: true},
		{Name: "delete", Annotations: Annotations{}, Approval: ApprovalAsk, Enabled: true},
	})
	c := &Client{Store: st}
	if err := c.SetToolApproval(ctx, "p", "read", ApprovalAlways); err != nil {
		t.Fatal(err)
	}
	err := c.SetToolApproval(ctx, "p", "delete", ApprovalAlways)
	wantError(t, err, 422, CodeApprovalClosed)
	wantError(t, c.SetToolApproval(ctx, "p", "nope", ApprovalAsk), 404, "tool_not_found")
	wantError(t, c.SetToolApproval(ctx, "q", "read", ApprovalAsk), 404, CodeNotFound)
	tools, _ := st.Tools(ctx, "p")
	if tools[0].Approval != ApprovalAlways || tools[1].Approval != ApprovalAsk {
		t.Errorf("tools = %+v", tools)
	}
	if err := c.Remove(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if tools, _ := st.Tools(ctx, "p"); len(tools) != 0 {
		t.Errorf("removing a plugin left its tools: %+v", tools)
	}
}
