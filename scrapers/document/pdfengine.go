package document

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
// Compiling the 5.8 MB module to machine code is the costly part (about 3 s,
// and a transient ~400 MB RSS), so it is done once per process, on the first
// PDF, and kept in a compilation cache on disk that a later process loads
// instead (a few hundred ms): DOCUMENT_CACHE_DIR, which the container image
// fills at build time (`pluginhost warm-cache DIR`), else the user's cache
// folder (engineCaches).
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

// CacheDirVar names the folder the PDF engine's compiled code is read from
// (and kept in, when writable). Unset: the user's cache folder.
const CacheDirVar = "DOCUMENT_CACHE_DIR"

type engine struct {
	pool  pdfium.Pool
	slots chan struct{}
}

var (
	engineMu   sync.Mutex
	engineOnce *engine
	engineErr  error
)

// getEngine starts the engine once per process. A failure is kept: it
// would fail the same way again.
func getEngine() (*engine, error) {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineOnce != nil || engineErr != nil {
		return engineOnce, engineErr
	}
	engineOnce, engineErr = startEngine(engineCaches(os.Getenv(CacheDirVar)), slog.Default())
	return engineOnce, engineErr
}

// runtimeConfig is the engine's wazero configuration. warm-cache and the
// runtime must use the same: wazero's cache key includes what it sets.
func runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true). // Kill interrupts a call stuck in PDFium
		WithMemoryLimitPages(engineMemoryPages)
}

// initPool compiles (or, with a cache holding it, loads) the module; dir ""
// is no cache on disk.
func initPool(dir string) (pdfium.Pool, error) {
	rc := runtimeConfig()
	if dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, err
		}
		rc = rc.WithCompilationCache(cache)
	}
	return webassembly.Init(webassembly.Config{
		MinIdle: 0, MaxIdle: 0, MaxTotal: EngineConcurrency,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // no file system: PDFs come from memory only
		Stdout:        io.Discard, Stderr: io.Discard,
	})
}

// startEngine loads the engine from the first of caches that holds this
// build's compiled code or can keep it, and compiles it without a cache
// when none can: a cache folder never fails a PDF. It says in log which it
// did, and why a cache was passed over.
func startEngine(caches []engineCache, log *slog.Logger) (*engine, error) {
	t0 := time.Now()
	var pool pdfium.Pool
	from := "compiled without a cache on disk (each process compiles on its first PDF)"
	for _, c := range caches {
		warm, why := c.usable()
		if why != "" {
			log.Warn("PDF engine: compilation cache passed over", "cache", c.dir, "from", c.source, "reason", why)
			continue
		}
		before := compiledModules(c.dir)
		p, err := initPool(c.dir)
		if err != nil {
			log.Warn("PDF engine: compilation cache passed over", "cache", c.dir, "from", c.source,
				"reason", fmt.Sprintf("it could not be used (%v); run `pluginhost warm-cache DIR` again or remove the folder", err))
			continue
		}
		pool = p
		if warm && compiledModules(c.dir) == before {
			from = "loaded from the compilation cache"
		} else {
			from = "compiled and kept in the compilation cache (" + c.source + " held none for this build; `pluginhost warm-cache DIR` fills one in advance)"
		}
		for _, other := range c.otherBuilds() {
			log.Info("PDF engine: another build's compiled code ignored", "cache", filepath.Join(filepath.Dir(c.dir), other), "this_build", filepath.Base(c.dir))
		}
		log.Info("PDF engine ready", "how", from, "cache", c.dir, "took", time.Since(t0).Round(time.Millisecond).String())
		break
	}
	if pool == nil {
		p, err := initPool("")
		if err != nil {
			return nil, fmt.Errorf("the PDF engine could not start: %w", err)
		}
		pool = p
		log.Info("PDF engine ready", "how", from, "took", time.Since(t0).Round(time.Millisecond).String())
	}
	// Compiling leaves a few hundred MB of garbage: give it back to the
	// system now rather than when the scavenger comes round, once.
	debug.FreeOSMemory()
	return &engine{pool: pool, slots: make(chan struct{}, EngineConcurrency)}, nil
}

