package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers/robots"
)

// What the map asks of robots.txt (the crawler's robots.Checker): the
// sitemaps it names, whether a URL may be listed or fetched, and the pause
// it asks between fetches.

// robotsSitemaps are the Sitemap lines of home's robots.txt.
func (m *mapper) robotsSitemaps(ctx context.Context, home *url.URL) []string {
	m.readsRobots(home.Host)
	list, err := m.cr.s.Robots.Sitemaps(ctx, home)
	if err != nil && ctx.Err() == nil {
		m.note(fmt.Sprintf("robots.txt of %s could not be read: %v", home.Host, err))
	}
	return list
}

// allowed says whether robots.txt lets u be fetched and listed. A host
// whose robots.txt is unreachable lists nothing (RFC 9309: a server error
// is a full disallow). With subdomains, the robots.txt of at most
// mapMaxHosts hosts is read; URLs on the rest are left out.
func (m *mapper) allowed(ctx context.Context, u *url.URL) bool {
	if !m.readsRobots(u.Host) {
		return false
	}
	v := m.cr.s.Robots.Check(ctx, u)
	if !v.Allowed {
		m.mu.Lock()
		m.disallowed++
		m.mu.Unlock()
		if v.Err != nil && ctx.Err() == nil && !isDisallowed(v.Err) {
			m.note(v.Err.Error())
		}
	}
	return v.Allowed
}

// readsRobots counts a host's robots.txt as one request of the map the
// first time the map meets the host; false when the map has met
// mapMaxHosts hosts already.
func (m *mapper) readsRobots(host string) bool {
	host = strings.ToLower(host)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hosts[host] {
		return true
	}
	if len(m.hosts) >= mapMaxHosts {
		m.hostsCut = true
		return false
	}
	m.hosts[host] = true
	m.requests.Add(1)
	return true
}

// delay is the pause after a fetch from u's host before its next: the
// crawler's own, or robots.txt's Crawl-delay when longer.
func (m *mapper) delay(ctx context.Context, u *url.URL) time.Duration {
	d := m.cr.s.PerHostDelay
	if v := m.cr.s.Robots.Check(ctx, u); v.CrawlDelay > d {
		d = v.CrawlDelay
		if note := v.Note(); note != "" {
			m.note(note)
		}
	}
	return d
}

// isDisallowed says whether err is robots.txt's answer for the URL (a rule
// or a content signal), which is counted, not noted one by one.
func isDisallowed(err error) bool {
	return errors.Is(err, robots.ErrDisallowed) || errors.Is(err, robots.ErrContentSignal)
}
