package host

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress sends MCP progress notifications for one call when it carries a
// progress token: the tool's own reports, and a heartbeat from the host.
type progress struct {
	ctx    context.Context
	notify func(context.Context, *mcp.ProgressNotificationParams) error // nil: nobody to tell
	token  any
	always bool // a call that may become a task: its progress is its statusMessage, token or not
	mu     sync.Mutex
	n      float64
	msg    string
	total  float64
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx, token: req.Params.GetProgressToken()}
	switch {
	case taskRunFrom(ctx) != nil: // may become a task (tasks.go)
		p.notify, p.always = taskRunFrom(ctx).progress, true
	case directCallFrom(ctx) != nil: // run without the SDK (directcall.go)
		p.notify = directCallFrom(ctx).notifyProgress
	case req.Session != nil:
		p.notify = req.Session.NotifyProgress
	}
	return p
}

func (p *progress) report(message string, done, total int) {
	if !p.beats() {
		return
	}
	p.mu.Lock()
	p.msg, p.total = message, float64(total)
	p.mu.Unlock()
	p.send(message, float64(total))
}

// beats reports whether the call hears progress, and so the heartbeat.
func (p *progress) beats() bool { return p.token != nil || p.always }

func (p *progress) heartbeat(items int) {
	if !p.beats() {
		return
	}
	p.mu.Lock()
	msg := p.msg
	total := p.total
	p.mu.Unlock()
	if msg == "" {
		msg = "working"
	}
	p.send(fmt.Sprintf("%s (%d items so far)", msg, items), total)
}

// send emits one notification; progress only ever increases.
func (p *progress) send(message string, total float64) {
	p.mu.Lock()
	p.n++
	n := p.n
	if total > 0 && n > total {
		total = 0 // the count went past the tool's estimate: say unknown
	}
	p.mu.Unlock()
	if p.notify == nil {
		return
	}
	_ = p.notify(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Message: message, Progress: n, Total: total})
}
