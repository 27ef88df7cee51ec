package scrapertest

import (
	"os"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// PeakDuring runs f and returns the process's peak RSS during it (VmHWM
// after clearing it; 0 when the kernel does not allow that) and the peak
// live heap (sampled every millisecond), both in MB. Memory benchmarks
// report them.
func PeakDuring(f func()) (rssMB, heapMB float64) {
	canReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	sample := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			rtmetrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	if canReset {
		rssMB = VmHWM() / 1024
	}
	return rssMB, float64(peak) / (1 << 20)
}

// VmHWM is the process's peak RSS in kB as /proc/self/status gives it (0
// where there is no such file).
func VmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb
		}
	}
	return 0
}
