package host_test

// MCP Tasks (host/tasks.go): every state change of a task through real HTTP
// in protocol 2026-07-28's framing, on one host (the in-memory store) and on
// replicas sharing a real redis-server.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/tasks"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
)

// taskPlugin is "long": its tool "crawl" adds one item per page, reporting
// progress, and with hold waits (after its pages) until released or
// cancelled.
type taskPlugin struct {
	started chan struct{}
	ended   chan time.Time // when a held run saw its end
	release chan struct{}  // closing it ends held runs
	runs    atomic.Int64
	tags    sync.Map // tag → chan struct{}: closing it ends the held runs of that tag
}

// tagged is the channel that ends the held runs of tag.
func (p *taskPlugin) tagged(tag string) chan struct{} {
	ch, _ := p.tags.LoadOrStore(tag, make(chan struct{}))
	return ch.(chan struct{})
}

// releaseTag ends the held runs of tag.
func (p *taskPlugin) releaseTag(tag string) { close(p.tagged(tag)) }

func newTaskPlugin() *taskPlugin {
	return &taskPlugin{started: make(chan struct{}, 100), ended: make(chan time.Time, 100), release: make(chan struct{})}
}

type crawlArgs struct {
	Pages int    `json:"pages,omitempty"`
	Hold  bool   `json:"hold,omitempty"`
	Size  int    `json:"size,omitempty"` // bytes of text per item
	Tag   string `json:"tag,omitempty"`  // makes a question distinct
	Sleep int    `json:"sleep_ms,omitempty"`
}

func (p *taskPlugin) ctor(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "long", Name: "Long", Tools: []scrapers.Tool{
		scrapers.NewTool("crawl", "Crawl", "test tool", nil, func(ctx context.Context, call *scrapers.Call, a crawlArgs) error {
			p.runs.Add(1)
			n := max(a.Pages, 1)
			for i := 1; i <= n; i++ {
				call.Add(map[string]any{"url": fmt.Sprintf("https://example.com/%d", i), "text": strings.Repeat("x", a.Size)})
				call.Progress(fmt.Sprintf("page %d of %d", i, n), i, n)
			}
			p.started <- struct{}{}
			if a.Sleep > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(a.Sleep) * time.Millisecond):
				}
			}
			if !a.Hold {
				return nil
			}
			select {
			case <-ctx.Done():
				p.ended <- time.Now()
				return ctx.Err()
			case <-p.release:
				return nil
			case <-p.tagged(a.Tag):
				return nil
			}
		}),
	}}, nil
}

const taskKey = "task-key"

// rpc is a JSON-RPC response as read from either framing.
type rpc struct {
	status int
	header http.Header
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
	raw string
}

