package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/document"
	"github.com/surfsense/pluginhost/scrapers/render"
)

// Files other than web pages — PDFs, Markdown and plain text, JSON, CSV,
// RSS/Atom feeds — are converted by scrapers/document. The response's
// content type decides; when it says nothing (application/octet-stream or
// none), the URL's extension and then the first bytes do.

// DocumentSettings bound what the crawl does with a document.
type DocumentSettings struct {
	// MaxBytes caps a document's download (default 32 MiB): PDFs are often
	// larger than web pages. A larger one is cut there; a cut PDF gives the
	// pages that could be read, marked truncated.
	MaxBytes int
	// MaxPages caps the PDF pages converted (default 500).
	MaxPages int
	// MaxRows caps the CSV rows shown (default 1000).
	MaxRows int
}

// Defaults of DocumentSettings.
const (
	DefaultMaxDocumentBytes = 32 << 20
	DefaultMaxPDFPages      = document.DefaultMaxPages
	MaxMaxDocumentBytes     = 512 << 20
)

func (d DocumentSettings) withDefaults() DocumentSettings {
	if d.MaxBytes <= 0 {
		d.MaxBytes = DefaultMaxDocumentBytes
	}
	if d.MaxPages <= 0 {
		d.MaxPages = DefaultMaxPDFPages
	}
	if d.MaxRows <= 0 {
		d.MaxRows = document.DefaultMaxRows
	}
	return d
}

// documentVars are the variables web-crawl reads for documents.
var documentVars = []scrapers.Var{
	{Name: "WEB_CRAWL_MAX_DOCUMENT_BYTES", Default: "33554432 (32 MiB)", Meaning: "web-crawl: the most bytes of a PDF or other document downloaded; a larger one is cut there and marked truncated"},
	{Name: "WEB_CRAWL_MAX_PDF_PAGES", Default: "500", Meaning: "web-crawl: the most pages of one PDF converted; the rest is left out and said in truncated"},
	// Read by the document package when the PDF engine starts (it is one
	// per process, not per plugin).
	{Name: document.CacheDirVar, Default: "the user's cache folder", Meaning: "the PDF engine's compilation cache, filled ahead of time by `pluginhost warm-cache DIR` (the image does); another build's, a read-only one without this build's code, or a damaged one is passed over and the engine compiled, as the log says"},
}

// pluginVars are all the variables web-crawl reads (Plugin.Vars).
var pluginVars = append(append(slices.Clone(render.Vars), documentVars...), scrapers.Var{
	Name: "ROBOTS_TXT", Default: "obey",
	Meaning: "obey: web-crawl reads each host's robots.txt (for the product token SurfSense, else *) and its Content-Signal, and never fetches a URL it refuses; ignore: for sites the operator owns",
})

// documentSettings reads documentVars; a bad value is an error naming it.
func documentSettings(env scrapers.Env) (DocumentSettings, error) {
	var d DocumentSettings
	var errs []error
	if v := env.Get("WEB_CRAWL_MAX_DOCUMENT_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1<<20 || n > MaxMaxDocumentBytes {
			errs = append(errs, fmt.Errorf("WEB_CRAWL_MAX_DOCUMENT_BYTES=%q must be a whole number of bytes from %d (1 MiB) to %d (512 MiB)", v, 1<<20, MaxMaxDocumentBytes))
		}
		d.MaxBytes = n
	}
	if v := env.Get("WEB_CRAWL_MAX_PDF_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			errs = append(errs, fmt.Errorf("WEB_CRAWL_MAX_PDF_PAGES=%q must be a whole number from 1 to 10000", v))
		}
		d.MaxPages = n
	}
	return d.withDefaults(), errors.Join(errs...)
}

// DocumentInfo is what an item converted from a document says beside its
// Markdown.
type DocumentInfo struct {
	Kind  string   `json:"kind" jsonschema:"what the file is: pdf, markdown, text, json, csv or feed"`
	Pages int      `json:"pages,omitempty" jsonschema:"a PDF's page count"`
	Notes []string `json:"notes,omitempty" jsonschema:"what a reader should know that is not a cut (pages without a text layer, a file that is not valid JSON)"`
}

