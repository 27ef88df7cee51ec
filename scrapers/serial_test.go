package scrapers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// serialSources makes one source per outcome: nil adds an item named after
// the source, an error fails it. read lists the sources read, in order.
func serialSources(read *[]string, outcomes ...error) []Source {
	var out []Source
	for i, o := range outcomes {
		u := fmt.Sprintf("https://site.test/%d", i)
		out = append(out, Source{URL: u, Read: func(ctx context.Context, j *SerialJob) error {
			*read = append(*read, u)
			if o == nil {
				j.Add(map[string]string{"url": u})
			}
			return o
		}})
	}
	return out
}

func TestSerialJobReadsInTurn(t *testing.T) {
	var progress []string
	call := NewCall(func(msg string, done, total int) {
		progress = append(progress, fmt.Sprintf("%d/%d %s", done, total, msg))
	})
	var read []string
	broke := errors.New("broke")
	err := NewSerialJob(call, "Shop").Run(context.Background(), serialSources(&read, nil, broke, nil))
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if len(read) != 3 {
		t.Errorf("read %v", read)
	}
	want := []string{"1/3 read 1 of 3 Shop sources", "2/3 read 2 of 3 Shop sources", "3/3 read 3 of 3 Shop sources"}
	if !slices.Equal(progress, want) {
		t.Errorf("progress %q", progress)
	}
	o := call.Snapshot()
	if len(o.Items) != 3 || len(o.Failed) != 1 || o.Failed[0].URL != "https://site.test/1" || o.Failed[0].Error != "broke" || !o.Partial {
		t.Errorf("outcome %+v", o)
	}
}

func TestSerialJobEverySourceFailed(t *testing.T) {
	var read []string
	broke := errors.New("broke")
	if err := NewSerialJob(NewCall(nil), "Shop").Run(context.Background(), serialSources(&read, broke)); err != broke {
		t.Errorf("one failed source: %v, want its error", err)
	}
	call := NewCall(nil)
	err := NewSerialJob(call, "Shop").Run(context.Background(), serialSources(&read, broke, errors.New("again")))
	if !errors.Is(err, broke) || err.Error() != "all 2 Shop sources failed; the first: broke" {
		t.Errorf("two failed sources: %v", err)
	}
	if o := call.Snapshot(); len(o.Failed) != 2 {
		t.Errorf("failed %+v", o.Failed)
	}
}

func TestSerialJobBlockEndsTheCall(t *testing.T) {
	block := &BlockedError{Site: "Shop", Kind: BlockCaptcha}

	// Before anything was gathered: the block is the answer.
	var read []string
	call := NewCall(nil)
	err := NewSerialJob(call, "Shop").Run(context.Background(), serialSources(&read, errors.New("broke"), block, nil))
	if err != block || len(read) != 2 {
		t.Errorf("Run = %v after reading %v", err, read)
	}
	if o := call.Snapshot(); len(o.Failed) != 1 {
		t.Errorf("the block was listed as a failed source too: %+v", o.Failed)
	}

	// After items: they are returned, partial, with the block as a failed
	// source.
	read = nil
	call = NewCall(nil)
	err = NewSerialJob(call, "Shop").Run(context.Background(), serialSources(&read, nil, block, nil))
	if err != nil || len(read) != 2 {
		t.Errorf("Run = %v after reading %v", err, read)
	}
	o := call.Snapshot()
	if len(o.Items) != 2 || len(o.Failed) != 1 || o.Failed[0].Error != block.Error() ||
		!slices.Contains(o.Reasons, "Shop started blocking requests; the remaining sources were not read") {
		t.Errorf("outcome %+v", o)
	}
}

func TestSerialJobRateLimit(t *testing.T) {
	var read []string
	tooMany := &SiteError{Site: "Shop", URL: "https://site.test/0", Status: http.StatusTooManyRequests}
	err := NewSerialJob(NewCall(nil), "Shop").Run(context.Background(), serialSources(&read, tooMany, nil))
	var be *BlockedError
	if !errors.As(err, &be) || be.Kind != BlockRateLimited || be.Site != "Shop" || be.URL != tooMany.URL || len(read) != 1 {
		t.Errorf("Run = %v after reading %v, want a rate-limit block at once", err, read)
	}

	other := &SiteError{Site: "Shop", URL: "u", Status: http.StatusBadGateway}
	if got := RateLimited("Shop", other); got != other {
		t.Errorf("RateLimited(502) = %v", got)
	}
	if got := RateLimited("Shop", nil); got != nil {
		t.Errorf("RateLimited(nil) = %v", got)
	}
	j := NewSerialJob(NewCall(nil), "Other")
	if err := j.RateLimited(fmt.Errorf("wrapped: %w", tooMany)); !errors.As(err, &be) || be.Site != "Other" {
		t.Errorf("RateLimited of a wrapped 429 = %v", err)
	}
}

func TestSerialJobEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var read []string
	sources := serialSources(&read, nil, nil, nil)
	sources[1].Read = func(context.Context, *SerialJob) error {
		cancel(ErrShuttingDown)
		return context.Canceled
	}
	call := NewCall(nil)
	err := NewSerialJob(call, "Shop").Run(ctx, sources)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrShuttingDown) || len(read) != 1 {
		t.Errorf("Run = %v after reading %v", err, read)
	}
	if o := call.Snapshot(); len(o.Failed) != 0 {
		t.Errorf("the call's end was recorded as a failed source: %+v", o.Failed)
	}

	// Ended before the first source: none is read.
	read = nil
	if err := NewSerialJob(NewCall(nil), "Shop").Run(ctx, serialSources(&read, nil)); !errors.Is(err, ErrShuttingDown) || len(read) != 0 {
		t.Errorf("Run = %v after reading %v", err, read)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := ContextError(ctx2); err != context.Canceled {
		t.Errorf("ContextError without a cause = %v, want the context's error itself", err)
	}
}
