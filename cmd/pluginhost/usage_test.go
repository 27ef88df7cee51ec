package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/redisstore"
	hostusage "github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

func TestUsageTopListsLicensesByHashPrefix(t *testing.T) {
	srv := redistest.Start(t)
	prefix := "surfsense:ph:cmd-usage-test:" + time.Now().Format("150405.000000000") + ":"
	st, err := redisstore.New(context.Background(), srv.URL, redisstore.Options{Prefix: prefix, Timeout: time.Second, UsageFlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	when := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for key, calls := range map[string]int64{"key-small": 2, "key-big": 9, "key-mid": 5} {
		st.Usage().Add(hostusage.Event{License: license.Hash(key), Plan: "team\x1b[31m", Plugin: "web-crawl", Tool: "crawl", Time: when,
			Counts: hostusage.Counts{Calls: calls, Items: 3 * calls, UpstreamBytes: 100 * calls}})
	}
	if err := st.FlushUsage(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REDIS_URL", srv.URL)
	var out, errb bytes.Buffer
	if code := run([]string{"usage", "--top", "2", "--month", "2026-12", "--prefix", prefix}, &out, &errb); code != 0 {
		t.Fatalf("usage --top: %d %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "month 2026-12") {
		t.Fatalf("want a title, a header and two licenses:\n%s", out.String())
	}
	big, mid := license.Hash("key-big")[:12], license.Hash("key-mid")[:12]
	if !strings.Contains(lines[2], big) || !strings.Contains(lines[2], " 9 ") || !strings.Contains(lines[3], mid) {
		t.Fatalf("not the two that used most, most first:\n%s", out.String())
	}
	if strings.Contains(out.String(), license.Hash("key-big")) || strings.Contains(out.String(), "key-") || strings.Contains(out.String(), "\x1b") {
		t.Fatalf("the list shows more than a hash prefix, or a control character:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"usage", "--day", "2026-11-30", "--prefix", prefix}, &out, &errb); code != 0 || !strings.Contains(out.String(), "no usage counted in day 2026-11-30") {
		t.Fatalf("a day with nothing: %d %q", code, out.String())
	}
	for _, args := range [][]string{{"--day", "2026-12-1"}, {"--month", "2026-13"}, {"--day", "2026-12-01", "--month", "2026-12"}, {"--top", "0"}} {
		errb.Reset()
		if code := run(append([]string{"usage"}, args...), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("usage %v = %d %q, want 2 and a reason", args, code, errb.String())
		}
	}
	t.Setenv("REDIS_URL", "")
	errb.Reset()
	if code := run([]string{"usage"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "REDIS_URL") {
		t.Fatalf("without REDIS_URL: %d %q", code, errb.String())
	}
}
