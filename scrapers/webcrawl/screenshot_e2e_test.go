package webcrawl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// TestScreenshotThroughTheHost: crawl with screenshot: true over the host,
// the Go SDK client and real Chromium: the item keeps its Markdown and says
// what the picture is; the result's text comes first and an image content
// (a PNG 1280 px wide) follows, with structuredContent and under
// x-surfsense-text-only alike; render: never and a PDF say why they have
// none; the result conforms to crawl's output schema.
func TestScreenshotThroughTheHost(t *testing.T) {
	bin := os.Getenv("CHROMIUM_BIN")
	if bin == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			t.Skip("no chromium on this machine (apt-get install chromium, or set CHROMIUM_BIN): the screenshot end-to-end test is skipped")
		}
		bin = p
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Harbour lights</title><style>body{margin:0;background:#f4e9d0} article{height:2400px;padding:40px}</style></head>`+
			`<body><article><h1>Harbour lights</h1><p>`+strings.Repeat("The lights of the harbour come on one by one as the boats return. ", 8)+`</p></article></body></html>`)
	})
	mux.HandleFunc("/paper.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# A note\n\nNot a web page.\n")
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New},
		Env: map[string]string{"CHROMIUM_BIN": bin, "RENDER_ALLOW_ADDRS": site.Listener.Addr().String()}})

	call := func(cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, []map[string]any, []*mcp.ImageContent) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("crawl %v: %v %s", args, err, scrapertest.Text(res))
		}
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("the first content is %T, not the text", res.Content[0])
		}
		var page struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal([]byte(text.Text), &page); err != nil {
			t.Fatal(err)
		}
		var ims []*mcp.ImageContent
		for _, c := range res.Content[1:] {
			im, ok := c.(*mcp.ImageContent)
			if !ok {
				t.Fatalf("a content after the text is %T", c)
			}
			ims = append(ims, im)
		}
		return res, page.Items, ims
	}

	for _, textOnly := range []bool{false, true} {
		var hdr http.Header
		if textOnly {
			hdr = http.Header{"X-Surfsense-Text-Only": {"1"}}
		}
		cs := h.Connect(t, webcrawl.ID, hosttest.License, hdr)
		res, items, ims := call(cs, map[string]any{"start_urls": []string{site.URL + "/", site.URL + "/paper.txt"}, "screenshot": true, "max_age_seconds": 0})
		if textOnly != (res.StructuredContent == nil) {
			t.Fatalf("text only %v: structuredContent %v", textOnly, res.StructuredContent != nil)
		}
		if len(items) != 2 || len(ims) != 1 {
			t.Fatalf("text only %v: %d items, %d images", textOnly, len(items), len(ims))
		}
		var web, doc map[string]any
		for _, it := range items {
			if strings.HasSuffix(it["url"].(string), "/paper.txt") {
				doc = it
			} else {
				web = it
			}
		}
		sh, _ := web["screenshot"].(map[string]any)
		if web["rendered"] != true || !strings.Contains(web["markdown"].(string), "The lights of the harbour") ||
			sh["taken"] != true || sh["width"] != float64(1280) || sh["height"] != float64(2480) || sh["page_height"] != float64(2480) {
			t.Fatalf("the web page's item: rendered %v, screenshot %v, markdown %.100q", web["rendered"], sh, web["markdown"])
		}
		img, err := png.Decode(bytes.NewReader(ims[0].Data))
		if err != nil || ims[0].MIMEType != "image/png" {
			t.Fatalf("the image content: %s, %v", ims[0].MIMEType, err)
		}
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2480 || int(sh["bytes"].(float64)) != len(ims[0].Data) {
			t.Fatalf("the picture is %v, %d bytes; the item says %v", b, len(ims[0].Data), sh)
		}
		if r, g, b, _ := img.At(5, 2470).RGBA(); r>>8 != 0xf4 || g>>8 != 0xe9 || b>>8 != 0xd0 {
			t.Errorf("the page's background at its foot is %x %x %x", r>>8, g>>8, b>>8)
		}
		dsh, _ := doc["screenshot"].(map[string]any)
		if dsh["taken"] != false || !strings.Contains(fmt.Sprint(dsh["notes"]), "a document (markdown) is read, not rendered") {
			t.Errorf("the document's screenshot: %v", dsh)
		}
		if textOnly {
			t.Logf("text-only result: %d contents: text of %d bytes, then %s of %d bytes (%v); the item's screenshot: %v",
				len(res.Content), len(res.Content[0].(*mcp.TextContent).Text), ims[0].MIMEType, len(ims[0].Data), img.Bounds().Size(), sh)
		}
	}

	// render: never takes no screenshot and says why.
	cs := h.Connect(t, webcrawl.ID, hosttest.License, nil)
	_, items, ims := call(cs, map[string]any{"start_urls": []string{site.URL + "/"}, "screenshot": true, "render": "never"})
	sh, _ := items[0]["screenshot"].(map[string]any)
	if len(ims) != 0 || sh["taken"] != false || !strings.Contains(fmt.Sprint(sh["notes"]), "render is never") {
		t.Fatalf("render never: %d images, screenshot %v", len(ims), sh)
	}
}
