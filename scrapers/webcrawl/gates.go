package webcrawl

import "context"

// gate is a counting semaphore that gives up when the call ends.
type gate chan struct{}

func (g gate) acquire(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g gate) release() { <-g }
