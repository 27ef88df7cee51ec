package youtube

import (
	"context"
	"errors"
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// run is the state of one tool call over its sources (videos, queries):
// what succeeded, the first failure, and whether YouTube blocked the call.
type run struct {
	call   *scrapers.Call
	ok     int // sources that gave at least one item
	failed int
	first  error
	block  *scrapers.BlockedError // the first block, when there was one
	// subsBlocked is set once a subtitle request was blocked: later videos
	// skip subtitles rather than hammer a site that refuses.
	subsBlocked error
}

// fail records that source failed. It returns stop when the call must end,
// with the error the call returns (nil when items came before): the context
// ended, or YouTube blocked the whole site (rate limit, captcha, robot check,
// consent wall), in which case further requests would be refused too.
func (r *run) fail(ctx context.Context, source string, err error) (stop bool, ret error) {
	if ctx.Err() != nil {
		return true, stopped(ctx, r.call)
	}
	var be *scrapers.BlockedError
	siteBlock := errors.As(err, &be) && be.Kind != scrapers.BlockLoginWall
	if siteBlock && r.ok == 0 && r.failed == 0 {
		// Blocked before anything: the block is the call's answer, not an
		// item beside nothing.
		return true, be
	}
	r.failed++
	if r.first == nil {
		r.first = err
	}
	r.call.Fail(source, err)
	if be != nil && r.block == nil {
		r.block = be
	}
	if siteBlock {
		r.call.MarkPartial(fmt.Sprintf("YouTube blocked further requests with a %s", be.Kind))
		return true, r.result()
	}
	return false, nil
}

// result is the call's error once every source was tried: nil when some
// source gave items or none failed; otherwise the block, or the failure.
func (r *run) result() error {
	if r.ok > 0 || r.failed == 0 {
		return nil
	}
	if r.block != nil {
		return r.block
	}
	if r.failed == 1 {
		return r.first
	}
	return fmt.Errorf("all %d sources failed; the first: %w", r.failed, r.first)
}

// stopped is the error of a call whose context ended (deadline or cancel):
// it wraps the context's error and its cause, and marks the call partial.
func stopped(ctx context.Context, call *scrapers.Call) error {
	err := ctx.Err()
	call.MarkPartial("the call ended before every source was scraped")
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("the YouTube scrape stopped early: %w (%w)", cause, err)
	}
	return fmt.Errorf("the YouTube scrape stopped early: %w", err)
}
