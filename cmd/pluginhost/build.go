package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/telemetry"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// buildHost assembles the host from its configuration: with REDIS_URL, the
// state replicas share lives in Redis (and falls back to this replica's
// memory while Redis cannot be reached); without, everything is in memory.
//
// tel is the OpenTelemetry providers (telemetry.Setup); off, they trace
// nothing.
func buildHost(ctx context.Context, cfg host.Config, logger *slog.Logger, tel *telemetry.Providers) (*host.Host, func(), error) {
	reg := prometheus.NewRegistry()
	opts := host.Options{Logger: logger, Metrics: reg, Plugins: all.Plugins, TracerProvider: tel.Tracer, MeterProvider: tel.Meter}
	cleanup := func() {}
	if cfg.RedisURL != "" {
		rs, err := redisstore.New(ctx, cfg.RedisURL, redisstore.Options{Logger: logger, Registerer: reg, TracerProvider: tel.Tracer})
		if err != nil {
			return nil, nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		cleanup = func() { _ = rs.Close() }
		opts.Stores = host.Stores{
			Licenses: rs.Licenses(), Calls: rs.Calls(), Results: rs.Results(), Limits: rs.Limiter(),
			OAuthStates: rs.SeenStates(), Usage: rs.Usage(), Health: rs.Check,
			ResultCache: rs.ResultCache(), ResultLeases: rs.ResultCache(), Tasks: rs.Tasks(),
			Politeness: rs.Politeness(), Shared: rs.SharedCache(),
		}
	}
	h, err := host.New(cfg, opts)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return h, cleanup, nil
}