// post2026 sends one request of protocol 2026-07-28 (its headers and _meta);
// caps is the _meta's clientCapabilities JSON. name is Mcp-Name.
func post2026(t testing.TB, url, key, method, name, params, caps string, extra http.Header) rpc {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = "{" + params + "," + meta + "}"
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	h := http.Header{"MCP-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}}
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	for k, v := range extra {
		h[k] = v
	}
	return postRPC(t, url, key, body, h)
}

func postRPC(t testing.TB, url, key, body string, h http.Header) rpc {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "License "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := rpc{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	// The last JSON-RPC response in the body: an SSE event's data, or the
	// JSON body itself.
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && bytes.Contains(d, []byte(`"id"`)) {
			last = append([]byte(nil), d...)
		}
	}
	if last == nil {
		last = bytes.TrimSpace(raw)
	}
	if err := json.Unmarshal(last, &out); err != nil {
		t.Fatalf("the answer is not a JSON-RPC response (%d): %s", resp.StatusCode, raw)
	}
	return out
}

const tasksDeclared = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`

func callLong(t testing.TB, url, key, args, caps string, extra http.Header) rpc {
	t.Helper()
	return post2026(t, url+"/long/mcp", key, "tools/call", "crawl", `"name":"crawl","arguments":`+args, caps, extra)
}

func taskGet(t testing.TB, url, key, id string) rpc {
	t.Helper()
	return post2026(t, url+"/long/mcp", key, "tasks/get", id, `"taskId":"`+id+`"`, tasksDeclared, nil)
}

func taskCancel(t testing.TB, url, key, id string) rpc {
	t.Helper()
	return post2026(t, url+"/long/mcp", key, "tasks/cancel", id, `"taskId":"`+id+`"`, tasksDeclared, nil)
}

// mustTask checks a CreateTaskResult and returns its task id.
func mustTask(t testing.TB, r rpc, cfg host.Config) string {
	t.Helper()
	res := r.Result
	if r.Error != nil || res["resultType"] != "task" || res["status"] != "working" {
		t.Fatalf("want a CreateTaskResult, got %d %s", r.status, r.raw)
	}
	id, _ := res["taskId"].(string)
	if !tasks.ValidID(id) {
		t.Fatalf("taskId %q", id)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(res[k])); err != nil {
			t.Errorf("%s = %v: %v", k, res[k], err)
		}
	}
	if ttl := res["ttlMs"]; ttl != float64((cfg.TaskDeadline + host.TaskKeep).Milliseconds()) {
		t.Errorf("ttlMs = %v, want TASK_DEADLINE + %s", ttl, host.TaskKeep)
	}
	if res["pollIntervalMs"] != float64(host.TaskPollInterval.Milliseconds()) {
		t.Errorf("pollIntervalMs = %v", res["pollIntervalMs"])
	}
	return id
}

// waitStatus polls tasks/get until the task leaves working.
func waitStatus(t testing.TB, url, key, id string, within time.Duration) rpc {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := taskGet(t, url, key, id)
		if r.Error != nil {
			t.Fatalf("tasks/get: %s", r.raw)
		}
		if r.Result["status"] != "working" || time.Now().After(deadline) {
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startTaskHost(t testing.TB, cfg func(*host.Config)) (*hosttest.Host, *taskPlugin) {
	t.Helper()
	p := newTaskPlugin()
	other := func(env scrapers.Env) (scrapers.Plugin, error) {
		pl, err := newTaskPlugin().ctor(env)
		pl.ID, pl.Name = "other", "Other"
		return pl, err
	}
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{p.ctor, other}, Config: func(c *host.Config) {
		c.ResultCacheTTL, c.TaskAfter = 0, 0
		if cfg != nil {
			cfg(c)
		}
	}})
	t.Cleanup(func() {
		select {
		case <-p.release:
		default:
			close(p.release)
		}
	})
	return h, p
}

func waitStarted(t testing.TB, p *taskPlugin) {
	t.Helper()
	select {
	case <-p.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not run")
	}
}

// A declared call becomes a task: stored before its CreateTaskResult,
// working with the call's progress as its statusMessage, then completed
// with the whole 2026-07-28 result inlined; usage and metrics count it once.
func TestTaskWorksThenCompletes(t *testing.T) {
	h, p := startTaskHost(t, nil)
	r := callLong(t, h.URL, taskKey, `{"pages":3,"hold":true}`, tasksDeclared, nil)
	id := mustTask(t, r, h.Config())
	waitStarted(t, p)
	// The tool reported pages 1..3 before holding; the heartbeat may add
	// "(n items so far)".
	deadline := time.Now().Add(5 * time.Second)
	for {
		g := taskGet(t, h.URL, taskKey, id)
		if g.Result["resultType"] != "complete" || g.Result["taskId"] != id || g.Result["status"] != "working" {
			t.Fatalf("tasks/get while working: %s", g.raw)
		}
		if strings.HasPrefix(fmt.Sprint(g.Result["statusMessage"]), "page 3 of 3") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("statusMessage never showed the progress: %s", g.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(p.release)
	g := waitStatus(t, h.URL, taskKey, id, 5*time.Second)
	if g.Result["status"] != "completed" {
		t.Fatalf("after the run ended: %s", g.raw)
	}
	res, _ := g.Result["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if res["resultType"] != "complete" || res["isError"] == true || len(sc["items"].([]any)) != 3 || meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("the completed task's result is not the whole result: %s", g.raw)
	}
	if _, ok := g.Result["error"]; ok {
		t.Fatalf("a completed task carries an error: %s", g.raw)
	}
	rep := &replica{Host: h}
	for series, want := range map[string]float64{
		`pluginhost_tool_calls_total{outcome="ok",plugin="long",tool="crawl"}`:  1,
		`pluginhost_tasks_total{plugin="long",status="created",tool="crawl"}`:   1,
		`pluginhost_tasks_total{plugin="long",status="completed",tool="crawl"}`: 1,
		`pluginhost_tasks_running`: 0,
	} {
		if got := metricValue(t, rep, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if n := p.runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times", n)
	}
	// The same answer on every read; a terminal task never changes.
	if again := taskGet(t, h.URL, taskKey, id); again.Result["status"] != "completed" || again.Result["lastUpdatedAt"] != g.Result["lastUpdatedAt"] {
		t.Fatalf("second read: %s", again.raw)
	}
}

// The rule: a declared call that answers within TASK_AFTER is answered
// directly; one that goes on becomes a task. A request that does not
// declare the extension, or declares it in another protocol, always gets
// the direct answer.
func TestTaskRule(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.TaskAfter = 300 * time.Millisecond })
	r := callLong(t, h.URL, taskKey, `{"pages":2}`, tasksDeclared, nil)
	if r.Result["resultType"] != "complete" || r.Result["taskId"] != nil {
		t.Fatalf("a quick tasksDeclared call: %s", r.raw)
	}
	waitStarted(t, p)

	start := time.Now()
	slow := callLong(t, h.URL, taskKey, `{"pages":1,"hold":true,"tag":"slow"}`, tasksDeclared, nil)
	id := mustTask(t, slow, h.Config())
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("the task came after %v, before TASK_AFTER", took)
	}
	waitStarted(t, p)

	// Not declared, or declared with a non-object value: answered directly,
	// after the run ends, however long it takes.
	for i, caps := range []string{`{}`, `{"extensions":{}}`, `{"extensions":{"io.modelcontextprotocol/tasks":true}}`} {
		done := make(chan rpc, 1)
		tag := fmt.Sprintf("undeclared-%d", i)
		go func() { done <- callLong(t, h.URL, taskKey, `{"pages":1,"hold":true,"tag":"`+tag+`"}`, caps, nil) }()
		waitStarted(t, p)
		select {
		case r := <-done:
			t.Fatalf("caps %s: answered while the run holds: %s", caps, r.raw)
		case <-time.After(500 * time.Millisecond):
		}
		p.releaseTag(tag)
		r := <-done
		if r.Result["resultType"] != "complete" || r.Result["taskId"] != nil {
			t.Fatalf("caps %s: want a direct result, got %s", caps, r.raw)
		}
	}
	// An earlier protocol: the extension in _meta counts for nothing.
	done := make(chan rpc, 1)
	go func() {
		done <- postRPC(t, h.URL+"/long/mcp", taskKey, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"crawl","arguments":{"hold":true,"tag":"old"},"_meta":{"io.modelcontextprotocol/clientCapabilities":`+tasksDeclared+`}}}`,
			http.Header{"MCP-Protocol-Version": {"2025-11-25"}})
	}()
	waitStarted(t, p)
	p.releaseTag("old")
	if r := <-done; r.Result["taskId"] != nil || r.Error != nil || r.Result["content"] == nil {
		t.Fatalf("2025-11-25 with the extension in _meta: %s", r.raw)
	}
	close(p.release)
	if g := waitStatus(t, h.URL, taskKey, id, 5*time.Second); g.Result["status"] != "completed" {
		t.Fatalf("the task: %s", g.raw)
	}
	if got := metricValue(t, &replica{Host: h}, `pluginhost_tasks_total{plugin="long",status="created",tool="crawl"}`); got != 1 {
		t.Fatalf("tasks created = %v, want 1", got)
	}
}

