package document

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

// engineConverts converts a one-page PDF with e (not the process's engine)
// and checks its text.
func engineConverts(t *testing.T, e *engine) {
	t.Helper()
	defer e.pool.Close()
	body := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 720, 11, "The engine reads this line.")}}, pdftest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst, work, end, err := e.instance(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	d, err := readPDF(work, inst, body, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "The engine reads this line.") {
		t.Fatalf("the engine's Markdown lacks the page's line: %q", d.Markdown)
	}
}

// TestEngineCompilationCache: warm-cache fills a folder that a later start
// loads from; another build's folder is never taken for this build's; a
// damaged cache and one that cannot be made are passed over, saying so, and
// the engine compiled into the next one, so that no PDF fails for its cache.
func TestEngineCompilationCache(t *testing.T) {
	if engineBuild() == "" {
		t.Fatal("this test binary does not know its go-pdfium and wazero versions")
	}
	base := t.TempDir()
	dir, err := WarmCache(base)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != base || !strings.HasPrefix(filepath.Base(dir), "pdfium-v") || !strings.Contains(filepath.Base(dir), "-wazero-v") || !holdsCompiledCode(dir) {
		t.Fatalf("warm-cache filled %s (holds code: %v), want a folder named for the versions beneath %s", dir, holdsCompiledCode(dir), base)
	}

	// Another build's compiled code beside it (here: a copy of this
	// build's, as an older host's would sit there) is named and left alone.
	other := filepath.Join(base, "pdfium-v0.0.1-wazero-v0.0.1-"+filepath.Base(dir)[strings.LastIndex(filepath.Base(dir), "-")+1:])
	copyTree(t, dir, other)

	// A fresh process: loaded from the cache, not compiled.
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	e, err := startEngine(engineCaches(base)[:1], log)
	if err != nil {
		t.Fatal(err)
	}
	engineConverts(t, e)
	if !strings.Contains(logs.String(), "loaded from the compilation cache") || !strings.Contains(logs.String(), dir) {
		t.Errorf("the engine was not loaded from %s:\n%s", dir, logs.String())
	}
	if !strings.Contains(logs.String(), "another build's compiled code ignored") || !strings.Contains(logs.String(), filepath.Base(other)) {
		t.Errorf("the log does not name the other build's folder %s:\n%s", other, logs.String())
	}

	// A folder that holds only another build's code holds none for this
	// build: it would be compiled into, never loaded from.
	onlyOther := t.TempDir()
	copyTree(t, dir, filepath.Join(onlyOther, filepath.Base(other)))
	if warm, why := engineCaches(onlyOther)[0].usable(); warm || why != "" {
		t.Errorf("a folder with only another build's code: warm %v, passed over %q; want cold and usable", warm, why)
	}
	if got := engineCaches(onlyOther)[0].otherBuilds(); len(got) != 1 || got[0] != filepath.Base(other) {
		t.Errorf("other builds beside %s: %v", onlyOther, got)
	}

	// A damaged cache (this build's folder, its compiled module cut short),
	// then one that cannot be made (its parent is a file), then an empty
	// writable one: the first two are passed over, saying why, and the
	// engine is compiled into the third.
	damaged := t.TempDir()
	copyTree(t, dir, filepath.Join(damaged, filepath.Base(dir)))
	cutCompiled(t, filepath.Join(damaged, filepath.Base(dir)))
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	caches := []engineCache{engineCaches(damaged)[0], engineCaches(file)[0], engineCaches(empty)[0]}
	logs.Reset()
	e, err = startEngine(caches, log)
	if err != nil {
		t.Fatal(err)
	}
	engineConverts(t, e)
	out := logs.String()
	if strings.Count(out, "compilation cache passed over") != 2 || !strings.Contains(out, "could not be used") || !strings.Contains(out, "cannot be made") {
		t.Errorf("the damaged and the unmakeable caches are not both passed over with their reasons:\n%s", out)
	}
	if !strings.Contains(out, "compiled and kept in the compilation cache") || !holdsCompiledCode(caches[2].dir) {
		t.Errorf("the engine was not compiled into the empty cache %s:\n%s", caches[2].dir, out)
	}

	// warm-cache into a folder it cannot make fails, saying where.
	if _, err := WarmCache(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("warm-cache beneath a file: %v", err)
	}
}

// copyTree copies the folder src to dst (files and folders only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cutCompiled cuts every compiled module in dir's wazero folders to its
// first 100 bytes.
func cutCompiled(t *testing.T, dir string) {
	t.Helper()
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if len(subs) == 0 {
		t.Fatalf("no compiled module in %s", dir)
	}
	for _, p := range subs {
		if err := os.Truncate(p, 100); err != nil {
			t.Fatal(err)
		}
	}
}
