package webcrawl

import (
	"fmt"
	"sync"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/render"
)

// Screenshots: crawl's screenshot argument renders each web page in the
// browser and returns its picture (a PNG 1280 px wide, at most
// render.DefaultShotMaxHeight px high and render.DefaultShotMaxBytes) as an
// MCP image content beside its item, which keeps its Markdown and says
// what the picture is, or why there is none.

// MaxCallShotBytes bounds the screenshots of one call together; pages past
// it are crawled without one, and say so.
const MaxCallShotBytes = 20 << 20

// ScreenshotInfo is what an item says of its page's screenshot.
type ScreenshotInfo struct {
	Taken      bool     `json:"taken" jsonschema:"whether a screenshot was taken: it is then an image content (PNG) of the result, after the text, in the order of the items that have one"`
	Width      int      `json:"width,omitempty" jsonschema:"the picture's width in pixels (the browser's window: 1280)"`
	Height     int      `json:"height,omitempty" jsonschema:"the picture's height in pixels"`
	PageHeight int      `json:"page_height,omitempty" jsonschema:"the whole page's height in pixels"`
	Bytes      int      `json:"bytes,omitempty" jsonschema:"the PNG's size"`
	Notes      []string `json:"notes,omitempty" jsonschema:"why no screenshot was taken, or what was cut (a page taller than 8000 px, a picture over 5 MB)"`
}

// shotBudget is one call's screenshot bytes so far.
type shotBudget struct {
	mu    sync.Mutex
	bytes int
	full  bool
}

// take counts n bytes of screenshot; false when they do not fit.
func (b *shotBudget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bytes+n > MaxCallShotBytes {
		b.full = true
		return false
	}
	b.bytes += n
	return true
}

func (b *shotBudget) spent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full
}

// noShotWhy says why a page of this call cannot have a screenshot at all
// (the render mode), or "".
func (a *crawlArgs) noShotWhy(haveRenderer bool) string {
	switch {
	case !a.Screenshot:
		return ""
	case !haveRenderer:
		return "no screenshot: this host has no browser to render pages in (its operator sets RENDERER_URL or CHROMIUM_BIN)"
	case a.render == RenderNever:
		return "no screenshot: render is never, and a screenshot needs the page rendered in the browser"
	case a.shots.spent():
		return fmt.Sprintf("no screenshot: the call's screenshots reached %d MiB", MaxCallShotBytes>>20)
	}
	return ""
}

// addPage adds a crawled page to the call, with its screenshot when one was
// asked for and taken.
func (a *crawlArgs) addPage(call *scrapers.Call, page Page, ri renderInfo) {
	if !a.Screenshot {
		call.Add(page)
		return
	}
	info := &ScreenshotInfo{}
	page.Screenshot = info
	switch sh := ri.shot; {
	case sh != nil && a.shots.take(len(sh.PNG)):
		info.Taken, info.Width, info.Height, info.PageHeight, info.Bytes, info.Notes = true, sh.Width, sh.Height, sh.PageHeight, len(sh.PNG), sh.Notes
		call.AddWithImage(page, "image/png", sh.PNG)
		return
	case sh != nil:
		info.Notes = []string{fmt.Sprintf("no screenshot: the call's screenshots reached %d MiB", MaxCallShotBytes>>20)}
	case ri.shotWhy != "":
		info.Notes = []string{ri.shotWhy}
	case page.Document != nil:
		info.Notes = []string{"no screenshot: a document (" + page.Document.Kind + ") is read, not rendered"}
	default:
		info.Notes = []string{"no screenshot: the page was not rendered"}
	}
	call.Add(page)
}

// shotOptions are the render options of a page of this call.
func (a *crawlArgs) shotOptions() render.Options {
	if !a.Screenshot || a.shots.spent() {
		return render.Options{}
	}
	return render.Options{Shot: &render.Shot{}}
}