// tasks/* refuse what the extension refuses, and unknown, malformed,
// another license's and another plugin's task ids answer alike.
func TestTaskMethodsRefuse(t *testing.T) {
	h, p := startTaskHost(t, nil)
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"hold":true}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	url := h.URL + "/long/mcp"

	notFound := ""
	for name, c := range map[string]struct{ key, id string }{
		"unknown":       {taskKey, tasks.NewID()},
		"malformed":     {taskKey, "task_<script>"},
		"other license": {"other-key", id},
	} {
		r := post2026(t, url, c.key, "tasks/get", c.id, `"taskId":"`+c.id+`"`, tasksDeclared, nil)
		if r.Error == nil || r.Error.Code != -32602 || r.status != 200 {
			t.Errorf("%s: %d %s, want -32602", name, r.status, r.raw)
			continue
		}
		if notFound == "" {
			notFound = r.Error.Message
		} else if r.Error.Message != notFound {
			t.Errorf("%s answers %q, another %q: ids must reveal nothing", name, r.Error.Message, notFound)
		}
		if c := post2026(t, url, c.key, "tasks/cancel", c.id, `"taskId":"`+c.id+`"`, tasksDeclared, nil); c.Error == nil || c.Error.Code != -32602 {
			t.Errorf("%s: tasks/cancel %s, want -32602", name, c.raw)
		}
	}
	for name, tc := range map[string]struct {
		method, name, params, caps string
		hdr                        http.Header
		status, code               int
	}{
		"no Mcp-Name":                   {"tasks/get", "", `"taskId":"` + id + `"`, tasksDeclared, nil, 400, -32020},
		"other Mcp-Name":                {"tasks/get", tasks.NewID(), `"taskId":"` + id + `"`, tasksDeclared, nil, 400, -32020},
		"Mcp-Method differs":            {"tasks/get", id, `"taskId":"` + id + `"`, tasksDeclared, http.Header{"Mcp-Method": {"tasks/cancel"}}, 400, -32020},
		"not tasksDeclared":             {"tasks/get", id, `"taskId":"` + id + `"`, `{}`, nil, 200, -32021},
		"no taskId":                     {"tasks/get", id, `"task":"` + id + `"`, tasksDeclared, nil, 200, -32602},
		"taskId not a string":           {"tasks/get", "7", `"taskId":7`, tasksDeclared, nil, 200, -32602},
		"update without inputResponses": {"tasks/update", id, `"taskId":"` + id + `"`, tasksDeclared, nil, 200, -32602},
	} {
		r := post2026(t, url, taskKey, tc.method, tc.name, tc.params, tc.caps, tc.hdr)
		if r.Error == nil || r.Error.Code != tc.code || r.status != tc.status {
			t.Errorf("%s: %d %s, want %d %d", name, r.status, r.raw, tc.status, tc.code)
		}
		if tc.code == -32021 && r.Error != nil && r.Error.Data["requiredCapabilities"] == nil {
			t.Errorf("%s: -32021 without requiredCapabilities: %s", name, r.raw)
		}
	}
	// Before 2026-07-28 there are no tasks/* methods.
	old := postRPC(t, url, taskKey, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"`+id+`"}}`, http.Header{"MCP-Protocol-Version": {"2025-11-25"}})
	if old.Error == nil || old.Error.Code != -32601 {
		t.Errorf("tasks/get in 2025-11-25: %s", old.raw)
	}
	// tasks/update is acknowledged: nothing of the host's tasks waits for input.
	if u := post2026(t, url, taskKey, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"x":{"action":"accept"}}`, tasksDeclared, nil); u.Error != nil || u.Result["resultType"] != "complete" {
		t.Errorf("tasks/update: %s", u.raw)
	}
	// Another plugin's endpoint knows no task of this one.
	if r := post2026(t, h.URL+"/other/mcp", taskKey, "tasks/get", id, `"taskId":"`+id+`"`, tasksDeclared, nil); r.Error == nil || r.Error.Code != -32602 || r.Error.Message != notFound {
		t.Errorf("another plugin's endpoint: %s", r.raw)
	}
	// The task still works: refusals changed nothing.
	if g := taskGet(t, h.URL, taskKey, id); g.Result["status"] != "working" {
		t.Fatalf("after the refusals: %s", g.raw)
	}
}

