package main

import (
	"runtime/debug"
	"testing"

	"github.com/forPelevin/gomoji"
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

// TestNoEmojiTableLinked: gomoji builds a 1 MB emoji table at every start
// (and its code and data cost 5 MB of RSS at rest) for go-trafilatura's
// author names, which web-crawl never reads; go.mod replaces it with
// internal/gomojistub, which works from Unicode ranges.
func TestNoEmojiTableLinked(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/forPelevin/gomoji" && (d.Replace == nil || d.Replace.Path != "./internal/gomojistub") {
			t.Errorf("gomoji %s is linked as it is, not replaced by ./internal/gomojistub", d.Version)
		}
	}
	for in, want := range map[string]string{"Jane Doe 🚀": "Jane Doe ", "👩‍💻 Ada": " Ada", "🇫🇷 Marie ✨": " Marie ", "José, 東京 №5 ©": "José, 東京 №5 ©"} {
		if got := gomoji.RemoveEmojis(in); got != want {
			t.Errorf("RemoveEmojis(%q) = %q, want %q", in, got, want)
		}
	}
}
