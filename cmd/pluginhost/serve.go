package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/telemetry"
)

// serve runs the host until SIGTERM or SIGINT, then drains: /readyz turns
// 503, no new calls are taken, calls in flight get SHUTDOWN_DRAIN to finish
// and are then cancelled with a tool error; the process exits 0.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dev := fs.Bool("dev", false, "local run: dev license backend (any key is valid), memory, 127.0.0.1:8000")
	addr := fs.String("addr", "", "listen address (ADDR)")
	metricsAddr := fs.String("metrics-addr", "", "Prometheus listener (METRICS_ADDR)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	env := os.Getenv
	overrides := map[string]string{}
	if *addr != "" {
		overrides["ADDR"] = *addr
	}
	if *metricsAddr != "" {
		overrides["METRICS_ADDR"] = *metricsAddr
	}
	getenv := func(k string) string {
		if v, ok := overrides[k]; ok {
			return v
		}
		return env(k)
	}
	cfg, err := host.FromEnv(getenv, *dev)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost serve: the configuration is not usable:\n  %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return 2
	}
	logger := newLogger(stderr, cfg.LogLevel)
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	tel, err := telemetry.Setup(ctx, env, host.Version)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost serve: %v\n", err)
		return 2
	}
	// Last: what the drain's calls traced is flushed before the exit.
	defer func() {
		fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(fctx); err != nil {
			logger.Warn("telemetry not flushed at exit", "err", err)
		}
	}()
	h, cleanup, err := buildHost(ctx, cfg, logger, tel)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost serve: %v\n", err)
		return 1
	}
	defer cleanup()
	// Start-up leaves garbage on the heap (package init, the plugins'
	// tables) that the collector would give back only minutes later: a
	// replica at rest holds what it uses (a few ms, once).
	debug.FreeOSMemory()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost serve: cannot listen on %s (ADDR): %v\n", cfg.Addr, err)
		return 1
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var msrv *http.Server
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost serve: cannot listen on %s (METRICS_ADDR): %v\n", cfg.MetricsAddr, err)
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", h.MetricsHandler())
		// Profiles, on the private metrics listener only.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		msrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- msrv.Serve(mln) }()
	}
	logger.Info("plugin host listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "plugins", h.PluginIDs(),
		"license_backend", cfg.License.Backend, "redis", cfg.RedisURL != "", "metrics_addr", cfg.MetricsAddr, "otlp_endpoint", tel.Endpoint)
	if *dev {
		fmt.Fprintf(stdout, "SurfSense plugin host (dev) on http://%s — any license key is accepted.\n", ln.Addr())
	}
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			logger.Error("server stopped", "err", err)
			return 1
		}
	case <-ctx.Done():
	}
	stop()
	logger.Info("shutting down", "drain", cfg.ShutdownDrain.String())
	h.Drain(context.Background(), cfg.ShutdownDrain)
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("connections still open at exit", "err", err)
	}
	if msrv != nil {
		_ = msrv.Shutdown(sctx)
	}
	h.Close() // the plugins' own processes (a browser web-crawl started)
	logger.Info("stopped")
	return 0
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: redact}))
}

// redact is the last line of defence: any attribute named like a credential
// is replaced, whatever logged it.
func redact(_ []string, a slog.Attr) slog.Attr {
	switch strings.ToLower(a.Key) {
	case "authorization", "license", "license_key", "key", "token", "password", "proxy_url":
		return slog.String(a.Key, "[redacted]")
	}
	return a
}
