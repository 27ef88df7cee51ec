// Package document turns the files a link may name, other than web pages,
// into Markdown: PDFs (their text layer, in reading order, with headings,
// lists, tables where they can be recovered and page breaks marked),
// Markdown and plain text as they are, JSON pretty-printed in a fenced
// block, CSV as a GitHub-flavoured table and RSS/Atom feeds as a list of
// entries with their links.
//
// Every conversion is bounded: characters of Markdown (MaxLength), PDF pages
// (MaxPages), CSV rows (MaxRows), feed entries, JSON nesting, and the
// caller's context for time. What was cut is said in Document.Truncated.
// A file that cannot be read gives an *Error naming why (no text layer, a
// password, damaged), never an empty success.
//
// It imports no site's package: web-crawl (scrapers/webcrawl/document.go)
// decides by content type what goes here.
package document

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Kind is a kind of document this package converts.
type Kind string

const (
	PDF      Kind = "pdf"
	Markdown Kind = "markdown"
	Text     Kind = "text"
	JSON     Kind = "json"
	CSV      Kind = "csv"
	Feed     Kind = "feed"
	// Office is a word processor's, spreadsheet's, presentation's or
	// e-book's file (DOCX, XLSX, PPTX, ODT, EPUB, …): recognised, so that
	// the answer says so, but not converted (no maintained Go library reads
	// them into Markdown well; see the README).
	Office Kind = "office"
)

// Defaults of Options.
const (
	DefaultMaxLength = 50_000
	DefaultMaxPages  = 500
	DefaultMaxRows   = 1000
	MaxFeedEntries   = 500
	maxJSONDepth     = 200
)

// Options bound one conversion.
type Options struct {
	MaxLength   int    // characters of Markdown kept (default DefaultMaxLength)
	MaxPages    int    // PDF pages converted (default DefaultMaxPages)
	MaxRows     int    // CSV rows shown (default DefaultMaxRows)
	ContentType string // the Content-Type header, for a text's charset
	// Timeout bounds a PDF's conversion from when its turn in the engine
	// comes (0: only the context); the pages read by then are given, marked.
	Timeout time.Duration
	// Cut says the body is not whole: the download stopped at a size cap or
	// a timeout. CutReason says so in words, for Truncated.
	Cut       bool
	CutReason string
}

func (o Options) withDefaults() Options {
	if o.MaxLength <= 0 {
		o.MaxLength = DefaultMaxLength
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	return o
}

// Document is one converted file.
type Document struct {
	Kind   Kind
	Title  string // the document's own title (a PDF's info Title when it is a real title, else the largest text of its first page, else its first heading; a feed's title)
	Author string // a PDF's info Author
	// Description is the document's own summary: a PDF's info Subject, a
	// feed's description.
	Description string
	Language    string // a language tag, from the document (a PDF's /Lang) or detected from its text; "" when unknown
	Pages       int    // a PDF's page count (0 for other kinds)
	Markdown    string
	// Truncated lists what was cut and why (max_length, pages, rows, a damaged
	// or cut file); empty when nothing was.
	Truncated []string
	// Notes say what a reader should know that is not a cut (pages without
	// text, form fields not shown).
	Notes []string
	// Links are the document's absolute http(s) links (a PDF's web links,
	// a feed's entries), in order, distinct.
	Links []string
}

// Reasons a document cannot be converted; an *Error wraps one.
var (
	ErrNoText    = errors.New("the PDF has no text layer (a scanned document?); text in images is not read (no OCR)")
	ErrPassword  = errors.New("the PDF needs a password to open")
	ErrDamaged   = errors.New("the file is damaged and could not be read")
	ErrEncrypted = errors.New("the PDF is encrypted in a way that cannot be opened")
	ErrEmpty     = errors.New("the file is empty")
	ErrTooDeep   = errors.New("the JSON nests deeper than this converter reads")
	ErrTimeout   = errors.New("the PDF was not converted in time")
	ErrOffice    = errors.New("office documents (Word, Excel, PowerPoint, OpenDocument, EPUB) are not converted; PDFs, Markdown, text, JSON, CSV and feeds are")
)

// Error is a document that could not be converted, with the reason (one of
// the Err values, for errors.Is) and what was seen.
type Error struct {
	Kind   Kind
	Reason error
	Detail string // e.g. "3 pages, no text on any"
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Reason.Error()
	}
	return fmt.Sprintf("%v (%s)", e.Reason, e.Detail)
}

func (e *Error) Unwrap() error { return e.Reason }

// Convert turns body, a document of kind k, into Markdown.
func Convert(ctx context.Context, k Kind, body []byte, o Options) (*Document, error) {
	o = o.withDefaults()
	if len(body) == 0 {
		return nil, &Error{Kind: k, Reason: ErrEmpty}
	}
	var (
		d   *Document
		err error
	)
	switch k {
	case PDF:
		d, err = convertPDF(ctx, body, o)
	case Markdown, Text:
		d, err = convertText(k, body, o)
	case JSON:
		d, err = convertJSON(body, o)
	case CSV:
		d, err = convertCSV(body, o)
	case Feed:
		d, err = convertFeed(body, o)
	case Office:
		return nil, &Error{Kind: k, Reason: ErrOffice}
	default:
		return nil, fmt.Errorf("document kind %q is not converted", k)
	}
	if err != nil {
		return nil, err
	}
	d.Kind = k
	if o.Cut && k != PDF { // a PDF says how it was cut itself
		d.Truncated = append([]string{o.CutReason}, d.Truncated...)
	}
	if d.Links == nil {
		d.Links = []string{}
	}
	return d, nil
}
