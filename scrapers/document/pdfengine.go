package document

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The PDF engine is PDFium compiled to WebAssembly (go-pdfium), run by
// wazero: no cgo, so the binary stays static for the distroless image.
// Compiling the 5.8 MB module to machine code is the costly part (seconds,
// and a transient ~250 MB of the Go heap), so it is done once per process, on
// the first PDF, and kept in a compilation cache on disk (the user's cache
// folder, when writable) so that a restarted host loads it instead.
//
// Each conversion runs in an instance of its own (a fresh WebAssembly memory,
// dropped after), at most EngineConcurrency at once: the others wait their
// turn, bounded by the caller's context.

// EngineConcurrency is how many PDFs are converted at once in the process:
// one per two cores (one on a two-core replica). More would not go faster
// beside the crawl's other work and would hold more memory; the others wait
// their turn, and their time starts when it comes.
var EngineConcurrency = max(1, runtime.GOMAXPROCS(0)/2)

// engineMemoryPages caps one instance's WebAssembly memory (64 KiB pages):
// 256 MiB. An allocation past it fails inside PDFium, which then reports the
// document or page as unreadable, instead of the host running out of memory.
const engineMemoryPages = 4096

type engine struct {
	pool  pdfium.Pool
	slots chan struct{}
}

var (
	engineMu   sync.Mutex
	engineOnce *engine
	engineErr  error
)

// getEngine compiles the module once per process. A failure is kept: it
// would fail the same way again.
func getEngine() (*engine, error) {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineOnce != nil || engineErr != nil {
		return engineOnce, engineErr
	}
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true). // Kill interrupts a call stuck in PDFium
		WithMemoryLimitPages(engineMemoryPages)
	if dir := engineCacheDir(); dir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle: 0, MaxIdle: 0, MaxTotal: EngineConcurrency,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // no file system: PDFs come from memory only
		Stdout:        io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		engineErr = fmt.Errorf("the PDF engine could not start: %w", err)
		return nil, engineErr
	}
	engineOnce = &engine{pool: pool, slots: make(chan struct{}, EngineConcurrency)}
	// Compiling leaves a few hundred MB of garbage: give it back to the
	// system now rather than when the scavenger comes round, once.
	debug.FreeOSMemory()
	return engineOnce, nil
}

// engineCacheDir is where compiled machine code is kept between runs: the
// user's cache folder (per user, not a shared /tmp), in a folder named for
// the go-pdfium and wazero versions built in, so that an upgrade never loads
// code compiled by another version. "" (nothing kept, each process
// compiles) when the versions are unknown or the folder cannot be made.
func engineCacheDir() string {
	pdfiumV, wazeroV := moduleVersion(webassembly.Init), moduleVersion(wazero.NewRuntimeWithConfig)
	if pdfiumV == "" || wazeroV == "" {
		return ""
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(base, "surfsense-pluginhost", "pdfium-"+pdfiumV+"-wazero-"+wazeroV+"-"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// moduleVersion is the version of the module that defines fn, read from its
// source file's path (…/module@v1.2.3/file.go, in test binaries and with
// -trimpath alike); "" when the path has none.
func moduleVersion(fn any) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(f.Entry())
	i := strings.LastIndex(file, "@v")
	if i < 0 {
		return ""
	}
	v := file[i+1:]
	if j := strings.IndexByte(v, '/'); j > 0 {
		v = v[:j]
	}
	if strings.ContainsAny(v, `\:*?"<>|`) || len(v) > 80 {
		return ""
	}
	return v
}

// WarmUp compiles the PDF engine now rather than on the first PDF (a host
// may call it at start, in the background). It returns how long it took.
func WarmUp() (time.Duration, error) {
	t0 := time.Now()
	_, err := getEngine()
	return time.Since(t0), err
}

// instance waits for a turn (or the wait context) and returns an instance
// of its own, a context for the work that ends after timeout (0: none) or
// with ctx, and the function that ends it all. When the work's context ends
// while PDFium works, the instance is killed, which interrupts the call in
// progress; later calls on it fail at once.
func (e *engine) instance(ctx context.Context, timeout time.Duration) (pdfium.Pdfium, context.Context, func(), error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, nil, ctx.Err()
	}
	inst, err := e.pool.GetInstanceWithContext(ctx)
	if err != nil {
		<-e.slots
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		return nil, nil, nil, fmt.Errorf("the PDF engine has no instance: %w", err)
	}
	work, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		work, cancel = context.WithTimeout(ctx, timeout)
	}
	var once sync.Once
	end := func(kill bool) {
		once.Do(func() {
			if kill {
				inst.Kill()
			} else {
				inst.Close()
			}
			<-e.slots
		})
	}
	stop := context.AfterFunc(work, func() { end(true) })
	return inst, work, func() { stop(); cancel(); end(false) }, nil
}
