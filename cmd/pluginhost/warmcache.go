package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/surfsense/pluginhost/scrapers/document"
)

// warmCache compiles the PDF engine (PDFium's WebAssembly module) into DIR,
// so that a host started with DOCUMENT_CACHE_DIR=DIR loads it on its first
// PDF instead of compiling it (about 3 s and 400 MB): the container image
// runs it at build time.
func warmCache(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warm-cache", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pluginhost warm-cache DIR\n\nCompiles the PDF engine into DIR (in a folder named for this build's go-pdfium and wazero\nversions); serve it with %s=DIR.\n", document.CacheDirVar)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		fs.Usage()
		return 2
	}
	t0 := time.Now()
	dir, err := document.WarmCache(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost warm-cache: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "PDF engine compiled into %s in %s; serve with %s=%s\n", dir, time.Since(t0).Round(time.Millisecond), document.CacheDirVar, fs.Arg(0))
	return 0
}
