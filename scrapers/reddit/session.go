package reddit

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// sessionTTL is how long the anonymous cookies of one first page load are
// used before another load fetches fresh ones.
const sessionTTL = 20 * time.Minute

// session holds the anonymous cookies (loid, csv, edgebucket, …) Reddit
// sets on a first page load, sent with every .json request as Reddit's web
// client sends them. It is shared by the plugin's calls.
type session struct {
	mu     sync.Mutex
	cookie string // Cookie header value; "" when the load set none
	at     time.Time
	loaded bool
}

// header returns the Cookie header to send, loading the front page first
// when there is none yet or it is stale. A block of that load is returned;
// any other failure of it lets the call go on without cookies.
func (s *session) header(ctx context.Context, f *scrapers.Fetcher) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded && time.Since(s.at) < sessionTTL {
		return s.cookie, nil
	}
	resp, err := f.Do(ctx, &scrapers.Request{URL: origin + "/", Header: http.Header{"Accept": {"text/html,application/xhtml+xml"}}})
	var be *scrapers.BlockedError
	if errors.As(err, &be) || ctx.Err() != nil {
		return "", err
	}
	if err != nil {
		return "", nil // try the JSON anonymously all the same
	}
	var parts []string
	for _, c := range (&http.Response{Header: resp.Header}).Cookies() {
		if c.Name != "" && c.Value != "" && c.MaxAge >= 0 {
			parts = append(parts, c.Name+"="+c.Value)
		}
	}
	s.cookie, s.at, s.loaded = strings.Join(parts, "; "), time.Now(), true
	return s.cookie, nil
}

// reset forgets the cookies (after a block): the next request loads anew.
func (s *session) reset() {
	s.mu.Lock()
	s.loaded = false
	s.mu.Unlock()
}
