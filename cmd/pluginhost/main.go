// Command pluginhost is the SurfSense plugin host: one binary that serves
// (serve), signs and checks the plugin registry (registry …), checks a running
// host the way the app does (doctor), lists the licenses that used most
// (usage), measures itself (bench), and compiles its PDF engine ahead of
// time (warm-cache).
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `pluginhost: the SurfSense plugin host

Usage:
  pluginhost serve [--dev] [flags]     run the host (configuration from the environment; see README.md)
  pluginhost registry check|keygen|sign|verify …
                                       validate, sign and verify the plugin lists
  pluginhost doctor --host URL --license KEY
                                       check a running host as the SurfSense app would
  pluginhost usage --top N [--day YYYY-MM-DD | --month YYYY-MM]
                                       the licenses that used most (by hash prefix, with plan), from REDIS_URL
  pluginhost bench [flags]             measure the host against a bare MCP server
  pluginhost health [--path /readyz]   exit 0 when a running host answers 200 (container probes)
  pluginhost warm-cache DIR            compile the PDF engine into DIR (serve with DOCUMENT_CACHE_DIR=DIR)

Run "pluginhost <command> --help" for a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "registry":
		return registryCmd(args[1:], stdout, stderr)
	case "doctor":
		return doctor(args[1:], stdout, stderr)
	case "usage":
		return usageCmd(args[1:], stdout, stderr)
	case "bench":
		return bench(args[1:], stdout, stderr)
	case "health":
		return health(args[1:], stdout, stderr)
	case "warm-cache":
		return warmCache(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "pluginhost: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