// tasks/cancel: acknowledged, the task reads cancelled at once, its run
// stops, its slot under MAX_CONCURRENT_CALLS comes free, and it is counted
// as a cancelled call.
func TestTaskCancel(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.MaxConcurrentCalls = 1 })
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"hold":true}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	// The task holds the license's one slot past its request.
	if r := callLong(t, h.URL, taskKey, `{"tag":"second"}`, `{}`, nil); r.status != http.StatusTooManyRequests {
		t.Fatalf("a second call while the task runs: %d %s, want 429", r.status, r.raw)
	}
	c := taskCancel(t, h.URL, taskKey, id)
	if c.Error != nil || c.Result["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %s", c.raw)
	}
	if g := taskGet(t, h.URL, taskKey, id); g.Result["status"] != "cancelled" {
		t.Fatalf("right after tasks/cancel: %s", g.raw)
	}
	select {
	case <-p.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not stop")
	}
	taskWait(t, 5*time.Second, "the cancelled call to be counted", func() bool {
		return metricValue(t, &replica{Host: h}, `pluginhost_tool_calls_total{outcome="cancelled",plugin="long",tool="crawl"}`) == 1
	})
	if r := callLong(t, h.URL, taskKey, `{"tag":"third"}`, `{}`, nil); r.status != 200 || r.Error != nil {
		t.Fatalf("a call after the cancel: %d %s; the slot was not freed", r.status, r.raw)
	}
	// A second cancel of an ended task is acknowledged and changes nothing.
	if c := taskCancel(t, h.URL, taskKey, id); c.Error != nil {
		t.Fatalf("second tasks/cancel: %s", c.raw)
	}
	if g := taskGet(t, h.URL, taskKey, id); g.Result["status"] != "cancelled" || g.Result["result"] != nil {
		t.Fatalf("after a second cancel: %s", g.raw)
	}
}

