package scrapertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers"
)

// recorder is a testing.TB that records how a helper ended the test instead
// of ending it: Skip and Fatal stop the helper's goroutine, as they do.
type recorder struct {
	testing.TB
	skipped, fatal, errored bool
	msg                     string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, a ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func (r *recorder) Fatal(a ...any) {
	r.fatal, r.msg = true, fmt.Sprint(a...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, a ...any) {
	r.fatal, r.msg = true, fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func (r *recorder) Error(a ...any) { r.errored, r.msg = true, fmt.Sprint(a...) }

func (r *recorder) Errorf(format string, a ...any) {
	r.errored, r.msg = true, fmt.Sprintf(format, a...)
}

// record runs fn with a recorder on its own goroutine, so that a Skip or
// Fatal ends fn alone.
func record(t *testing.T, fn func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

func TestFixturesFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop", "page.html"), []byte("<p>real</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(FixturesEnv, dir)

	if got, err := FixturesDir(); err != nil || got != dir {
		t.Errorf("FixturesDir = %q, %v; want %q", got, err, dir)
	}
	if b, err := ReadFixture("shop/page.html"); err != nil || string(b) != "<p>real</p>" {
		t.Errorf("ReadFixture = %q, %v", b, err)
	}
	if _, err := ReadFixture("shop/none.html"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFixture of an absent page: %v", err)
	}
	var got []byte
	if r := record(t, func(tb testing.TB) { got = Fixture(tb, "shop/page.html") }); r.skipped || string(got) != "<p>real</p>" {
		t.Errorf("Fixture = %q (skipped %v)", got, r.skipped)
	}
	r := record(t, func(tb testing.TB) { got = Fixture(tb, "shop/none.html") })
	if !r.skipped || !strings.Contains(r.msg, "shop/none.html") || !strings.Contains(r.msg, FixturesEnv) {
		t.Errorf("Fixture of an absent page: skipped %v, %q", r.skipped, r.msg)
	}
	if r := record(t, func(tb testing.TB) { got = []byte(RequireFixtures(tb)) }); r.skipped || string(got) != dir {
		t.Errorf("RequireFixtures = %q (skipped %v)", got, r.skipped)
	}
	t.Setenv(FixturesEnv, filepath.Join(dir, "missing"))
	if r := record(t, func(tb testing.TB) { RequireFixtures(tb) }); !r.skipped {
		t.Error("RequireFixtures went on without the folder")
	}
}

func TestFixturesBesideTheRepository(t *testing.T) {
	t.Setenv(FixturesEnv, "")
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s holds no go.mod: %v", root, err)
	}
	if wd, _ := os.Getwd(); !strings.HasPrefix(wd, root) {
		t.Errorf("RepoRoot %s is not above %s", root, wd)
	}
	if dir, err := FixturesDir(); err != nil || dir != filepath.Join(root, "..", "shared", "fixtures") {
		t.Errorf("FixturesDir = %q, %v", dir, err)
	}

	t.Chdir(t.TempDir()) // no go.mod above
	if _, err := RepoRoot(); err == nil {
		t.Error("RepoRoot found a go.mod above a temporary folder")
	}
	if _, err := ReadFixture("shop/page.html"); err == nil {
		t.Error("ReadFixture read a page without a fixtures folder")
	}
	if r := record(t, func(tb testing.TB) { Fixture(tb, "shop/page.html") }); !r.skipped {
		t.Error("Fixture went on without a fixtures folder")
	}
	if r := record(t, func(tb testing.TB) { RequireFixtures(tb) }); !r.skipped {
		t.Error("RequireFixtures went on without a fixtures folder")
	}
}

func TestTestdata(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "own.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := Testdata(t, "own.json"); string(b) != `{}` {
		t.Errorf("Testdata = %q", b)
	}
	if r := record(t, func(tb testing.TB) { Testdata(tb, "none.json") }); !r.fatal {
		t.Error("Testdata of an absent file did not fail the test")
	}
}

type shopArgs struct {
	URLs     []string `json:"urls"`
	Progress bool     `json:"progress,omitempty"`
}

// newShop is a plugin whose tool adds an item per URL ("bad" ones fail),
// reporting progress when asked to.
func newShop(env scrapers.Env) (scrapers.Plugin, error) {
	if env.Get("SHOP_BASE_URL") == "" {
		return scrapers.Plugin{}, errors.New("SHOP_BASE_URL is not set")
	}
	if !env.AllowPrivateNetworks {
		return scrapers.Plugin{}, errors.New("private networks are not allowed")
	}
	tool := scrapers.NewTool("scrape", "Scrape Shop", "reads pages", nil, func(ctx context.Context, call *scrapers.Call, a shopArgs) error {
		for i, u := range a.URLs {
			if strings.Contains(u, "bad") {
				call.Fail(u, errors.New("bad page"))
			} else {
				call.Add(map[string]string{"url": u})
			}
			if a.Progress {
				call.Progress("read "+u, i+1, len(a.URLs))
			}
		}
		return ctx.Err()
	})
	return scrapers.Plugin{ID: "shop", Name: "Shop", Tools: []scrapers.Tool{tool}}, nil
}

func TestNewPluginAndRunTool(t *testing.T) {
	p := NewPlugin(t, newShop, map[string]string{"SHOP_BASE_URL": "http://127.0.0.1:1"})
	if r := record(t, func(tb testing.TB) { NewPlugin(tb, newShop, nil) }); !r.fatal || !strings.Contains(r.msg, "SHOP_BASE_URL") {
		t.Errorf("NewPlugin without its variable: fatal %v, %q", r.fatal, r.msg)
	}

	o, err := RunTool(t, p, "scrape", `{"urls":["https://shop.test/1","https://shop.test/bad","https://shop.test/2"]}`, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	items := Items(t, o)
	if len(items) != 3 || len(Succeeded(items)) != 2 || len(Failed(items)) != 1 || Failed(items)[0]["url"] != "https://shop.test/bad" {
		t.Errorf("items %v", items)
	}
	if _, err := RunTool(t, p, "scrape", `{"urls":1}`, time.Second); err == nil {
		t.Error("bad arguments gave no error")
	}
	if r := record(t, func(tb testing.TB) { RunTool(tb, p, "nope", `{}`, time.Second) }); !r.fatal || !strings.Contains(r.msg, `"nope"`) {
		t.Errorf("RunTool of an unknown tool: fatal %v, %q", r.fatal, r.msg)
	}
}

func TestServe(t *testing.T) {
	var base string
	p := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "stand-in", http.StatusTeapot) }),
		func(env scrapers.Env) (scrapers.Plugin, error) {
			base = env.Get("SHOP_BASE_URL")
			return newShop(env)
		}, "SHOP_BASE_URL")
	if p.ID != "shop" {
		t.Errorf("plugin %q", p.ID)
	}
	resp, err := http.Get(base + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Errorf("SHOP_BASE_URL %q answered %d, not from the handler", base, resp.StatusCode)
	}
}

