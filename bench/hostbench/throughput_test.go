package hostbench

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestThroughputSmall runs the throughput measure at a small size: every
// cell completes calls without errors, each no faster than a page can come,
// beside the limit its latency sets; the sites are distinct hosts. (The
// figures are for `pluginhost bench`.)
func TestThroughputSmall(t *testing.T) {
	var out bytes.Buffer
	tp := Throughput{Sites: 6, Latencies: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond}, InFlight: []int{2, 6}, Window: time.Second, Before: true}
	cells, err := RunThroughput(context.Background(), tp, nil, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if len(cells) != 6 || !cells[4].Before || !cells[5].Before || cells[5].InFlight != 6 {
		t.Fatalf("%d cells (%+v), want 4 and two with the old cap at 6 in flight", len(cells), cells)
	}
	// No page is asked twice in a run, so none is answered from the
	// host's result cache: none comes faster than its latency.
	for _, c := range cells {
		if c.Stats.Calls == 0 || c.Stats.Errors != 0 || c.Stats.P50 < c.Latency || c.Stats.P99 < c.Stats.P50 || c.RSS == 0 || c.Cores <= 0 {
			t.Errorf("cell %s × %d: %+v (first error %s)", c.Latency, c.InFlight, c.Stats, c.FirstErr)
		}
		if want := float64(c.InFlight) / c.Latency.Seconds(); c.Limit != want {
			t.Errorf("limit %.1f, want %.1f", c.Limit, want)
		}
	}
	if !strings.Contains(out.String(), "pages/s") {
		t.Errorf("no table:\n%s", out.String())
	}

	s, err := startSlowSites(6, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	hosts := map[string]bool{}
	for _, raw := range s.urls {
		u, _ := url.Parse(raw)
		hosts[u.Host] = true
	}
	if len(hosts) != 6 {
		t.Fatalf("sites %v are not 6 distinct hosts", s.urls)
	}
}
