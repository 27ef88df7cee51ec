package webcrawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/render"
)

// The crawl tool's render argument.
const (
	RenderNever  = "never"  // fetch only
	RenderAlways = "always" // render every page in the browser
	RenderAuto   = "auto"   // fetch; render a page whose text is thin and whose scripts are heavy
)

// Thresholds of auto: a fetched page is rendered when it has less than
// thinText characters of text and scripts weighing at least heavyScripts
// (inline bytes, plus scriptWeight per external script), or an empty app
// root, or a noscript telling the reader to turn JavaScript on.
const (
	thinText     = 500
	heavyScripts = 2000
	scriptWeight = 4096
	scanTokens   = 200_000 // tokens read before the decision is made on what was seen
)

// renderMode resolves the render argument: auto with a renderer, never
// without; always without a renderer is refused.
func (a *crawlArgs) renderMode(haveRenderer bool) (string, error) {
	switch a.Render {
	case "":
		if haveRenderer {
			return RenderAuto, nil
		}
		return RenderNever, nil
	case RenderNever, RenderAuto:
		return a.Render, nil
	case RenderAlways:
		if !haveRenderer {
			return "", scrapers.Argf("render", "is always, but this host has no browser to render with (its operator sets RENDERER_URL or CHROMIUM_BIN); use never or auto")
		}
		return a.Render, nil
	}
	return "", scrapers.Argf("render", "must be never, always or auto, got %q", a.Render)
}

// renderInfo is what the item says about rendering.
type renderInfo struct {
	rendered bool
	notes    []string
	shot     *render.Screenshot // with screenshot: true, when one was taken
	shotWhy  string             // else why not, when known
}

// obtain gets one page's HTML as the render mode says: fetched, rendered,
// or fetched and then rendered when the fetched page needs a browser (or a
// screenshot was asked for). A failed render in auto keeps the fetched
// page, and says so.
func (cr *crawler) obtain(ctx context.Context, args *crawlArgs, u *url.URL) (*fetched, renderInfo, error) {
	mode, opts := args.render, args.shotOptions()
	noShot := args.noShotWhy(cr.s.Renderer != nil)
	if mode == RenderAlways {
		f, ri, err := cr.rendered(ctx, u, opts)
		if err == nil {
			ri.notes = append([]string{"rendered in the browser (render: always)"}, ri.notes...)
		}
		return f, ri, err
	}
	f, err := cr.fetch(ctx, u)
	if err != nil || mode != RenderAuto || cr.s.Renderer == nil || f.status >= 400 || !isHTML(f.header) {
		return f, renderInfo{shotWhy: noShot}, err
	}
	why, need := needsRendering(f.body)
	if !need && opts.Shot != nil {
		why, need = "a screenshot was asked for", true
	}
	if !need {
		return f, renderInfo{shotWhy: noShot}, nil
	}
	rf, ri, rerr := cr.rendered(ctx, u, opts)
	if rerr != nil {
		if ctx.Err() != nil {
			return nil, renderInfo{}, ctx.Err()
		}
		return f, renderInfo{notes: []string{fmt.Sprintf("%s, so it was rendered in the browser, which failed: %v; this is the page as fetched", why, rerr)},
			shotWhy: "no screenshot: the render failed (render_notes says why)"}, nil
	}
	ri.notes = append([]string{why + ", so it was rendered in the browser"}, ri.notes...)
	return rf, ri, nil
}

// rendered renders u and gives it the shape of a fetched page, so that it
// goes through the same extraction, bounds and paging.
func (cr *crawler) rendered(ctx context.Context, u *url.URL, opts render.Options) (*fetched, renderInfo, error) {
	p, err := cr.s.Renderer.RenderWith(ctx, u.String(), opts)
	if err != nil {
		if errors.Is(err, render.ErrRefused) {
			return nil, renderInfo{}, fmt.Errorf("refused: %w", err)
		}
		return nil, renderInfo{}, err
	}
	final, err := url.Parse(p.URL)
	if err != nil {
		final = u
	}
	status := p.Status
	if status == 0 {
		status = http.StatusOK // a document from the browser's own cache or a script
	}
	f := &fetched{status: status, final: final, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		body: []byte(p.HTML), cut: p.Truncated}
	ri := renderInfo{rendered: true, notes: p.Notes, shot: p.Screenshot}
	if p.ShotErr != "" {
		ri.shotWhy = "no screenshot: " + p.ShotErr
	}
	return f, ri, nil
}

func isHTML(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "" || mt == "text/html" || mt == "application/xhtml+xml"
}

// appRoots are the ids single-page apps mount into.
var appRoots = map[string]bool{"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true, "svelte": true, "main-app": true}

// needsRendering decides auto's question from the fetched HTML, in one
// bounded pass: is its text thin and its script heavy? why says what was
// seen, in words, for the item.
func needsRendering(body []byte) (why string, need bool) {
	z := html.NewTokenizer(bytes.NewReader(body))
	var (
		text, inline, external int
		emptyRoot, noscriptJS  bool
		in                     string // script, style, noscript, template, title: raw-text elements
		openRoot               bool   // an app root opened and nothing came in it yet
	)
	for range scanTokens {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			var id, src string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
				case "src":
					src = string(v)
				}
			}
			if openRoot && tag != "script" {
				openRoot = false
			}
			switch tag {
			case "script":
				if src != "" {
					external++
				}
				if tt == html.StartTagToken {
					in = tag
				}
			case "style", "noscript", "template", "title":
				if tt == html.StartTagToken {
					in = tag
				}
			case "div", "main", "section":
				if appRoots[id] && tt == html.StartTagToken {
					openRoot = true
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if tag == in {
				in = ""
			}
			if openRoot && (tag == "div" || tag == "main" || tag == "section") {
				emptyRoot, openRoot = true, false
			}
		case html.TextToken:
			t := z.Text()
			switch in {
			case "script":
				inline += len(t)
			case "noscript":
				l := strings.ToLower(string(t))
				if strings.Contains(l, "javascript") && (strings.Contains(l, "enable") || strings.Contains(l, "require") || strings.Contains(l, "turn on") || strings.Contains(l, "need")) {
					noscriptJS = true
				}
			case "style", "template":
			default:
				n := visibleChars(t)
				text += n
				if n > 0 && in == "" {
					openRoot = false
				}
			}
		}
	}
	weight := inline + scriptWeight*external
	switch {
	case text < thinText && weight >= heavyScripts:
		return fmt.Sprintf("the fetched page has %d characters of text and %d scripts (%d KiB inline)", text, external+boolInt(inline > 0), inline>>10), true
	case text < thinText && emptyRoot:
		return fmt.Sprintf("the fetched page has %d characters of text and an empty app root", text), true
	case text < 4*thinText && noscriptJS:
		return fmt.Sprintf("the fetched page has %d characters of text and asks for JavaScript", text), true
	}
	return "", false
}

func visibleChars(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rendererStatus is the renderer's part in /readyz.
func rendererStatus(r *render.Renderer) func() (string, string) {
	return func() (string, string) {
		if r == nil {
			return "renderer", "not configured (set RENDERER_URL or CHROMIUM_BIN to render pages that need JavaScript; web-crawl renders never)"
		}
		return "renderer", r.Status()
	}
}