func TestRunWantsProgress(t *testing.T) {
	tool := NewPlugin(t, newShop, map[string]string{"SHOP_BASE_URL": "x"}).Tools[0]
	var o scrapers.Outcome
	if r := record(t, func(tb testing.TB) {
		o, _ = Run(context.Background(), tb, tool, `{"urls":["https://shop.test/1"],"progress":true}`)
	}); r.errored || len(o.Items) != 1 {
		t.Errorf("with progress: errored %v (%q), %d items", r.errored, r.msg, len(o.Items))
	}
	if r := record(t, func(tb testing.TB) { Run(context.Background(), tb, tool, `{"urls":["https://shop.test/1"]}`) }); !r.errored {
		t.Error("items without progress went unnoticed")
	}
	if r := record(t, func(tb testing.TB) { Run(context.Background(), tb, tool, `{"urls":[]}`) }); r.errored {
		t.Error("no items and no progress is an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, t, tool, `{"urls":[],"progress":true}`); !errors.Is(err, context.Canceled) {
		t.Errorf("Run under an ended context: %v", err)
	}
}

func TestItems(t *testing.T) {
	o := scrapers.Outcome{Items: []json.RawMessage{[]byte(`{"url":"u","n":1}`)}}
	if got := Items(t, o); len(got) != 1 || got[0]["n"] != 1.0 {
		t.Errorf("Items = %v", got)
	}
	if r := record(t, func(tb testing.TB) { Items(tb, scrapers.Outcome{Items: []json.RawMessage{[]byte(`{"n":1}`)}}) }); !r.errored || r.fatal {
		t.Errorf("an item without url: errored %v, fatal %v", r.errored, r.fatal)
	}
	if r := record(t, func(tb testing.TB) { Items(tb, scrapers.Outcome{Items: []json.RawMessage{[]byte(`[1]`)}}) }); !r.fatal {
		t.Error("an item that is no object did not fail the test")
	}
}

func TestRequestLog(t *testing.T) {
	var log RequestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { log.Record(r) }))
	defer srv.Close()
	for _, p := range []string{"/s?k=a&page=1", "/dp/B1", "/s?k=a&page=2"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := log.WithPrefix("/s?"); !slices.Equal(got, []string{"/s?k=a&page=1", "/s?k=a&page=2"}) {
		t.Errorf("WithPrefix(/s?) = %v", got)
	}
	if got := log.WithPrefix("/"); len(got) != 3 || got[1] != "/dp/B1" {
		t.Errorf("WithPrefix(/) = %v", got)
	}
	if got := (&RequestLog{}).WithPrefix("/"); got != nil {
		t.Errorf("an empty log holds %v", got)
	}
}

