package hostbench

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// The process figures the footprint reads: this process's CPU time grows
// while it works, and its peak RSS is at least its RSS.
func TestProcessFigures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the footprint reads /proc: Linux only")
	}
	pid := strconv.Itoa(os.Getpid())
	before := cpuTime(pid)
	for t0 := time.Now(); time.Since(t0) < 100*time.Millisecond; {
	}
	if after := cpuTime(pid); after <= before {
		t.Errorf("CPU time did not grow over 100 ms of work: %v then %v", before, after)
	}
	rss, peak := procStatus(pid, "VmRSS"), procStatus(pid, "VmHWM")
	if rss == 0 || peak < rss {
		t.Errorf("VmRSS %d, VmHWM %d", rss, peak)
	}
	if procStatus(pid, "NoSuchField") != 0 || cpuTime("0") != 0 {
		t.Error("a missing field or process is not 0")
	}
}