// POST /cancel of the call's thread cancels its task too, and answers once
// the task reads cancelled.
func TestTaskThreadCancel(t *testing.T) {
	h, p := startTaskHost(t, nil)
	thread := http.Header{"X-Surfsense-Thread": {"th-7"}}
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"hold":true}`, tasksDeclared, thread), h.Config())
	waitStarted(t, p)
	c, still, _ := (&replica{Host: h}).cancel(t, taskKey, "th-7")
	if c != 1 || still != 0 {
		t.Fatalf("POST /cancel: cancelled %v, still running %v", c, still)
	}
	if g := taskGet(t, h.URL, taskKey, id); g.Result["status"] != "cancelled" {
		t.Fatalf("after POST /cancel: %s", g.raw)
	}
}

// A task outlives CALL_DEADLINE and ends at TASK_DEADLINE with what it
// gathered, marked partial, naming the task's deadline.
func TestTaskDeadline(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.CallDeadline, c.TaskDeadline = 300*time.Millisecond, 1500*time.Millisecond })
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"pages":2,"hold":true}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	time.Sleep(600 * time.Millisecond) // past CALL_DEADLINE
	if g := taskGet(t, h.URL, taskKey, id); g.Result["status"] != "working" {
		t.Fatalf("past CALL_DEADLINE: %s", g.raw)
	}
	g := waitStatus(t, h.URL, taskKey, id, 5*time.Second)
	res, _ := g.Result["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if g.Result["status"] != "completed" || sc["partial"] != true || !strings.Contains(fmt.Sprint(sc["partial_reasons"]), "1.5s") {
		t.Fatalf("at TASK_DEADLINE: %s", g.raw)
	}
}

// A large result is the same envelope as a direct call's: the first page
// inline, the rest through get_result with its result_id.
func TestTaskLargeResultPages(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.ResultMaxBytes = 4096 })
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"pages":40,"size":1000}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	g := waitStatus(t, h.URL, taskKey, id, 5*time.Second)
	res, _ := g.Result["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	rid, _ := sc["result_id"].(string)
	if g.Result["status"] != "completed" || rid == "" || sc["total_items"] != float64(40) || sc["next_offset"] == nil {
		t.Fatalf("a large task result: %s", truncateStr(g.raw, 600))
	}
	next := postRPC(t, h.URL+"/long/mcp", taskKey, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_result","arguments":{"result_id":"`+rid+`","offset":`+fmt.Sprint(sc["next_offset"])+`}}}`, nil)
	nsc, _ := next.Result["structuredContent"].(map[string]any)
	if next.Error != nil || nsc["offset"] != sc["next_offset"] || len(nsc["items"].([]any)) == 0 {
		t.Fatalf("get_result of the task's result: %s", truncateStr(next.raw, 600))
	}
}

// With the result cache on, the task's question is cached: the same
// question again answers at once from the cache, directly.
func TestTaskResultCache(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.ResultCacheTTL, c.TaskAfter = time.Minute, 200*time.Millisecond })
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"pages":2,"hold":true,"tag":"cache"}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	close(p.release)
	if g := waitStatus(t, h.URL, taskKey, id, 5*time.Second); g.Result["status"] != "completed" {
		t.Fatalf("the task: %s", g.raw)
	}
	r := callLong(t, h.URL, taskKey, `{"pages":2,"hold":true,"tag":"cache"}`, tasksDeclared, nil)
	sc, _ := r.Result["structuredContent"].(map[string]any)
	if r.Result["resultType"] != "complete" || sc["cached"] != true {
		t.Fatalf("the same question again: %s", r.raw)
	}
	if n := p.runs.Load(); n != 1 {
		t.Fatalf("the tool ran %d times for one question", n)
	}
}