// mcpSession connects a client to an in-memory MCP server with two tools:
// echo (read-only) answers a page of its arguments, or a tool error for
// "fail"; write is not marked read-only.
func mcpSession(t *testing.T) *mcp.ClientSession {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "write", Title: "Write", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	server.AddTool(&mcp.Tool{Name: "echo", Title: "Echo", InputSchema: &jsonschema.Schema{Type: "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			switch args["say"] {
			case "fail":
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}}, nil
			case "garbage":
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not "}, &mcp.TextContent{Text: "json"}}}, nil
			}
			b, _ := json.Marshal(map[string]any{"items": []any{args}, "partial": true, "partial_reasons": []string{"why"}, "results_provider": "p"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestMCPHelpers(t *testing.T) {
	cs := mcpSession(t)
	var titles map[string]string
	r := record(t, func(tb testing.TB) { titles = ToolTitles(tb, cs) })
	if len(titles) != 2 || titles["echo"] != "Echo" || titles["write"] != "Write" {
		t.Errorf("titles %v", titles)
	}
	if !r.errored || r.fatal || !strings.Contains(r.msg, "tool write is not marked read-only") {
		t.Errorf("a tool not marked read-only: errored %v, %q", r.errored, r.msg)
	}

	res, page := CallTool(t, cs, "echo", map[string]any{"url": "u", "say": "hi"})
	if res.IsError || len(page.Items) != 1 || page.Items[0]["say"] != "hi" || !page.Partial ||
		!slices.Equal(page.PartialReasons, []string{"why"}) || page.ResultsProvider != "p" {
		t.Errorf("page %+v of %s", page, Text(res))
	}

	res, page = CallTool(t, cs, "echo", map[string]any{"say": "fail"})
	if !res.IsError || Text(res) != "it failed" || page.Items != nil {
		t.Errorf("tool error: %v %q %+v", res.IsError, Text(res), page)
	}
	if Text(&mcp.CallToolResult{}) != "" {
		t.Error("Text of no content")
	}

	r = record(t, func(tb testing.TB) { CallTool(tb, cs, "echo", map[string]any{"say": "garbage"}) })
	if !r.fatal || !strings.Contains(r.msg, "not json") {
		t.Errorf("a result that is no page: fatal %v, %q", r.fatal, r.msg)
	}
	if r := record(t, func(tb testing.TB) { CallTool(tb, cs, "missing", nil) }); !r.fatal {
		t.Error("calling an unknown tool did not fail the test")
	}
}

func TestCheckBlock(t *testing.T) {
	captcha := &scrapers.BlockedError{Site: "Shop", Kind: scrapers.BlockCaptcha}
	for _, c := range []struct {
		name  string
		be    *scrapers.BlockedError
		kind  string
		fails bool
	}{
		{"no block, none wanted", nil, "", false},
		{"the block wanted", captcha, scrapers.BlockCaptcha, false},
		{"a block, none wanted", captcha, "", true},
		{"no block, one wanted", nil, scrapers.BlockCaptcha, true},
		{"another kind", captcha, scrapers.BlockRobotCheck, true},
		{"another site", &scrapers.BlockedError{Site: "Elsewhere", Kind: scrapers.BlockCaptcha}, scrapers.BlockCaptcha, true},
	} {
		if r := record(t, func(tb testing.TB) { CheckBlock(tb, c.be, c.kind, "Shop") }); r.errored != c.fails {
			t.Errorf("%s: failed %v (%q), want %v", c.name, r.errored, r.msg, c.fails)
		}
	}
}

func TestCheckArgError(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		fails bool
	}{
		{"the argument", scrapers.Argf("urls", "must hold 1 entry"), false},
		{"wrapped", fmt.Errorf("decoding: %w", scrapers.Argf("urls", "is empty")), false},
		{"another argument", scrapers.Argf("max_items", "too big"), true},
		{"no argument error", errors.New("urls is wrong"), true},
		{"no error", nil, true},
	} {
		r := record(t, func(tb testing.TB) { CheckArgError(tb, c.err, "urls", `{"urls":[]}`) })
		if r.errored != c.fails || (c.fails && !strings.Contains(r.msg, `{"urls":[]}`)) {
			t.Errorf("%s: failed %v (%q), want %v", c.name, r.errored, r.msg, c.fails)
		}
	}
}

type shopItem struct {
	URL   string   `json:"url"`
	Price *float64 `json:"price,omitempty"`
}

func TestCheckItems(t *testing.T) {
	tool := scrapers.Tool{Name: "scrape", ItemSchema: scrapers.ItemSchema[shopItem]()}
	outcome := func(items ...string) scrapers.Outcome {
		var o scrapers.Outcome
		for _, it := range items {
			o.Items = append(o.Items, json.RawMessage(it))
		}
		return o
	}
	if r := record(t, func(tb testing.TB) {
		CheckItems(tb, tool, outcome(`{"url":"u","price":1.5}`, `{"url":"u"}`, `{"url":"u","error":"failed"}`))
	}); r.errored || r.fatal {
		t.Errorf("conforming items: %q", r.msg)
	}
	for _, bad := range []string{`{"url":"u","price":"cheap"}`, `{"price":1}`, `{"url":"u","colour":"red"}`, `[1]`} {
		if r := record(t, func(tb testing.TB) { CheckItems(tb, tool, outcome(bad)) }); !r.errored {
			t.Errorf("%s passed the check", bad)
		}
	}
	if r := record(t, func(tb testing.TB) { CheckItems(tb, scrapers.Tool{Name: "x"}, outcome()) }); !r.errored {
		t.Error("a tool without ItemSchema passed")
	}
	union := scrapers.Tool{Name: "u", ItemSchema: scrapers.AnyItem(scrapers.ItemSchema[shopItem](), scrapers.ItemSchema[scrapers.Failed]())}
	if r := record(t, func(tb testing.TB) { CheckItems(tb, union, outcome(`{"url":"u","price":2}`)) }); r.errored {
		t.Errorf("union: %q", r.msg)
	}
}
