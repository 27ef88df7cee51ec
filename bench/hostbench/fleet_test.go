package hostbench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redisproc"
)

// TestFleetSmall runs the fleet measure at a small size: alone, three
// replicas put more than a site's limit on it and each reads robots.txt;
// as a fleet on Redis, no site sees more than its limit, is read faster
// than one replica would read it, or is asked a path robots.txt refuses,
// and robots.txt is read once.
func TestFleetSmall(t *testing.T) {
	if redisproc.Binary() == "" && os.Getenv("REDIS_URL") == "" {
		t.Skip("no redis-server installed and no REDIS_URL: the fleet measure needs Redis")
	}
	url, stop, err := redisURL()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out bytes.Buffer
	rep, err := RunFleet(context.Background(), Fleet{Calls: 48, InFlight: 24, Latency: 150 * time.Millisecond}, url, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log("\n" + out.String())
	alonePeak := 0
	for i, f := range rep.Fleet {
		a := rep.Alone[i]
		alonePeak = max(alonePeak, a.Peak)
		if f.Peak > f.LimitFlight {
			t.Errorf("%s: %d pages in flight from the fleet, limit %d", f.Name, f.Peak, f.LimitFlight)
		}
		if f.Rate > f.LimitRate+1 { // a page's start may fall either side of a window
			t.Errorf("%s: %.0f pages in a second from the fleet, one replica allows %.1f", f.Name, f.Rate, f.LimitRate)
		}
		if f.Robots != 1 || a.Robots != 3 {
			t.Errorf("%s: robots.txt read %d times by the fleet (want 1), %d alone (want 3)", f.Name, f.Robots, a.Robots)
		}
		if f.Refused != 0 || a.Refused != 0 {
			t.Errorf("%s: disallowed paths fetched: fleet %d, alone %d", f.Name, f.Refused, a.Refused)
		}
	}
	if alonePeak <= 2 {
		t.Errorf("alone, the replicas never passed a site's limit (peak %d): the measure shows no difference", alonePeak)
	}
	if rep.Failed != [2]int{} {
		t.Errorf("calls failed: %v", rep.Failed)
	}
	if !strings.Contains(out.String(), "crawl-delay-1") {
		t.Errorf("report lacks the sites:\n%s", out.String())
	}
}
