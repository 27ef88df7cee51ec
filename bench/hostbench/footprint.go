package hostbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

// What a replica costs (issue 31): each binary measured is started as a new
// replica would be, with an empty home folder, on the embedded defaults; its
// start to ready, its RSS at rest, its RSS with calls held in flight, and its
// first PDF cold (the engine compiled) and warm (loaded from a compilation
// cache), time and peak RSS (VmHWM), then a later PDF.

// Footprint is the replica footprint measure's options.
type Footprint struct {
	// Skip leaves the measure out.
	Skip bool
	// Before is another pluginhost binary measured beside this one (the
	// build before a change), "" none. Its warm PDF is a restarted replica
	// whose home folder kept the cache its cold PDF filled, since it may
	// have no warm-cache command; this binary's is a fresh home folder with
	// DOCUMENT_CACHE_DIR filled by `warm-cache`, as the image does.
	Before string
	// PDF is the document converted; "": a two-page PDF written here.
	PDF string
	// InFlight is the calls held against a site that never answers [1000];
	// <0 skips that row.
	InFlight int
}

// FootprintRow is one binary's figures.
type FootprintRow struct {
	Binary                string
	Ready                 time.Duration
	IdleRSS               uint64
	InFlight              int
	InFlightRSS, Baseline uint64
	ColdPDF, WarmPDF      time.Duration
	ColdPeak, WarmPeak    uint64
	NextPDF               time.Duration
	// The host's CPU time (user and system) during each PDF call: on a
	// machine whose cores other work shares, closer to a quiet machine's
	// time than the wall clock.
	ColdCPU, WarmCPU, NextCPU time.Duration
	WarmHow                   string
}

// RunFootprint measures self (this pluginhost binary) and f.Before; the
// run's summary writes the table (writeFootprint).
func RunFootprint(ctx context.Context, f Footprint, self string, w io.Writer) ([]FootprintRow, error) {
	if f.InFlight == 0 {
		f.InFlight = 1000
	}
	body, name := []byte(nil), "a two-page PDF written by the bench"
	if f.PDF != "" {
		b, err := os.ReadFile(f.PDF)
		if err != nil {
			return nil, err
		}
		body, name = b, fmt.Sprintf("%s, %.1f MB", filepath.Base(f.PDF), float64(len(b))/(1<<20))
	} else {
		body = pdftest.PDF([]pdftest.Page{
			{Texts: pdftest.Lines(72, 720, 11, "A page of a document for the bench.", "Its second line.")},
			{Texts: pdftest.Lines(72, 720, 11, "The second page.")},
		}, pdftest.Options{Title: "Bench"})
	}
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(body)
	}))
	defer docs.Close()

	var rows []FootprintRow
	bins := []string{self}
	if f.Before != "" {
		bins = []string{f.Before, self}
	}
	fmt.Fprintf(w, "\nreplica footprint: each start with an empty home folder, embedded defaults; PDF: %s\n", name)
	for _, bin := range bins {
		row, err := footprintOf(ctx, f, bin, bin == self, docs.URL, w)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", bin, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func footprintOf(ctx context.Context, f Footprint, bin string, self bool, docs string, w io.Writer) (FootprintRow, error) {
	row := FootprintRow{Binary: bin}
	tmp, err := os.MkdirTemp("", "pluginhost-footprint-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(tmp)
	// Each binary runs from a copy of its own, written alike: the kernel
	// maps a binary's code in pieces as large as the page cache holds it
	// in, so one just read whole (the bench's own, running; one just
	// copied from or compared) showed up to 5 MB more RSS (RssFile) at rest
	// than the same bytes written and not read since.
	exe := filepath.Join(tmp, "pluginhost")
	if err := copyFile(bin, exe); err != nil {
		return row, err
	}
	home := func(name string) []string {
		h := filepath.Join(tmp, name)
		os.MkdirAll(h, 0o700)
		return []string{"HOME=" + h, "XDG_CACHE_HOME=", "DOCUMENT_CACHE_DIR=", "LOG_LEVEL=error"}
	}
	serve := []string{exe, "serve"}

	// At rest, and cold: a new replica's first PDF compiles the engine.
	t0 := time.Now()
	hp, err := startHost(ctx, serve, home("cold")...)
	if err != nil {
		return row, err
	}
	row.Ready = time.Since(t0)
	time.Sleep(2 * time.Second) // what start-up leaves behind settles
	pid := strconv.Itoa(hp.cmd.Process.Pid)
	row.IdleRSS = rss(pid)
	cpu0 := cpuTime(pid)
	row.ColdPDF, err = pdfCall(ctx, hp.url, docs+"/doc.pdf?n=1")
	row.ColdPeak = procStatus(pid, "VmHWM")
	cpu1 := cpuTime(pid)
	row.ColdCPU = cpu1 - cpu0
	if err == nil {
		row.NextPDF, err = pdfCall(ctx, hp.url, docs+"/doc.pdf?n=2")
		row.NextCPU = cpuTime(pid) - cpu1
	}
	hp.stop()
	if err != nil {
		return row, fmt.Errorf("the cold PDF: %w", err)
	}

	// Warm: the image's way for this binary, a restart for another.
	env := home("cold") // the home folder the cold replica filled
	row.WarmHow = "restart, same home"
	if self {
		cache := filepath.Join(tmp, "pdf-cache")
		out, err := exec.CommandContext(ctx, exe, "warm-cache", cache).CombinedOutput()
		if err != nil {
			return row, fmt.Errorf("warm-cache: %v: %s", err, out)
		}
		env = append(home("warm"), "DOCUMENT_CACHE_DIR="+cache)
		row.WarmHow = "warm-cache, new home"
	}
	hp, err = startHost(ctx, serve, env...)
	if err != nil {
		return row, err
	}
	pid = strconv.Itoa(hp.cmd.Process.Pid)
	cpu0 = cpuTime(pid)
	row.WarmPDF, err = pdfCall(ctx, hp.url, docs+"/doc.pdf?n=3")
	row.WarmPeak = procStatus(pid, "VmHWM")
	row.WarmCPU = cpuTime(pid) - cpu0
	hp.stop()
	if err != nil {
		return row, fmt.Errorf("the warm PDF: %w", err)
	}

	if f.InFlight > 0 {
		s := newSite()
		defer s.Close()
		var rep Report
		o := Options{InFlight: f.InFlight, HostCommand: serve}
		fmt.Fprintf(w, "%s:", bin)
		if err := inFlight(ctx, o, nil, "", s, &rep, w); err != nil {
			return row, err
		}
		row.InFlight, row.InFlightRSS, row.Baseline = rep.InFlight, rep.InFlightRSS, rep.BaselineRSS
	}
	return row, nil
}

// copyFile writes a copy of the executable src at dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pdfCall crawls one PDF through the host and returns the call's time.
func pdfCall(ctx context.Context, hostURL, pdfURL string) (time.Duration, error) {
	cs, err := mcpdial.Connect(ctx, hostURL+"/web-crawl/mcp", "bench-key", nil, nil, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{pdfURL}}})
	took := time.Since(t0)
	if err != nil {
		return took, err
	}
	text := ""
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text += t.Text
		}
	}
	if res.IsError || !strings.Contains(text, `"kind":"pdf"`) {
		return took, fmt.Errorf("the crawl of a PDF answered: %.300s", text)
	}
	return took, nil
}