// engineCache is a folder for this build's compiled engine: dir is
// <base>/<engineBuild()>, source says where base came from.
type engineCache struct {
	dir, source string
}

// engineCaches are the cache folders to try, in order: DOCUMENT_CACHE_DIR
// (envDir) when set, then the user's cache folder. None when this build's
// versions are unknown (a cache could then hold another build's code).
func engineCaches(envDir string) []engineCache {
	build := engineBuild()
	if build == "" {
		return nil
	}
	var out []engineCache
	if envDir != "" {
		out = append(out, engineCache{dir: filepath.Join(envDir, build), source: CacheDirVar + "=" + envDir})
	}
	if base, err := os.UserCacheDir(); err == nil {
		out = append(out, engineCache{dir: filepath.Join(base, "surfsense-pluginhost", build), source: "the user's cache folder"})
	}
	return out
}

// engineBuild names this build's compiled engine: the go-pdfium and wazero
// versions built in and the architecture, so that code compiled by another
// version is never loaded (wazero adds its own version and the CPU's
// features beneath). "" when the versions are unknown.
func engineBuild() string {
	pdfiumV, wazeroV := moduleVersion(webassembly.Init), moduleVersion(wazero.NewRuntimeWithConfig)
	if pdfiumV == "" || wazeroV == "" {
		return ""
	}
	return "pdfium-" + pdfiumV + "-wazero-" + wazeroV + "-" + runtime.GOARCH
}

// usable says whether the folder holds compiled code (warm), or else can be
// made and written; why is what stands in the way ("" when usable). A
// read-only folder is usable only warm.
func (c engineCache) usable() (warm bool, why string) {
	if holdsCompiledCode(c.dir) {
		return true, ""
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return false, fmt.Sprintf("it holds no compiled code for this build and cannot be made (%v)", err)
	}
	f, err := os.CreateTemp(c.dir, ".write-check-*")
	if err != nil {
		return false, fmt.Sprintf("it holds no compiled code for this build and cannot be written (%v)", err)
	}
	f.Close()
	os.Remove(f.Name())
	return false, ""
}

// holdsCompiledCode reports whether dir has a compiled module in wazero's
// cache folders (wazero-<version>-<arch>-<os>/<key>).
func holdsCompiledCode(dir string) bool { return compiledModules(dir) > 0 }

// compiledModules counts the compiled modules in dir's wazero cache folders
// (not the .tmp files of one being written).
func compiledModules(dir string) int {
	n := 0
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	for _, sub := range subs {
		entries, _ := os.ReadDir(sub)
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".tmp") && !strings.HasPrefix(e.Name(), ".") {
				n++
			}
		}
	}
	return n
}

// otherBuilds are the folders beside c.dir that another build's engine was
// compiled into (pdfium-…), at most 10: left alone, and said in the log.
func (c engineCache) otherBuilds() []string {
	entries, _ := os.ReadDir(filepath.Dir(c.dir))
	var out []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "pdfium-") && e.Name() != filepath.Base(c.dir) && len(out) < 10 {
			out = append(out, e.Name())
		}
	}
	return out
}

// WarmCache compiles the PDF engine into dir (in a folder named for this
// build, beneath it), for a later process whose DOCUMENT_CACHE_DIR is dir
// to load it instead of compiling: the container image's build step. It
// returns the folder it filled. It fails when dir cannot be written or the
// versions built in are unknown.
func WarmCache(dir string) (string, error) {
	build := engineBuild()
	if build == "" {
		return "", errors.New("this binary does not know its go-pdfium and wazero versions, so a cache could not be told from another build's: build it with module information (go build, not go run of single files)")
	}
	c := engineCache{dir: filepath.Join(dir, build), source: dir}
	if _, why := c.usable(); why != "" {
		return "", fmt.Errorf("%s: %s", c.dir, why)
	}
	pool, err := initPool(c.dir)
	if err != nil {
		return "", fmt.Errorf("compiling the PDF engine into %s: %w", c.dir, err)
	}
	defer pool.Close()
	if !holdsCompiledCode(c.dir) {
		return "", fmt.Errorf("the PDF engine was compiled but nothing was kept in %s", c.dir)
	}
	return c.dir, nil
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

// WarmUp starts the PDF engine now rather than on the first PDF (a host
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
