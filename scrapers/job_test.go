package scrapers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestJobCountsItemsAndFailures(t *testing.T) {
	var mu sync.Mutex
	var progress []int
	call := NewCall(func(_ string, done, total int) {
		mu.Lock()
		progress = append(progress, done, total)
		mu.Unlock()
	})
	j := NewJob(call, 3)
	ctx := context.Background()
	j.Add(map[string]string{"url": "a"})
	j.Progress("read a", true)
	j.Failed(ctx, "b", errors.New("b broke"))
	j.Progress("b page 1", false)
	j.Progress("read b", true)
	if j.Stopped(ctx) {
		t.Fatal("a failure that is no block stopped the job")
	}
	if err := j.Finish(ctx); err != nil {
		t.Fatalf("Finish with an item = %v", err)
	}
	o := call.Snapshot()
	if len(o.Items) != 2 || len(o.Failed) != 1 || o.Failed[0].URL != "b" || !o.Partial {
		t.Errorf("outcome %+v", o)
	}
	if want := []int{1, 3, 1, 3, 2, 3}; !slices.Equal(progress, want) {
		t.Errorf("progress %v, want %v", progress, want)
	}
}

func TestJobEverySourceFailed(t *testing.T) {
	call := NewCall(nil)
	j := NewJob(call, 2)
	first := errors.New("first")
	j.Failed(context.Background(), "a", first)
	j.Failed(context.Background(), "b", errors.New("second"))
	err := j.Finish(context.Background())
	if !errors.Is(err, first) || !strings.Contains(err.Error(), "nothing could be scraped: 2 source(s) failed") {
		t.Errorf("Finish = %v", err)
	}
}

func TestJobBlockStopsTheCall(t *testing.T) {
	block := &BlockedError{Site: "Shop", Kind: BlockCaptcha}
	ctx := context.Background()

	// Nothing gathered: the block is the answer, not an item.
	call := NewCall(nil)
	j := NewJob(call, 2)
	j.Failed(ctx, "a", block)
	j.Failed(ctx, "b", &BlockedError{Site: "Shop", Kind: BlockRobotCheck}) // only the first block counts
	if !j.Stopped(ctx) {
		t.Fatal("a block did not stop the job")
	}
	if err := j.Finish(ctx); err != block {
		t.Errorf("Finish = %v, want the first block", err)
	}
	if o := call.Snapshot(); len(o.Items) != 0 {
		t.Errorf("items %s beside the block", o.Items)
	}

	// Other failures before it: the block is listed among them too.
	call = NewCall(nil)
	j = NewJob(call, 2)
	j.Failed(ctx, "a", errors.New("broke"))
	j.Failed(ctx, "b", block)
	if err := j.Finish(ctx); err != block {
		t.Errorf("Finish = %v, want the block", err)
	}
	if o := call.Snapshot(); len(o.Failed) != 2 || o.Failed[1].URL != "b" {
		t.Errorf("failed %+v", o.Failed)
	}

	// Items before it: they are returned, with the block as a failed source.
	call = NewCall(nil)
	j = NewJob(call, 2)
	j.Add(map[string]string{"url": "a"})
	j.Failed(ctx, "b", block)
	if err := j.Finish(ctx); err != nil {
		t.Errorf("Finish = %v, want nil with an item", err)
	}
	if o := call.Snapshot(); len(o.Failed) != 1 || o.Failed[0].Error != block.Error() || !o.Partial {
		t.Errorf("outcome %+v", o)
	}
}

func TestJobEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrCancelled)
	call := NewCall(nil)
	j := NewJob(call, 1)
	j.Failed(ctx, "a", errors.New("cancelled request"))
	if !j.Stopped(ctx) {
		t.Error("an ended call is not stopped")
	}
	err := j.Finish(ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCancelled) || !strings.HasPrefix(err.Error(), "the scrape stopped early: ") {
		t.Errorf("Finish = %v", err)
	}
	o := call.Snapshot()
	if len(o.Failed) != 0 || !o.Partial || o.Reasons[0] != "the call ended before the scrape finished" {
		t.Errorf("outcome %+v", o)
	}

	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := StopError(ctx); err.Error() != "the scrape stopped early: context canceled" {
		t.Errorf("StopError without a cause = %q", err)
	}
}

func TestJobEachBoundsAndStops(t *testing.T) {
	j := NewJob(NewCall(nil), 20)
	var running, most, ran atomic.Int32
	j.Each(context.Background(), 20, 3, func(i int) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		ran.Add(1)
		running.Add(-1)
	})
	if ran.Load() != 20 || most.Load() > 3 {
		t.Errorf("ran %d, at most %d at once", ran.Load(), most.Load())
	}

	// A block stops further starts.
	j = NewJob(NewCall(nil), 20)
	ran.Store(0)
	j.Each(context.Background(), 20, 1, func(i int) {
		ran.Add(1)
		if i == 4 {
			j.Failed(context.Background(), "x", &BlockedError{Site: "Shop", Kind: BlockCaptcha})
		}
	})
	// The sixth may have passed the check while the fifth ran; no more.
	if n := ran.Load(); n < 5 || n > 6 {
		t.Errorf("%d ran after a block at the fifth", n)
	}

	// An ended context starts none.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran.Store(0)
	NewJob(NewCall(nil), 5).Each(ctx, 5, 2, func(int) { ran.Add(1) })
	if ran.Load() != 0 {
		t.Errorf("%d ran after the call ended", ran.Load())
	}
}

// TestJobLastingRateLimitIsABlock: a 429 the fetcher's retries did not
// outlast stops the call as a rate-limit block naming the site; another
// HTTP error fails its source alone.
func TestJobLastingRateLimitIsABlock(t *testing.T) {
	ctx := context.Background()
	call := NewCall(nil)
	j := NewJob(call, 3)
	j.Failed(ctx, "a", &SiteError{Site: "Shop", URL: "https://shop.test/a", Status: 404})
	if j.Stopped(ctx) {
		t.Fatal("a 404 stopped the job")
	}
	j.Failed(ctx, "b", &SiteError{Site: "Shop", URL: "https://shop.test/b", Status: 429})
	if !j.Stopped(ctx) {
		t.Fatal("a lasting 429 did not stop the job")
	}
	var be *BlockedError
	if err := j.Finish(ctx); !errors.As(err, &be) || be.Kind != BlockRateLimited || be.Site != "Shop" {
		t.Errorf("Finish = %v, want a rate-limit block naming Shop", err)
	}
}
