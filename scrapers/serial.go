package scrapers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// SerialJob is the bookkeeping of a tool call that reads its sources
// (searches, pages, profiles) one after another with [SerialJob.Run]: how
// many items it added and which sources failed. A block ends the call at
// once: every further request would be blocked too. A SerialJob is for one
// call and one goroutine; make it with [NewSerialJob].
//
// Unlike [Job], which goes on past a failure and settles at the end, a
// SerialJob answers a block the moment it comes: with the block when nothing
// was gathered yet, else with what was gathered, marked partial.
type SerialJob struct {
	site     string
	call     *Call
	items    int
	failures int
	firstErr error
}

// Source is one source of a [SerialJob].
type Source struct {
	// URL names the source in its failure.
	URL string
	// Read reads the source, adding its items to j as it goes.
	Read func(ctx context.Context, j *SerialJob) error
}

// NewSerialJob returns the bookkeeping of call on site, the site's name as
// its messages and blocks give it (Indeed, Google Maps).
func NewSerialJob(call *Call, site string) *SerialJob {
	return &SerialJob{site: site, call: call}
}

// Call returns the call the job adds to, for what the job does not track
// (MarkPartial, Progress within a source).
func (j *SerialJob) Call() *Call { return j.call }

// Add adds one item to the call.
func (j *SerialJob) Add(item any) {
	j.call.Add(item)
	j.items++
}

// RateLimited is [RateLimited] for the job's site.
func (j *SerialJob) RateLimited(err error) error { return RateLimited(j.site, err) }

// Run reads sources in turn, reporting progress after each, and returns the
// call's outcome: the context's error ([ContextError]) when the call ended,
// a block when the site blocked before anything was gathered, the failure
// when every source failed and nothing was gathered; otherwise nil, with
// the failed sources recorded as failed items.
func (j *SerialJob) Run(ctx context.Context, sources []Source) error {
	for i, src := range sources {
		if ctx.Err() != nil {
			return ContextError(ctx)
		}
		err := src.Read(ctx, j)
		if stop, ret := j.failed(ctx, src.URL, err); stop {
			return ret
		}
		j.call.Progress(fmt.Sprintf("read %d of %d %s sources", i+1, len(sources), j.site), i+1, len(sources))
	}
	return j.finish()
}

// failed records a source's error. It says whether the call must stop and
// what to return then: the context's error when the call ended, the block
// when the site blocked before anything was gathered.
func (j *SerialJob) failed(ctx context.Context, src string, err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	if ctx.Err() != nil {
		return true, ContextError(ctx)
	}
	err = j.RateLimited(err)
	var be *BlockedError
	if errors.As(err, &be) {
		if j.items == 0 {
			return true, err
		}
		j.call.Fail(src, err)
		j.call.MarkPartial(j.site + " started blocking requests; the remaining sources were not read")
		return true, nil
	}
	j.call.Fail(src, err)
	j.failures++
	if j.firstErr == nil {
		j.firstErr = err
	}
	return false, nil
}

// finish is the call's outcome once every source was tried: an error when
// nothing at all was gathered and something failed.
func (j *SerialJob) finish() error {
	if j.items == 0 && j.firstErr != nil {
		if j.failures > 1 {
			return fmt.Errorf("all %d %s sources failed; the first: %w", j.failures, j.site, j.firstErr)
		}
		return j.firstErr
	}
	return nil
}

// RateLimited turns a 429 that outlasted the fetcher's retries (a
// *SiteError with status 429) into the rate-limit block it is, a
// *BlockedError naming site; any other error is returned as it is.
func RateLimited(site string, err error) error {
	var se *SiteError
	if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
		return &BlockedError{Site: site, Kind: BlockRateLimited, URL: se.URL}
	}
	return err
}

// ContextError is the error of a call whose context ended (deadline or
// cancel): the context's error, wrapping its cause (the host's cancel or
// shutdown reason) too when there is one, so that errors.Is finds either.
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
