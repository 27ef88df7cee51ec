package walmart

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/surfsense/pluginhost/scrapers"
)

// job is the bookkeeping of one tool call: how many items it added, which
// sources failed, and whether the site blocked it (which stops the call: every
// further request would be blocked too).
type job struct {
	call *scrapers.Call

	mu            sync.Mutex
	items         int
	failures      int
	firstErr      error
	blocked       *scrapers.BlockedError
	blockedSource string
	done, total   int // progress: sources finished of all
}

func newJob(call *scrapers.Call, sources int) *job { return &job{call: call, total: sources} }

// progress reports msg; finished counts one more source as done.
func (j *job) progress(msg string, finished bool) {
	j.mu.Lock()
	if finished {
		j.done++
	}
	done, total := j.done, j.total
	j.mu.Unlock()
	j.call.Progress(msg, done, total)
}

// add adds one item to the call.
func (j *job) add(item any) {
	j.call.Add(item)
	j.mu.Lock()
	j.items++
	j.mu.Unlock()
}

// stopped reports whether the call should make no more requests.
func (j *job) stopped(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.blocked != nil
}

// failed records that source failed with err. An error because the call is
// ending is not the source's fault and is not recorded; a block stops the
// call; any other error is reported for that source alone.
func (j *job) failed(ctx context.Context, source string, err error) {
	if ctx.Err() != nil {
		return
	}
	var be *scrapers.BlockedError
	j.mu.Lock()
	defer j.mu.Unlock()
	if errors.As(err, &be) {
		if j.blocked == nil {
			j.blocked, j.blockedSource = be, source
		}
		return
	}
	j.failures++
	if j.firstErr == nil {
		j.firstErr = err
	}
	j.call.Fail(source, err)
}

// finish turns what happened into the tool's answer: the call's end (deadline
// or cancel), a block when it left nothing to return, or a failure of every
// source; otherwise nil, with the items already added.
func (j *job) finish(ctx context.Context) error {
	if ctx.Err() != nil {
		j.call.MarkPartial("the call ended before the scrape finished")
		return stopError(ctx)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.blocked != nil {
		if j.items == 0 {
			if j.failures > 0 {
				// listed beside the other failed sources, so that the
				// block is not lost among them
				j.call.Fail(j.blockedSource, j.blocked)
			}
			return j.blocked
		}
		j.call.Fail(j.blockedSource, j.blocked)
		return nil
	}
	if j.items == 0 && j.failures > 0 {
		return fmt.Errorf("nothing could be scraped: %d source(s) failed, the first with: %w", j.failures, j.firstErr)
	}
	return nil
}

// stopError says the call ended, wrapping both the context's error and its
// cause (the host's cancel or shutdown reason) so that errors.Is finds either.
func stopError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause != nil && cause != err {
		return fmt.Errorf("the scrape stopped early: %w (%w)", err, cause)
	}
	return fmt.Errorf("the scrape stopped early: %w", err)
}

// each runs fn(i) for i in [0, n) with at most limit running at once, and
// starts no more once the job is stopped. It returns when all have returned.
func (j *job) each(ctx context.Context, n, limit int, fn func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if j.stopped(ctx) {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}