func truncateStr(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func taskWait(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// taskReplica is a replica whose death the test controls: its own Redis
// store (heartbeats) and server.
type taskReplica struct {
	*hosttest.Host
	store  *redisstore.Store
	plugin *taskPlugin
}

// startTaskReplicas starts n hosts on the Redis at url, with a lease of
// lease (CallTTL).
func startTaskReplicas(t testing.TB, url string, n int, lease time.Duration, cfg func(*host.Config)) []*taskReplica {
	t.Helper()
	prefix := "surfsense:ph:tasks-test:" + time.Now().Format("150405.000000000") + ":"
	var out []*taskReplica
	for range n {
		st, err := redisstore.New(context.Background(), url, redisstore.Options{
			Prefix: prefix, Timeout: time.Second, ProbeInterval: 100 * time.Millisecond, Logger: repQuiet,
			CallTTL: lease, Heartbeat: lease / 4,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		p := newTaskPlugin()
		t.Cleanup(func() {
			select {
			case <-p.release:
			default:
				close(p.release)
			}
		})
		h := hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{p.ctor},
			Config: func(c *host.Config) {
				c.ResultCacheTTL, c.TaskAfter = 0, 0
				if cfg != nil {
					cfg(c)
				}
			},
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
				ResultCache: st.ResultCache(), ResultLeases: st.ResultCache(), Tasks: st.Tasks()},
		})
		out = append(out, &taskReplica{Host: h, store: st, plugin: p})
	}
	return out
}

// Across replicas on one redis-server: a task made on A is read on B with
// its progress, completed on B with its result; cancelled from B, its run
// on A stops (the time is logged); A dies mid-task and B reads it failed
// within the lease.
func TestTasksAcrossReplicas(t *testing.T) {
	const lease = time.Second
	rs := startTaskReplicas(t, redistest.URL(t), 2, lease, func(c *host.Config) { c.MaxConcurrentCalls = 1 })
	a, b := rs[0], rs[1]

	t.Run("created-on-A-completed-on-B", func(t *testing.T) {
		id := mustTask(t, callLong(t, a.URL, taskKey, `{"pages":2,"hold":true}`, tasksDeclared, nil), a.Config())
		waitStarted(t, a.plugin)
		taskWait(t, 5*time.Second, "B to read A's progress", func() bool {
			g := taskGet(t, b.URL, taskKey, id)
			return g.Result["status"] == "working" && strings.HasPrefix(fmt.Sprint(g.Result["statusMessage"]), "page 2 of 2")
		})
		a.plugin.releaseTag("")
		g := waitStatus(t, b.URL, taskKey, id, 5*time.Second)
		res, _ := g.Result["result"].(map[string]any)
		if g.Result["status"] != "completed" || res["resultType"] != "complete" {
			t.Fatalf("on B: %s", g.raw)
		}
	})
	t.Run("cancelled-from-B", func(t *testing.T) {
		id := mustTask(t, callLong(t, a.URL, taskKey, `{"hold":true,"tag":"c"}`, tasksDeclared, nil), a.Config())
		waitStarted(t, a.plugin)
		sent := time.Now()
		if c := taskCancel(t, b.URL, taskKey, id); c.Error != nil {
			t.Fatalf("tasks/cancel on B: %s", c.raw)
		}
		acked := time.Since(sent)
		var ended time.Time
		select {
		case ended = <-a.plugin.ended:
		case <-time.After(5 * time.Second):
			t.Fatal("the run on A did not stop")
		}
		t.Logf("tasks/cancel on B to the run's end on A: %v (B acknowledged after %v)", ended.Sub(sent).Round(time.Microsecond), acked.Round(time.Microsecond))
		if g := taskGet(t, a.URL, taskKey, id); g.Result["status"] != "cancelled" {
			t.Fatalf("on A: %s", g.raw)
		}
		// A's slot came free: with MAX_CONCURRENT_CALLS=1 the next call runs.
		taskWait(t, 5*time.Second, "the slot to come free", func() bool {
			r := callLong(t, b.URL, taskKey, `{"tag":"after-cancel"}`, `{}`, nil)
			return r.status == 200
		})
	})
	t.Run("POST-cancel-on-B-ends-task-on-A", func(t *testing.T) {
		thread := http.Header{"X-Surfsense-Thread": {"th-b"}}
		id := mustTask(t, callLong(t, a.URL, taskKey, `{"hold":true,"tag":"thread"}`, tasksDeclared, thread), a.Config())
		waitStarted(t, a.plugin)
		c, still, _ := (&replica{Host: b.Host}).cancel(t, taskKey, "th-b")
		if c != 1 || still != 0 {
			t.Fatalf("POST /cancel on B: cancelled %v, still running %v", c, still)
		}
		select {
		case <-a.plugin.ended:
		case <-time.After(5 * time.Second):
			t.Fatal("the run on A did not stop")
		}
		taskWait(t, 5*time.Second, "B to read the task cancelled", func() bool {
			return taskGet(t, b.URL, taskKey, id).Result["status"] == "cancelled"
		})
	})
	t.Run("A-dies-mid-task", func(t *testing.T) {
		id := mustTask(t, callLong(t, a.URL, taskKey, `{"hold":true,"tag":"dies"}`, tasksDeclared, nil), a.Config())
		waitStarted(t, a.plugin)
		// A dies: no more answers, no more heartbeats, and its run never
		// reports its end.
		a.Server.CloseClientConnections()
		a.Server.Close()
		_ = a.store.Close()
		died := time.Now()
		g := waitStatus(t, b.URL, taskKey, id, lease+5*time.Second)
		took := time.Since(died)
		errObj, _ := g.Result["error"].(map[string]any)
		if g.Result["status"] != "failed" || errObj["code"] != float64(-32603) || !strings.Contains(fmt.Sprint(g.Result["statusMessage"]), "replica") {
			t.Fatalf("A's task after A died: %s", g.raw)
		}
		if took > lease+2*time.Second {
			t.Fatalf("failed %v after A died; the lease is %v", took, lease)
		}
		t.Logf("A's task read failed on B %v after A died (lease %v)", took.Round(time.Millisecond), lease)
	})
}

// A task is one call for the rate limit and for usage: its tools/call is
// counted once, and polling it (tasks/get) counts for neither.
func TestTaskCountsOnceForLimitsAndUsage(t *testing.T) {
	h, p := startTaskHost(t, func(c *host.Config) { c.RateLimitPerMinute = 2 })
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"pages":2,"hold":true}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	for range 5 {
		if g := taskGet(t, h.URL, taskKey, id); g.status != 200 || g.Error != nil {
			t.Fatalf("tasks/get: %d %s", g.status, g.raw)
		}
	}
	close(p.release)
	if g := waitStatus(t, h.URL, taskKey, id, 5*time.Second); g.Result["status"] != "completed" {
		t.Fatalf("the task: %s", g.raw)
	}
	if r := callLong(t, h.URL, taskKey, `{"tag":"second"}`, `{}`, nil); r.status != 200 {
		t.Fatalf("the second call of two a minute: %d %s", r.status, r.raw)
	}
	if r := callLong(t, h.URL, taskKey, `{"tag":"third"}`, `{}`, nil); r.status != http.StatusTooManyRequests {
		t.Fatalf("the third call of two a minute: %d %s, want 429", r.status, r.raw)
	}
	var calls float64
	taskWait(t, 5*time.Second, "usage to count the calls", func() bool {
		resp, m := repRequest(t, http.MethodGet, h.URL+"/usage", taskKey, "")
		if resp.StatusCode != 200 {
			return false
		}
		plugins, _ := m["plugins"].(map[string]any)
		long, _ := plugins["long"].(map[string]any)
		day, _ := long["day"].(map[string]any)
		calls, _ = day["calls"].(float64)
		return calls == 2
	})
	if calls != 2 {
		t.Fatalf("usage counts %v calls, want 2 (the task once, the direct call)", calls)
	}
}

