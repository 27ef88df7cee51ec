package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

// shotArgs asks the "shots" plugin for n items, each with a picture.
type shotArgs struct {
	N int `json:"n"`
}

// picture is a stand-in PNG naming its item.
func picture(i int) []byte { return []byte(fmt.Sprintf("\x89PNG\r\n\x1a\nitem-%d", i)) }

func shotsPlugin(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "shots", Name: "Shots", Tools: []scrapers.Tool{
		scrapers.NewTool("shoot", "Shoot", "test tool: items with pictures", nil, func(ctx context.Context, call *scrapers.Call, a shotArgs) error {
			for i := range a.N {
				item := map[string]any{"url": fmt.Sprintf("https://example.com/%d/%s", i, strings.Repeat("p", 400))}
				if i%2 == 0 {
					call.AddWithImage(item, "image/png", picture(i))
				} else {
					call.Add(item)
				}
			}
			return nil
		}),
	}}, nil
}

// images are a result's image contents, checking that text comes first.
func images(t *testing.T, res *mcp.CallToolResult) [][]byte {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("no content")
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok {
		t.Fatalf("the first content is %T, not the text", res.Content[0])
	}
	var out [][]byte
	for _, c := range res.Content[1:] {
		im, ok := c.(*mcp.ImageContent)
		if !ok || im.MIMEType != "image/png" {
			t.Fatalf("a content after the text is %T %+v", c, c)
		}
		out = append(out, im.Data)
	}
	return out
}

// TestImagesFollowTheirItems: a tool's pictures come as MCP image contents
// after the text, with and without x-surfsense-text-only; each page of a
// large result carries the pictures of its own items, through get_result
// too, and an answer from the result cache carries them again.
func TestImagesFollowTheirItems(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{shotsPlugin}, Config: func(c *host.Config) { c.ResultMaxBytes = 2048 }})
	for _, textOnly := range []bool{false, true} {
		var hdr http.Header
		if textOnly {
			hdr = http.Header{"X-Surfsense-Text-Only": {"1"}}
		}
		cs := h.Connect(t, "shots", hosttest.License, hdr)
		args := map[string]any{"n": 9}
		if textOnly {
			args["n"] = 10 // another question: not from the cache
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shoot", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("shoot: %v %s", err, resultText(res))
		}
		if textOnly != (res.StructuredContent == nil) {
			t.Fatalf("text only %v: structuredContent %v", textOnly, res.StructuredContent)
		}
		var seen []string
		pages := 0
		var page host.Page
		json.Unmarshal([]byte(resultText(res)), &page)
		for {
			pages++
			for _, im := range images(t, res) {
				seen = append(seen, string(im[8:]))
			}
			for i := range page.Items {
				idx := page.Offset + i
				has := false
				for _, s := range seen {
					has = has || s == fmt.Sprintf("item-%d", idx)
				}
				if has != (idx%2 == 0) {
					t.Fatalf("text only %v: item %d's picture on its page: %v (pictures so far %q)", textOnly, idx, has, seen)
				}
			}
			if page.NextOffset == nil {
				break
			}
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_result", Arguments: map[string]any{"result_id": page.ResultID, "offset": *page.NextOffset}})
			if err != nil || res.IsError {
				t.Fatalf("get_result: %v %s", err, resultText(res))
			}
			page = host.Page{}
			json.Unmarshal([]byte(resultText(res)), &page)
		}
		n := args["n"].(int)
		if pages < 3 || len(seen) != (n+1)/2 {
			t.Fatalf("text only %v: %d pictures over %d pages, want %d over 3 or more: %q", textOnly, len(seen), pages, (n+1)/2, seen)
		}
	}

	// The cache: the same call again is answered from it, pictures and all.
	cs := h.Connect(t, "shots", hosttest.License, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shoot", Arguments: map[string]any{"n": 9}})
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	p := pageOf(t, res, err)
	ims := images(t, res)
	if !p.Cached || len(ims) == 0 || !bytes.Equal(ims[0], picture(0)) {
		t.Fatalf("from the cache: cached %v, %d pictures", p.Cached, len(ims))
	}
}
