package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/surfsense/pluginhost/bench/hostbench"
)

// bench measures the host in process against a bare MCP server serving the
// same tool, side by side, and memory with many calls in flight.
func bench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o hostbench.Options
	fs.IntVar(&o.Clients, "clients", 32, "concurrent MCP clients")
	fs.IntVar(&o.Calls, "calls", 40, "calls per client per measure")
	fs.IntVar(&o.Rounds, "rounds", 3, "alternating host/bare rounds")
	fs.IntVar(&o.InFlight, "inflight", 1000, "calls held in flight for the memory measure (-1 skips)")
	fs.IntVar(&o.Replicas, "replicas", 100, "cancels measured across three replicas sharing Redis (REDIS_URL, else a redis-server started here; -1 skips)")
	fs.BoolVar(&o.SkipCalls, "skip-calls", false, "skip the side-by-side host and bare measures of tools/list and crawl")
	fs.BoolVar(&o.SkipUsage, "skip-usage", false, "skip the cost of counting usage (web-crawl.crawl with counting on and off, in memory and with Redis)")
	fs.IntVar(&o.Connections, "connections", 32, "keep-alive connections of the raw HTTP load of tools/list and initialize")
	fs.DurationVar(&o.Duration, "duration", 2*time.Second, "how long each server is loaded with each of tools/list and initialize per round")
	fs.BoolVar(&o.SkipTS, "skip-ts", false, "leave out the TypeScript SDK server (run with node from host/tsclient when node and its node_modules are there)")
	fs.StringVar(&o.TSDir, "ts-dir", "", "host/tsclient with node_modules installed (default: found from the working directory)")
	fs.IntVar(&o.CacheReplay, "cache-replay", 200, "calls replayed with 50% repeats across three replicas on one Redis, counting the upstream requests saved against the replay with the cache off (-1 skips it and the cache hit on Redis)")
	fs.IntVar(&o.Throughput.Sites, "throughput-sites", 128, "stand-in sites of the throughput measure, each on a loopback address of its own (-1 skips it)")
	fs.DurationVar(&o.Throughput.Window, "throughput-window", 8*time.Second, "how long each cell of the throughput measure is counted, after a warm-up of twice the latency")
	fs.IntVar(&o.Throughput.PageBytes, "throughput-page-bytes", 30<<10, "the size of the stand-in sites' page (an article of paragraphs with links)")
	fs.BoolVar(&o.Throughput.Before, "throughput-before", true, "also measure a host with MAX_PAGES_IN_FLIGHT=8, the old fixed cap, at 64 calls in flight, side by side")
	throughputRedis := fs.Bool("throughput-redis", true, "give the throughput measure's host REDIS_URL (else a redis-server started here), so that its politeness and robots.txt are kept in Redis as in a fleet")
	fs.IntVar(&o.Fleet.Calls, "fleet-calls", 96, "single-page crawls of the fleet measure: three replicas, alone and on one Redis, over five stand-in sites that count their pages in flight and rate (-1 skips)")
	fs.IntVar(&o.Fleet.InFlight, "fleet-inflight", 48, "calls in flight of the fleet measure")
	fs.DurationVar(&o.Fleet.Latency, "fleet-latency", 150*time.Millisecond, "each stand-in page's latency in the fleet measure")
	hostBin := fs.String("host-bin", "", "the pluginhost binary the measures in a host process run (default: this one), e.g. an earlier build for a before/after")
	latencies := fs.String("throughput-latencies", "300ms,1s", "the stand-in sites' page latencies, comma-separated")
	inflight := fs.String("throughput-inflight", "8,64,256", "single-page calls held in flight, comma-separated")
	fs.BoolVar(&o.Footprint.Skip, "skip-footprint", false, "skip what a replica costs: start to ready, idle RSS, RSS with calls in flight, first PDF cold and warm (each start with an empty home folder)")
	fs.StringVar(&o.Footprint.Before, "footprint-before", "", "another pluginhost binary (the build before a change) measured beside this one in the footprint table")
	fs.StringVar(&o.Footprint.PDF, "footprint-pdf", "", "the PDF the footprint measure converts (default: a two-page PDF written by the bench)")
	fs.IntVar(&o.Footprint.InFlight, "footprint-inflight", 1000, "calls held in flight per binary in the footprint table (-1 skips that row)")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "the whole run's limit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if o.Throughput.Latencies, err = hostbench.ParseDurations(*latencies); err != nil {
		fmt.Fprintf(stderr, "pluginhost bench: -throughput-latencies: %v\n", err)
		return 2
	}
	if o.Throughput.InFlight, err = hostbench.ParseInts(*inflight); err != nil {
		fmt.Fprintf(stderr, "pluginhost bench: -throughput-inflight: %v\n", err)
		return 2
	}
	if self, err := os.Executable(); err == nil {
		o.HostCommand = []string{self, "serve"}
	}
	if *hostBin != "" {
		o.HostCommand = []string{*hostBin, "serve"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *throughputRedis && o.Throughput.Sites >= 0 {
		url, stopRedis, err := hostbench.RedisURL()
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost bench: -throughput-redis: %v (or pass -throughput-redis=false)\n", err)
			return 1
		}
		defer stopRedis()
		o.Throughput.RedisURL = url
	}
	if _, err := hostbench.Run(ctx, o, stdout); err != nil {
		fmt.Fprintf(stderr, "pluginhost bench: %v\n", err)
		return 1
	}
	return 0
}