// FuzzTaskMethods sends tasks/* requests of any params and headers: each
// gets one JSON-RPC answer, never a panic, and no task is made or changed.
func FuzzTaskMethods(f *testing.F) {
	f.Add("tasks/get", `{"taskId":"task_00000000000000000000000000000000"}`, "task_00000000000000000000000000000000", true)
	f.Add("tasks/cancel", `{"taskId":7,"_meta":{}}`, "7", true)
	f.Add("tasks/update", `{"taskId":"x","inputResponses":[]}`, "x", false)
	f.Add("tasks/get", `{"taskId":"\u0000","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":null}}}`, "", true)
	f.Add("tasks/list", `{}`, "", true)
	h, _ := startTaskHost(f, nil)
	f.Fuzz(func(t *testing.T, method, params, name string, meta bool) {
		if !json.Valid([]byte(params)) || !strings.HasPrefix(strings.TrimSpace(params), "{") {
			return
		}
		var body string
		if meta {
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(params), &m) != nil {
				return
			}
			m["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksDeclared + `}`)
			b, _ := json.Marshal(m)
			params = string(b)
		}
		mb, _ := json.Marshal(method)
		body = `{"jsonrpc":"2.0","id":1,"method":` + string(mb) + `,"params":` + params + `}`
		req, _ := http.NewRequest(http.MethodPost, h.URL+"/long/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "License "+taskKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if strings.ToValidUTF8(name, "") == name && !strings.ContainsAny(name, "\r\n\x00") {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return // a header net/http refuses to send
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %s: %d %s", method, params, resp.StatusCode, raw)
		}
		if strings.HasPrefix(method, "tasks/") && !bytes.Contains(raw, []byte(`"jsonrpc":"2.0"`)) {
			t.Fatalf("%s %s: not a JSON-RPC answer: %d %s", method, params, resp.StatusCode, raw)
		}
	})
}

