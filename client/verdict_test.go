package client

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"
)

// paidClient connects every first-party plugin of the fake host with a
// valid key, then returns the client for verdict tests.
func paidClient(t *testing.T, h *fakeHost, now *time.Time, lic *StaticLicense) *Client {
	t.Helper()
	h.setKey(testKey, "valid")
	c := &Client{Store: &MemoryStore{}, Host: MustPluginHost(h.URL()), License: lic, FirstParty: testFirstParty(),
		Lister: quickLister(), Now: func() time.Time { return *now }}
	for _, id := range []string{"google-search", "amazon"} {
		if _, err := c.ConnectFirstParty(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func failures(t *testing.T, c *Client) map[string]CheckFailure {
	rows, _ := c.Store.Plugins(context.Background())
	out := map[string]CheckFailure{}
	for _, p := range rows {
		out[p.ID] = p.CheckFailure
	}
	return out
}

func TestCheckLicenseApplies(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		keyState string // the key's state on the host when asked; "down", "503", "404" for no answer
		prior    CheckFailure
		answered bool
		want     CheckFailure
	}{
		{"valid clears a license failure", "valid", CheckLicenseExpired, true, CheckOK},
		{"valid keeps unreachable", "valid", CheckUnreachable, true, CheckUnreachable},
		{"expired", "expired", CheckOK, true, CheckLicenseExpired},
		{"revoked", "revoked", CheckOK, true, CheckLicenseRevoked},
		{"invalid", "invalid", CheckOK, true, CheckLicenseInvalid},
		{"missing", "missing", CheckOK, true, CheckNeedsLicense},
		{"503 keeps every verdict", "503", CheckLicenseExpired, false, CheckLicenseExpired},
		{"503 keeps valid", "503", CheckOK, false, CheckOK},
		{"a host without /license keeps", "404", CheckLicenseRevoked, false, CheckLicenseRevoked},
		{"a host out of reach keeps", "down", CheckLicenseExpired, false, CheckLicenseExpired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newFakeHost(t, testFirstParty())
			now := mustTime("2026-12-01T10:00:00Z")
			lic := &StaticLicense{Key: testKey}
			c := paidClient(t, h, &now, lic)
			// A custom plugin is never touched by the verdict.
			s := newStandIn(t, standInOptions{}, readOnlyTool("x", "X."))
			c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Mine"})
			for _, id := range []string{"google-search", "amazon"} {
				p, _ := c.Store.Plugin(ctx, id)
				p.CheckFailure = tc.prior
				c.Store.PutPlugin(ctx, p)
			}
			switch tc.keyState {
			case "missing":
				lic.Key = ""
			case "503", "404":
				code := map[string]int{"503": 503, "404": 404}[tc.keyState]
				h.licenseHook = func(w http.ResponseWriter, r *http.Request) bool {
					if code == 503 {
						w.Header().Set("Retry-After", "5")
						refuse(w, 503, "license_service_unavailable")
					} else {
						refuse(w, 404, "not_found")
					}
					return true
				}
			case "down":
				h.srv.Close()
			default:
				h.setKey(testKey, tc.keyState)
			}
			before := h.count("/license")
			lv, err := c.CheckLicense(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			if !lv.Asked || lv.Answered != tc.answered {
				t.Fatalf("verdict = %+v, want asked and answered %v", lv, tc.answered)
			}
			if tc.keyState != "down" && h.count("/license")-before != 1 {
				t.Errorf("asked /license %d times for two paid plugins, want once", h.count("/license")-before)
			}
			if !tc.answered && lv.Err == nil {
				t.Errorf("no answer without a reason")
			}
			got := failures(t, c)
			for _, id := range []string{"google-search", "amazon"} {
				if got[id] != tc.want {
					t.Errorf("%s: %q, want %q", id, got[id], tc.want)
				}
			}
			if got["mine"] != CheckOK {
				t.Errorf("the verdict touched a custom plugin: %q", got["mine"])
			}
			if tc.answered && !slices.Equal(lv.Plugins, []string{"amazon", "google-search"}) {
				t.Errorf("applied to %v", lv.Plugins)
			}
			if tc.keyState == "valid" && (lv.Plan != "team" || lv.ExpiresAt.IsZero()) {
				t.Errorf("verdict = %+v", lv)
			}
		})
	}
}

func TestCheckLicenseWhenItAsks(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(t, testFirstParty())
	now := mustTime("2026-12-01T10:00:00Z")
	lic := &StaticLicense{Key: testKey}
	c := paidClient(t, h, &now, lic)
	ask := func(ifStale bool) LicenseVerdict {
		t.Helper()
		lv, err := c.CheckLicense(ctx, ifStale)
		if err != nil {
			t.Fatal(err)
		}
		return lv
	}
	if lv := ask(true); !lv.Asked || !lv.Answered {
		t.Fatalf("first if_stale ask: %+v (a restart asks again)", lv)
	}
	now = now.Add(4 * time.Minute)
	if lv := ask(true); lv.Asked || lv.Skipped != "fresh" {
		t.Errorf("if_stale within five minutes asked: %+v", lv)
	}
	if lv := ask(false); !lv.Asked {
		t.Errorf("an ask without if_stale did not ask")
	}
	now = now.Add(4 * time.Minute) // 4 minutes after the last verdict
	lic.Expiry = now.Add(-time.Minute)
	if lv := ask(true); !lv.Asked {
		t.Errorf("the license's expiry passed since the last verdict, but nothing was asked")
	}
	now = now.Add(time.Minute)
	if lv := ask(true); lv.Asked {
		t.Errorf("an expiry before the last verdict made it ask again")
	}
	now = now.Add(5 * time.Minute)
	if lv := ask(true); !lv.Asked {
		t.Errorf("a verdict five minutes old was not asked again")
	}
	// No answer does not count as a verdict: the next if_stale asks again.
	h.licenseHook = func(w http.ResponseWriter, r *http.Request) bool {
		refuse(w, 503, "license_service_unavailable")
		return true
	}
	now = now.Add(6 * time.Minute)
	ask(true)
	if lv := ask(true); !lv.Asked {
		t.Errorf("after no answer, if_stale did not ask again")
	}
}

func TestCheckLicenseAsksNothing(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(t, testFirstParty())
	now := mustTime("2026-12-01T10:00:00Z")
	t.Run("no paid plugin", func(t *testing.T) {
		s := newStandIn(t, standInOptions{}, readOnlyTool("x", "X."))
		c := &Client{Store: &MemoryStore{}, Host: MustPluginHost(h.URL()), License: StaticLicense{Key: testKey}, Lister: quickLister()}
		c.ConnectCustom(ctx, CustomPlugin{URL: s.URL(), Name: "Mine"})
		lv, _ := c.CheckLicense(ctx, false)
		if lv.Asked || lv.Skipped != "no paid plugin" || h.count("/license") != 0 {
			t.Errorf("verdict = %+v, /license asked %d times", lv, h.count("/license"))
		}
	})
	t.Run("a disconnected paid plugin is not one", func(t *testing.T) {
		c := paidClient(t, h, &now, &StaticLicense{Key: testKey})
		c.Disconnect(ctx, "amazon")
		c.Disconnect(ctx, "google-search")
		lv, _ := c.CheckLicense(ctx, false)
		if lv.Asked {
			t.Errorf("asked for disconnected plugins: %+v", lv)
		}
	})
	t.Run("the plugin host switched off", func(t *testing.T) {
		c := paidClient(t, h, &now, &StaticLicense{Key: testKey})
		before := h.count("/license")
		c.Egress = &Consents{}
		lv, _ := c.CheckLicense(ctx, false)
		if lv.Asked || lv.Skipped != "plugin host off" || h.count("/license") != before {
			t.Errorf("verdict = %+v", lv)
		}
	})
}