// cpuTime is a process's user and system CPU time so far (Linux: /proc
// stat, in clock ticks of 10 ms); 0 when it cannot be read.
func cpuTime(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ")".
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// procStatus is a field of a process's /proc status in bytes (VmRSS,
// VmHWM); 0 when it cannot be read.
func procStatus(pid, field string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			if f := strings.Fields(rest); len(f) >= 1 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// writeFootprint writes the rows as one table, a column per binary.
func writeFootprint(w io.Writer, rows []FootprintRow) {
	mb := func(b uint64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
	sec := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	line := func(label string, cell func(FootprintRow) string) {
		fmt.Fprintf(w, "  %-52s", label)
		for _, r := range rows {
			fmt.Fprintf(w, " %-26s", cell(r))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "  replica footprint (issue 31)")
	line("", func(r FootprintRow) string { return filepath.Base(r.Binary) })
	line("start to ready (target ≤ 1 s)", func(r FootprintRow) string { return sec(r.Ready) })
	line("idle RSS (target ≤ 50 MB)", func(r FootprintRow) string { return mb(r.IdleRSS) })
	line("calls in flight: RSS (target for 1,000 ≤ 120 MB)", func(r FootprintRow) string {
		if r.InFlight == 0 {
			return "-"
		}
		return fmt.Sprintf("%d: %s", r.InFlight, mb(r.InFlightRSS))
	})
	line("  per call in flight, above its baseline", func(r FootprintRow) string {
		if r.InFlight == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f KB", float64(int64(r.InFlightRSS)-int64(r.Baseline))/float64(r.InFlight)/1024)
	})
	line("first PDF, cold: time (CPU), peak RSS", func(r FootprintRow) string {
		return sec(r.ColdPDF) + " (" + sec(r.ColdCPU) + "), " + mb(r.ColdPeak)
	})
	line("first PDF, warm (target ≤ 1.5 s, < 300 MB)", func(r FootprintRow) string {
		return sec(r.WarmPDF) + " (" + sec(r.WarmCPU) + "), " + mb(r.WarmPeak)
	})
	line("  warm how", func(r FootprintRow) string { return r.WarmHow })
	line("a later PDF: time (CPU)", func(r FootprintRow) string { return sec(r.NextPDF) + " (" + sec(r.NextCPU) + ")" })
}