// documentKind says whether a fetched response is a document and which; ""
// for a web page (and for plain text, which the crawl shows as it is).
func documentKind(mt string, f *fetched) document.Kind {
	if mt == "text/html" || mt == "application/xhtml+xml" {
		return ""
	}
	k := document.Detect(mt, f.final, f.body[:min(len(f.body), 2048)])
	if k == document.Text && mt == "text/plain" {
		return ""
	}
	return k
}

// bodyLimit is the most bytes read of a response: a document's cap for what
// the content type or the URL's extension names a document, a page's else.
func (cr *crawler) bodyLimit(resp *http.Response) int {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if k := document.Detect(mt, resp.Request.URL, nil); k != "" && k != document.Text && k != document.Office {
		return max(cr.s.Documents.withDefaults().MaxBytes, cr.s.MaxPageBytes)
	}
	return cr.s.MaxPageBytes
}

// document converts a fetched document into the call's item. Its room in
// the page budget grows to what the conversion holds first.
func (cr *crawler) document(ctx context.Context, hold *scrapers.PageHold, f *fetched, kind document.Kind, args crawlArgs) (Page, error) {
	ds := cr.s.Documents.withDefaults()
	cost := parseCost(len(f.body))
	if kind == document.PDF { // the engine's copy and its parse, outside the Go heap
		cost = 3*int64(len(f.body)) + 64<<20
	}
	if err := hold.Grow(ctx, cost); err != nil {
		return Page{}, err
	}
	o := document.Options{MaxLength: args.maxLen, MaxPages: ds.MaxPages, MaxRows: ds.MaxRows,
		ContentType: f.header.Get("Content-Type")}
	if f.cut {
		limit := cr.bodyLimit(&http.Response{Header: f.header, Request: &http.Request{URL: f.final}})
		o.Cut = true
		o.CutReason = fmt.Sprintf("document_bytes: the file is larger than %d bytes (WEB_CRAWL_MAX_DOCUMENT_BYTES); the rest was not read", limit)
		if limit == cr.s.MaxPageBytes {
			o.CutReason = cutPageBytes(limit)
		}
		if len(f.body) < limit {
			o.CutReason = "timeout: the download did not finish within the page timeout; the rest was not read"
		}
		f.cut = false // said here, in the document's own words
	}
	var (
		d   *document.Document
		err error
	)
	if kind == document.PDF {
		// The engine has its own places (document.EngineConcurrency), so a
		// PDF waiting for one holds no place of the page extraction gate. It
		// has the page timeout from when its turn comes, and gives the
		// pages read by then.
		o.Timeout = cr.s.PageTimeout
	} else if err := cr.extracting.acquire(ctx); err != nil {
		return Page{}, err
	} else {
		defer cr.extracting.release()
	}
	d, err = document.Convert(ctx, kind, f.body, o)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			return Page{}, fmt.Errorf("%s: %v", kindName(kind), de)
		}
		return Page{}, err
	}
	page := Page{Title: d.Title, Byline: d.Author, Description: d.Description, Markdown: d.Markdown, Truncated: d.Truncated,
		Links: d.Links, LinksTotal: len(d.Links),
		Document: &DocumentInfo{Kind: string(d.Kind), Pages: d.Pages, Notes: d.Notes}}
	if page.Links == nil {
		page.Links = []string{}
	}
	if lang := d.Language; lang != "" {
		page.Language = &lang
	} else if cl := languageTag(f.header.Get("Content-Language")); cl != "" {
		page.Language = &cl
	}
	return page, nil
}

func kindName(k document.Kind) string {
	switch k {
	case document.PDF:
		return "PDF"
	case document.JSON:
		return "JSON"
	case document.CSV:
		return "CSV"
	case document.Office:
		return "an office document"
	}
	return strings.ToLower(string(k))
}
