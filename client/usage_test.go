package client_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/client"
)

// TestRealHostUsage: client.Usage reads the real host's GET /usage (today,
// a range, refusals), and doctor prints today's usage.
func TestRealHostUsage(t *testing.T) {
	ctx := context.Background()
	h := startHost(t)
	// Two calls: get_result of a result that does not exist answers with a
	// tool error, which is a call answered all the same.
	cs := h.Connect(t, "web-crawl", validKey, nil)
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_result", Arguments: map[string]any{"result_id": "r-none", "offset": 0}}); err != nil {
			t.Fatal(err)
		}
	}
	c := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(h.URL), License: client.StaticLicense{Key: validKey}}
	u, err := c.Usage(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	if u.Day != today || u.Plan == nil || *u.Plan != "team" || u.Totals.Day == nil || u.Totals.Day.Calls != 2 || u.Totals.Month.Calls != 2 {
		t.Fatalf("usage = %+v", u)
	}
	if got := u.Plugins["web-crawl"].Tools["get_result"].Day; got == nil || got.Calls != 2 {
		t.Fatalf("web-crawl.get_result today = %+v", got)
	}
	if p, ok := u.Plugins["amazon"]; !ok || p.Day == nil || p.Day.Calls != 0 {
		t.Fatalf("a plugin mounted and unused is listed with zeros: %+v", p)
	}
	r, err := c.Usage(ctx, time.Now().UTC().AddDate(0, 0, -2).Format("2006-01-02"), "")
	if err != nil || len(r.Days) != 3 || r.Totals.Range == nil || r.Totals.Range.Calls != 2 || r.To != today {
		t.Fatalf("a range of three days = %+v, %v", r, err)
	}
	var ue *client.UsageError
	if _, err := c.Usage(ctx, "2026-01-01", "2026-12-31"); !errors.As(err, &ue) || ue.Status != 400 || !strings.Contains(ue.Message, "at most 45 days") {
		t.Fatalf("a range of a year = %v", err)
	}
	expired := &client.Client{Store: &client.MemoryStore{}, Host: client.MustPluginHost(h.URL), License: client.StaticLicense{Key: expiredKey}}
	if _, err := expired.Usage(ctx, "", ""); !errors.As(err, &ue) || ue.Status != 403 || ue.Reason != "expired" {
		t.Fatalf("an expired license = %v", err)
	}

	var out bytes.Buffer
	if _, err := client.Doctor(ctx, client.DoctorOptions{Host: h.URL, License: validKey}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"usage          ok    today (" + today + ", UTC): 2 calls, 0 items, 0 upstream requests (0 B); this month: 2 calls",
		"usage                web-crawl: 2 calls"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	_, _ = client.Doctor(ctx, client.DoctorOptions{Host: h.URL, License: expiredKey}, &out)
	if !strings.Contains(out.String(), "usage          --    not read: the host refused the license (expired)") {
		t.Errorf("doctor with an expired license:\n%s", out.String())
	}
}
