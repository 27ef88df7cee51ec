package client

import (
	"context"
	"time"
)

// The agent's check ages (the app's changed_tools.py): before a turn, a
// plugin last checked five minutes ago is listed, the turn waiting at most
// [TurnCheckWait]; after a turn, in the background, one last checked over
// 200 seconds ago, so the next turn rarely waits.
const (
	BeforeTurnCheckAge = 5 * time.Minute
	AfterTurnCheckAge  = 200 * time.Second
)

// agentCheckTimeout bounds one run of the agent's checks.
const agentCheckTimeout = 10 * time.Minute

// PrepareTurn is the agent's work before a turn: OAuth tokens that expire
// within 30 minutes are refreshed ([Client.RefreshExpiring]); ready plugins
// last checked five minutes ago are listed by the agent's checks, one at a
// time, which the turn waits on for at most [TurnCheckWait], a listing still
// running then being recorded when it ends; and the ready tools are
// returned. A turn that finds the agent's checks running waits on them
// rather than starting others.
func (c *Client) PrepareTurn(ctx context.Context) ([]ReadyTool, error) {
	if _, err := c.RefreshExpiring(ctx); err != nil {
		return nil, err
	}
	done := c.agentCheck(BeforeTurnCheckAge)
	t := time.NewTimer(TurnCheckWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return c.ReadyTools(ctx)
}

// AfterTurn starts the agent's checks after a turn, in the background, of
// ready plugins last checked over 200 seconds ago, and returns at once; the
// returned channel is closed when they end.
func (c *Client) AfterTurn() <-chan struct{} { return c.agentCheck(AfterTurnCheckAge) }

// agentCheck starts the agent's checks of plugins older than maxAge, or
// joins the run already going; the channel is closed when it ends. The run
// is the agent's, not a caller's: it goes on when the caller stops waiting.
func (c *Client) agentCheck(maxAge time.Duration) <-chan struct{} {
	ch := c.agentChecks.DoChan("agent", func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), agentCheckTimeout)
		defer cancel()
		return c.CheckStale(ctx, maxAge)
	})
	done := make(chan struct{})
	go func() {
		<-ch
		close(done)
	}()
	return done
}
