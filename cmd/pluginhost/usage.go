package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/surfsense/pluginhost/host/redisstore"
	hostusage "github.com/surfsense/pluginhost/host/usage"
)

// hashPrefix is how many hex digits of a license's hash the operators'
// list shows: enough to tell licenses apart, and never the key.
const hashPrefix = 12

// usageCmd lists the licenses that used most in a day or a month, from the
// counts the replicas share in Redis (REDIS_URL): by hash prefix, with the
// plan last seen.
func usageCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	top := fs.Int("top", 10, "how many licenses to list, most calls made (answered or refused) first")
	day := fs.String("day", "", "a UTC day, YYYY-MM-DD (default: today)")
	month := fs.String("month", "", "a UTC month, YYYY-MM, instead of a day")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for Redis")
	prefix := fs.String("prefix", redisstore.DefaultPrefix, "the prefix of the replicas' Redis keys")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pluginhost usage: unexpected argument %q; use --top N [--day YYYY-MM-DD | --month YYYY-MM]\n", fs.Arg(0))
		return 2
	}
	if *top < 1 || *top > 1000 {
		fmt.Fprintln(stderr, "pluginhost usage: --top must be 1 to 1000")
		return 2
	}
	var p hostusage.Period
	switch {
	case *day != "" && *month != "":
		fmt.Fprintln(stderr, "pluginhost usage: give --day or --month, not both")
		return 2
	case *month != "":
		m, err := hostusage.ParseMonth(*month)
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost usage: --month: %v\n", err)
			return 2
		}
		p.Month = m
	case *day != "":
		d, err := hostusage.ParseDay(*day)
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost usage: --day: %v\n", err)
			return 2
		}
		p.Day = d
	default:
		p.Day = hostusage.DayOf(time.Now())
	}
	url := os.Getenv("REDIS_URL")
	if url == "" {
		fmt.Fprintln(stderr, "pluginhost usage: set REDIS_URL to the Redis the replicas share: usage is summed there (a host without Redis counts in its own memory, which each license reads with GET /usage)")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	ranked, err := redisstore.TopUsage(ctx, url, *prefix, p, *top)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost usage: %v\n", err)
		return 1
	}
	kind := "day"
	if p.Month != "" {
		kind = "month"
	}
	if len(ranked) == 0 {
		fmt.Fprintf(stdout, "no usage counted in %s %s\n", kind, p)
		return 0
	}
	fmt.Fprintf(stdout, "top %d licenses by calls made in %s %s (license by hash prefix)\n", len(ranked), kind, p)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "license\tplan\tcalls\trefused rate\tconcurrency\tlicense\titems\tupstream req\tupstream bytes\tblocked\tpartial\tcancelled\tcached\t")
	for _, r := range ranked {
		c := r.Counts
		plan := r.Plan
		if plan == "" {
			plan = "-"
		}
		h := r.License
		if len(h) > hashPrefix {
			h = h[:hashPrefix]
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", h, cleanPlan(plan), c.Calls, c.Refused.RateLimited, c.Refused.Concurrency,
			c.Refused.License, c.Items, c.UpstreamRequests, c.UpstreamBytes, c.Blocked, c.Partial, c.Cancelled, c.Cached)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// cleanPlan keeps a plan name printable and short: it comes from the
// license service.
func cleanPlan(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if len(out) == 30 {
			out = append(out, '…')
			break
		}
		if r < 0x20 || r == 0x7f || r == '\t' {
			r = '?'
		}
		out = append(out, r)
	}
	return string(out)
}
