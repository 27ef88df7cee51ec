package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

// dockerSteps are the Dockerfile's steps that make a replica's first PDF
// warm, read from the file itself so that this test runs what the image
// runs: the build's output, the warm-cache step, the folder the runtime
// stage copies it to, and the DOCUMENT_CACHE_DIR it sets.
type dockerSteps struct {
	binary     string // the build stage's binary, e.g. /out/pluginhost
	buildCache string // warm-cache's DIR in the build stage
	imageCache string // where the runtime stage copies it
}

func readDockerSteps(t *testing.T) dockerSteps {
	t.Helper()
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := strings.ReplaceAll(string(b), "\\\n", " ")
	find := func(what, pattern string) []string {
		m := regexp.MustCompile(pattern).FindStringSubmatch(df)
		if m == nil {
			t.Fatalf("the Dockerfile has no %s (/%s/)", what, pattern)
		}
		return m
	}
	var s dockerSteps
	build := find("build of ./cmd/pluginhost", `(?m)^RUN .*CGO_ENABLED=0 .*go build .*-ldflags="-s -w" -o (\S+) \./cmd/pluginhost\s*$`)
	s.binary = build[1]
	s.buildCache = find("warm-cache step", `(?m)^RUN `+regexp.QuoteMeta(s.binary)+` warm-cache (\S+)\s*$`)[1]
	s.imageCache = find("copy of the warm cache", `(?m)^COPY --from=build `+regexp.QuoteMeta(s.buildCache)+` (\S+)\s*$`)[1]
	find("DOCUMENT_CACHE_DIR naming the copy", `(?m)^ENV .*\bDOCUMENT_CACHE_DIR=`+regexp.QuoteMeta(s.imageCache)+`(\s|$)`)
	if i, j := strings.Index(df, "warm-cache"), strings.LastIndex(df, "\nFROM "); i < 0 || i > j {
		t.Fatal("warm-cache does not run in the build stage")
	}
	return s
}

// TestDockerfileWarmCache runs the Dockerfile's steps as processes: it
// builds the binary, runs warm-cache into the build stage's folder, copies
// it where the runtime stage does (read-only, as the image's files are to
// its non-root user), starts serve with an empty home folder and the
// image's DOCUMENT_CACHE_DIR, and converts a PDF through MCP: the engine is
// loaded from the copied cache, not compiled, and nothing is written to the
// home folder. The build leaves out -trimpath and CGO_ENABLED=0, which only
// change how the packages are compiled (each would rebuild all of them, for
// minutes); the engine's versions are read the same with -trimpath (the
// document package's moduleVersion).
func TestDockerfileWarmCache(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the Dockerfile's build cannot be run")
	}
	steps := readDockerSteps(t)
	root := t.TempDir()
	at := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

	bin := at(steps.binary)
	build := exec.Command(goBin, "build", "-ldflags=-s -w", "-o", bin, "./cmd/pluginhost")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "warm-cache", at(steps.buildCache)).CombinedOutput(); err != nil {
		t.Fatalf("warm-cache: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "PDF engine compiled into "+at(steps.buildCache)) {
		t.Errorf("warm-cache does not say where it compiled to: %s", out)
	}
	copyReadOnly(t, at(steps.buildCache), at(steps.imageCache))

	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var logs syncBuffer
	serve := exec.Command(bin, "serve")
	serve.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME=", "DOCUMENT_CACHE_DIR="+at(steps.imageCache),
		"LICENSE_BACKEND=dev", "ADDR="+addr, "ALLOW_PRIVATE_NETWORKS=true", "LOG_LEVEL=info", "REDIS_URL=", "METRICS_ADDR=",
		"OTEL_EXPORTER_OTLP_ENDPOINT=", "UNLISTED_PLUGINS=")
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { serve.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			serve.Process.Kill()
		}
	}()
	waitReady(t, "http://"+addr)

	pdf := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 720, 11, "A fresh replica reads this PDF warm.")}}, pdftest.Options{Title: "Warm"})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	}))
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcpdial.Connect(ctx, "http://"+addr+"/web-crawl/mcp", "dev-key", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{site.URL + "/warm.pdf"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "A fresh replica reads this PDF warm.") || !strings.Contains(text, `"kind":"pdf"`) {
		t.Fatalf("the crawl of the PDF answered: %.1000s\nlogs:\n%s", text, logs.String())
	}
	out := logs.String()
	if !strings.Contains(out, `"how":"loaded from the compilation cache"`) || !strings.Contains(out, at(steps.imageCache)) {
		t.Errorf("the engine was not loaded from the image's cache %s:\n%s", at(steps.imageCache), out)
	}
	if strings.Contains(out, "passed over") {
		t.Errorf("a cache was passed over:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "surfsense-pluginhost")); err == nil {
		t.Errorf("the replica compiled into its home folder's cache")
	}
}

// copyReadOnly copies the folder src to dst, then leaves dst's folders and
// files without write permission.
func copyReadOnly(t *testing.T, src, dst string) {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			dirs = append(dirs, filepath.Join(dst, rel))
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o444)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Chmod(dirs[i], 0o555)
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
}
