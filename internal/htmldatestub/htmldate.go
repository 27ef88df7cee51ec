// Package htmldate stands in for github.com/markusmobius/go-htmldate in the
// plugin host's build (go.mod replaces the module with this folder). It has
// the part of that package's API that go-trafilatura names (Options, Result,
// FromDocument, FromReader) and finds no date.
//
// Why: go-htmldate imports go-dateparser, whose locale tables are built in
// package init: 78 MB allocated and about 170 ms at every start of every
// replica, whether or not a date is ever parsed. The host reads pages with
// its own extractor; go-trafilatura is only its second opinion on the main
// content (scrapers/webcrawl/fallback.go), which asks it for no date
// (HtmlDateMode: Disabled) and reads only ContentNode. Nothing in the host
// calls FromDocument, so the stand-in changes no answer; if a later caller
// does, it gets ErrNoDates rather than a wrong date.
package htmldate

import (
	"errors"
	"io"
	"time"

	"golang.org/x/net/html"
)

// ErrNoDates is what FromDocument and FromReader return: this build has no
// date parser.
var ErrNoDates = errors.New("htmldate: this build of the plugin host parses no dates (go-htmldate is replaced by a stand-in; see internal/htmldatestub)")

// Options mirrors go-htmldate's options, less DateParserConfig (go-dateparser
// is what is left out).
type Options struct {
	ExtractTime         bool
	UseOriginalDate     bool
	URL                 string
	MinDate             time.Time
	MaxDate             time.Time
	EnableLog           bool
	SkipExtensiveSearch bool
	DeferUrlExtractor   bool
}

// Result mirrors go-htmldate's result.
type Result struct {
	DateTime    time.Time
	HasTime     bool
	HasTimezone bool
	SrcString   string
}

// IsZero reports whether the result holds no date (always, here).
func (r Result) IsZero() bool { return r.DateTime.IsZero() }

// Format formats the result's date with layout.
func (r Result) Format(layout string) string { return r.DateTime.Format(layout) }

// FromDocument finds no date: it returns an empty Result and ErrNoDates.
func FromDocument(doc *html.Node, opts Options) (Result, error) { return Result{}, ErrNoDates }

// FromReader finds no date: it returns an empty Result and ErrNoDates.
func FromReader(r io.Reader, opts Options) (Result, error) { return Result{}, ErrNoDates }