// While Redis is down no task is made (it could not be read on the other
// replicas): a declared call that goes on is answered directly, and
// tasks/get says the tasks cannot be read for now (-32603), not that the
// task is unknown.
func TestTaskWhileRedisIsDown(t *testing.T) {
	srv := redistest.StartProcess(t)
	r := startTaskReplicas(t, srv.URL, 1, time.Second, func(c *host.Config) { c.TaskAfter = 100 * time.Millisecond })[0]
	srv.Kill(t)
	taskWait(t, 5*time.Second, "the store to notice the fault", func() bool { return !r.store.Health().Up })
	done := make(chan rpc, 1)
	go func() {
		done <- callLong(t, r.URL, taskKey, `{"pages":2,"hold":true,"tag":"down"}`, tasksDeclared, nil)
	}()
	waitStarted(t, r.plugin)
	time.Sleep(300 * time.Millisecond) // past TASK_AFTER
	select {
	case got := <-done:
		t.Fatalf("answered while the run holds: %s", got.raw)
	default:
	}
	r.plugin.releaseTag("down")
	got := <-done
	if got.Result["resultType"] != "complete" || got.Result["taskId"] != nil {
		t.Fatalf("a declared call with Redis down: %s", got.raw)
	}
	if g := taskGet(t, r.URL, taskKey, tasks.NewID()); g.Error == nil || g.Error.Code != -32603 {
		t.Fatalf("tasks/get with Redis down: %s", g.raw)
	}
}

// BenchmarkTaskCancelAcrossReplicas measures the time from tasks/cancel
// sent to replica B to the end of the task's run on replica A (its tool
// seeing its context end), on one redis-server: cancel-to-end-ms is the
// mean, cancel-to-end-max-ms the longest, cancel-ack-ms B's answer.
func BenchmarkTaskCancelAcrossReplicas(b *testing.B) {
	rs := startTaskReplicas(b, redistest.URL(b), 2, 15*time.Second, func(c *host.Config) { c.MaxConcurrentCalls, c.RateLimitPerMinute = 0, 0 })
	a, bb := rs[0], rs[1]
	var toEnd, toAck, worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := mustTask(b, callLong(b, a.URL, taskKey, fmt.Sprintf(`{"hold":true,"tag":"bench-%d"}`, i), tasksDeclared, nil), a.Config())
		waitStarted(b, a.plugin)
		b.StartTimer()
		sent := time.Now()
		if c := taskCancel(b, bb.URL, taskKey, id); c.Error != nil {
			b.Fatalf("tasks/cancel: %s", c.raw)
		}
		toAck += time.Since(sent)
		ended := <-a.plugin.ended
		toEnd += ended.Sub(sent)
		worst = max(worst, ended.Sub(sent))
	}
	b.ReportMetric(float64(toEnd.Microseconds())/1000/float64(b.N), "cancel-to-end-ms")
	b.ReportMetric(float64(toAck.Microseconds())/1000/float64(b.N), "cancel-ack-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "cancel-to-end-max-ms")
}
