package render

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRender renders a small app page (a script writes the text, a
// fetch brings more) with RENDER_CONCURRENCY pages in flight, and reports
// renders per second and the peak memory of the host process (RSS) and of
// the browser's process tree (PSS, so that pages shared between its
// processes count once) while they render.
//
//	go test ./scrapers/render -run '^$' -bench Render -benchtime 40x
func BenchmarkRender(b *testing.B) {
	for _, c := range []int{1, DefaultConcurrency, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) { benchRender(b, c) })
	}
}

func benchRender(b *testing.B, concurrency int) {
	s := newSite(b)
	s.page("/", `<!doctype html><html><head><title>bench</title></head><body><main id="m"></main><script>
document.getElementById("m").innerHTML = "<h1>Bench</h1><p>" + "Some text written by a script. ".repeat(50) + "</p>";
fetch("/data").then(r => r.text()).then(t => { document.getElementById("m").insertAdjacentHTML("beforeend", "<p>" + t + "</p>"); });
</script></body></html>`)
	s.mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.Repeat("fetched ", 100)) })
	r := newRenderer(b, Config{Concurrency: concurrency, Quiet: 200 * time.Millisecond}, s.addr())
	ctx := context.Background()
	if _, err := r.Render(ctx, s.URL+"/"); err != nil { // start the browser
		b.Fatal(err)
	}
	pid := r.cur.pid

	var peakHost, peakBrowser atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := rssKiB(os.Getpid()); h > peakHost.Load() {
				peakHost.Store(h)
			}
			if br := treePSSKiB(pid); br > peakBrowser.Load() {
				peakBrowser.Store(br)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})

	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	began := time.Now()
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				p, err := r.Render(ctx, s.URL+"/")
				if err != nil || !strings.Contains(p.HTML, "fetched fetched") {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	b.StopTimer()
	close(stop)
	sampler.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d renders failed", n, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "renders/s")
	b.ReportMetric(float64(peakHost.Load())/1024, "host-MiB")
	b.ReportMetric(float64(peakBrowser.Load())/1024, "browser-MiB")
}

// rssKiB is a process's resident set (VmRSS), in KiB.
func rssKiB(pid int) int64 {
	return statusField(filepath.Join("/proc", strconv.Itoa(pid), "status"), "VmRSS:")
}

// treePSSKiB is the proportional set size of pid and all its descendants.
func treePSSKiB(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var total int64
	var walk func(int)
	walk = func(p int) {
		total += statusField(filepath.Join("/proc", strconv.Itoa(p), "smaps_rollup"), "Pss:")
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}

func statusField(path, field string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				n, _ := strconv.ParseInt(fs[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
