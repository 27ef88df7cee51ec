package main

import (
	"runtime/debug"
	"testing"
)

// TestNoDateParserLinked: go-dateparser builds its locale tables in package
// init, 78 MB and ~170 ms at every start of every replica (issue 31), for
// dates the host never asks for. go.mod replaces go-htmldate, which would
// link it through go-trafilatura, with internal/htmldatestub.
func TestNoDateParserLinked(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	replaced := false
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/markusmobius/go-dateparser":
			t.Errorf("%s %s is linked: its init allocates ~78 MB at every start", d.Path, d.Version)
		case "github.com/markusmobius/go-htmldate":
			replaced = d.Replace != nil && d.Replace.Path == "./internal/htmldatestub"
		}
	}
	if !replaced {
		t.Error("go-htmldate is not replaced by ./internal/htmldatestub (go.mod): it links go-dateparser")
	}
}
