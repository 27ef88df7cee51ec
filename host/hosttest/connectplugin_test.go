package hosttest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

type waitArgs struct {
	URL string `json:"url"`
}

// newWaiter is a plugin whose one tool adds an item for its url, then waits
// for the call's end when the url says "wait".
func newWaiter(env scrapers.Env) (scrapers.Plugin, error) {
	if env.Get("WAITER_BASE_URL") != "http://stand-in" {
		return scrapers.Plugin{}, errors.New("WAITER_BASE_URL did not reach the plugin")
	}
	tool := scrapers.NewTool("wait", "Wait", "adds its url, waits when asked", nil, func(ctx context.Context, call *scrapers.Call, a waitArgs) error {
		call.Add(map[string]string{"url": a.URL})
		if strings.Contains(a.URL, "wait") {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	return scrapers.Plugin{ID: "waiter", Name: "Waiter", Tools: []scrapers.Tool{tool}}, nil
}

func TestConnect(t *testing.T) {
	cs := hosttest.ConnectPlugin(t, "waiter", newWaiter, map[string]string{"WAITER_BASE_URL": "http://stand-in"}, func(c *host.Config) {
		c.CallDeadline = 300 * time.Millisecond
	})
	if titles := scrapertest.ToolTitles(t, cs); titles["wait"] != "Wait" {
		t.Fatalf("titles %v", titles)
	}
	res, page := scrapertest.CallTool(t, cs, "wait", map[string]any{"url": "https://site.test/a"})
	if res.IsError || len(page.Items) != 1 || page.Items[0]["url"] != "https://site.test/a" || page.Partial {
		t.Errorf("call: %s", scrapertest.Text(res))
	}
	// The configured deadline ends a waiting call, its item kept.
	res, page = scrapertest.CallTool(t, cs, "wait", map[string]any{"url": "https://site.test/wait"})
	if res.IsError || len(page.Items) != 1 || !page.Partial {
		t.Errorf("deadline: %s", scrapertest.Text(res))
	}
}
