package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/registry"
)

// RegistryInterval is the least time between two fetches of the registry.
const RegistryInterval = 5 * time.Minute

// Verifier verifies a fetched registry: listJSON is /plugins.json byte for
// byte and bundleJSON its Sigstore bundle (/plugins.json.sigstore.json). It
// returns the list parsed, or refuses a signature that does not verify, a
// list that breaks the registry's rules, or one whose generated_at is older
// than held's (wrapping [registry.ErrOlderList]). held is the newest copy
// already accepted, or nil. *[registry.Verifier] is one.
type Verifier interface {
	VerifyList(listJSON, bundleJSON []byte, held *registry.List) (*registry.List, error)
}

// VerifierFunc adapts a function to [Verifier].
type VerifierFunc func(listJSON, bundleJSON []byte, held *registry.List) (*registry.List, error)

// VerifyList implements [Verifier].
func (f VerifierFunc) VerifyList(listJSON, bundleJSON []byte, held *registry.List) (*registry.List, error) {
	return f(listJSON, bundleJSON, held)
}

// Registry fetches the third-party registry from the plugin host, verifies
// it, and keeps the newest verified copy. It never accepts a list whose
// signature does not verify or whose generated_at is older than the copy it
// holds. Set the fields before first use; a Registry is safe for concurrent
// use.
type Registry struct {
	// Host is the plugin host that serves the registry; the zero value is
	// production.
	Host PluginHost
	// Verifier verifies each fetched list. Required: with none, every list
	// is refused.
	Verifier Verifier
	// HTTPClient makes the requests; nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// Interval is the least time between two fetches; 0 means five minutes.
	Interval time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time

	mu        sync.Mutex
	held      *registry.List
	fetchedAt time.Time // when the held copy was fetched
	tried     time.Time // when a fetch was last tried
	lastErr   error
}

func (r *Registry) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

// Held returns the copy held and when it was fetched; nil before the first
// verified fetch.
func (r *Registry) Held() (*registry.List, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held, r.fetchedAt
}

// Fetch fetches the registry unless a fetch was tried less than Interval
// ago, verifies it and keeps it when it is at least as new as the copy
// held. It returns the copy held afterwards, when it was fetched, and why
// the latest fetch failed (nil when it succeeded or none was due).
func (r *Registry) Fetch(ctx context.Context) (*registry.List, time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	interval := r.Interval
	if interval <= 0 {
		interval = RegistryInterval
	}
	now := r.now()
	if !r.tried.IsZero() && now.Sub(r.tried) < interval {
		return r.held, r.fetchedAt, nil
	}
	r.tried = now
	list, err := r.fetch(ctx, r.held)
	if err == nil && (list == nil || (r.held != nil && list.GeneratedAt.Before(r.held.GeneratedAt))) {
		// A verifier that let an older list through: refused all the same.
		err = fmt.Errorf("%w: the verifier accepted a list older than the copy held", registry.ErrOlderList)
	}
	if err != nil {
		if ctx.Err() != nil {
			r.tried = time.Time{} // a cancelled fetch does not count
		}
		r.lastErr = err
		return r.held, r.fetchedAt, err
	}
	r.held, r.fetchedAt, r.lastErr = list, now, nil
	return r.held, r.fetchedAt, nil
}

func (r *Registry) fetch(ctx context.Context, held *registry.List) (*registry.List, error) {
	if r.Verifier == nil {
		return nil, errors.New("no verifier: an unverified registry is never used")
	}
	hc := r.HTTPClient
	if hc == nil {
		hc = defaultOtherClient
	}
	data, err := getBytes(ctx, hc, r.Host.Endpoint("/plugins.json"), registry.MaxListBytes)
	if err != nil {
		return nil, err
	}
	bundle, err := getBytes(ctx, hc, r.Host.Endpoint("/plugins.json"+registry.BundleSuffix), registry.MaxBundleBytes)
	if err != nil {
		return nil, err
	}
	list, err := r.Verifier.VerifyList(data, bundle, held)
	if err != nil {
		return nil, fmt.Errorf("the registry from %s was refused: %w", r.Host.URL(), err)
	}
	return list, nil
}

// getBytes GETs rawURL and returns its body, at most limit bytes.
func getBytes(ctx context.Context, hc *http.Client, rawURL string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", rawURL, stripURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", rawURL, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", rawURL, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: more than %d bytes", rawURL, limit)
	}
	return data, nil
}

// RegistryView is the app's GET /plugins/registry: the registry's entries
// and removed ids, when it was fetched, or ThirdPartyOff while third-party
// plugins are off (nothing is fetched then).
type RegistryView struct {
	ThirdPartyOff bool
	Plugins       []registry.Entry
	Removed       []registry.Removed
	FetchedAt     time.Time
	// Err is why the latest fetch failed, when the view is the copy held
	// from an earlier one (or empty).
	Err error
}

// RegistryPlugins answers GET /plugins/registry: while third-party plugins
// are off it fetches nothing; otherwise it fetches the registry (at most
// every five minutes, from the plugin host, which must be allowed), keeps
// the newest verified copy, and applies its removed list: a registry plugin
// whose id was removed keeps its row and key but carries removed_reason,
// which takes it out of ReadyTools.
func (c *Client) RegistryPlugins(ctx context.Context) (RegistryView, error) {
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return RegistryView{}, err
	}
	if !st.ThirdPartyOn {
		return RegistryView{ThirdPartyOff: true}, nil
	}
	if c.Registry == nil {
		return RegistryView{}, errors.New("this client reaches no registry")
	}
	if off := notAllowed(c.Egress, "registry", c.Registry.Host.Hostname()); len(off) > 0 {
		return RegistryView{}, egressError("registry", off)
	}
	list, at, ferr := c.Registry.Fetch(ctx)
	if list == nil {
		return RegistryView{Err: ferr}, nil
	}
	if err := c.applyRemoved(ctx, list); err != nil {
		return RegistryView{}, err
	}
	return RegistryView{Plugins: list.Plugins, Removed: list.Removed, FetchedAt: at, Err: ferr}, nil
}

// applyRemoved marks registry plugins whose id the list removed, and
// unmarks one listed again. Custom plugins are untouched.
func (c *Client) applyRemoved(ctx context.Context, list *registry.List) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return err
	}
	for _, p := range rows {
		if p.Source != SourceRegistry {
			continue
		}
		id := p.Entry
		if id == "" {
			id = p.ID
		}
		reason, removed := list.RemovedReason(id)
		switch {
		case removed && reason == "":
			reason = "removed from the registry"
		case !removed && list.Lookup(id) == nil:
			continue // neither listed nor removed: leave as it is
		}
		if p.RemovedReason == reason {
			continue
		}
		p.RemovedReason = reason
		if err := c.Store.PutPlugin(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
