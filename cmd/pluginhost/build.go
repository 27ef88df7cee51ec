package main

import (
	"context"
	"log/slog"

	"github.com/surfsense/pluginhost/host"
)

// buildHost assembles the host from its configuration: the shared stores
// (Redis when REDIS_URL is set), the registry and the OAuth pages.
func buildHost(ctx context.Context, cfg host.Config, logger *slog.Logger) (*host.Host, func(), error) {
	opts := host.Options{Logger: logger}
	cleanup := func() {}
	h, err := host.New(cfg, opts)
	if err != nil {
		return nil, nil, err
	}
	return h, cleanup, nil
}
