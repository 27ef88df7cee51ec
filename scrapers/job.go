package scrapers

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Job is the bookkeeping of one tool call that reads several sources (product
// pages, search terms, items), some of them at once: how many items it added,
// which sources failed, and whether the site blocked it, which stops the call
// (every further request would be blocked too). Job is safe for concurrent
// use. The zero value is not usable: make one per call with [NewJob].
type Job struct {
	call *Call

	mu            sync.Mutex
	items         int
	failures      int
	firstErr      error
	blocked       *BlockedError
	blockedSource string
	done, total   int // progress: sources finished of all
}

// NewJob returns the bookkeeping of call, which reads sources sources in all
// (the total its progress reports count towards).
func NewJob(call *Call, sources int) *Job { return &Job{call: call, total: sources} }

// Call returns the call the job adds to, for what the job does not track
// (MarkPartial, SetMeta).
func (j *Job) Call() *Call { return j.call }

// Progress reports msg; finished counts one more source as done.
func (j *Job) Progress(msg string, finished bool) {
	j.mu.Lock()
	if finished {
		j.done++
	}
	done, total := j.done, j.total
	j.mu.Unlock()
	j.call.Progress(msg, done, total)
}

// Add adds one item to the call.
func (j *Job) Add(item any) {
	j.call.Add(item)
	j.mu.Lock()
	j.items++
	j.mu.Unlock()
}

// Stopped reports whether the call should make no more requests: its
// context ended or the site blocked it.
func (j *Job) Stopped(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.blocked != nil
}

// Failed records that source failed with err. An error because the call is
// ending is not the source's fault and is not recorded; a block (a
// *BlockedError, or a 429 that outlasted the retries) stops the call; any
// other error is reported for that source alone, as a failed item.
func (j *Job) Failed(ctx context.Context, source string, err error) {
	if ctx.Err() != nil {
		return
	}
	// A 429 that outlasted the fetcher's retries is the site rate-limiting
	// the call: a block, like the others.
	var se *SiteError
	if errors.As(err, &se) {
		err = RateLimited(se.Site, err)
	}
	var be *BlockedError
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

// Finish turns what happened into the tool's answer: the call's end
// (deadline or cancel, see [StopError]), a block when it left nothing to
// return, or a failure of every source; otherwise nil, with the items
// already added.
func (j *Job) Finish(ctx context.Context) error {
	if ctx.Err() != nil {
		j.call.MarkPartial("the call ended before the scrape finished")
		return StopError(ctx)
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

// StopError says the scrape ended early, wrapping both the context's error
// and its cause (the host's cancel or shutdown reason) so that errors.Is
// finds either.
func StopError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause != nil && cause != err {
		return fmt.Errorf("the scrape stopped early: %w (%w)", err, cause)
	}
	return fmt.Errorf("the scrape stopped early: %w", err)
}

// Each runs fn(i) for i in [0, n) with at most limit running at once, and
// starts no more once the job is stopped. It returns when all have returned.
func (j *Job) Each(ctx context.Context, n, limit int, fn func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if j.Stopped(ctx) {
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
