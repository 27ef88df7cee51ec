package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// fetch reads origin's robots.txt and classifies the answer as RFC 9309
// 2.3.1 asks (see the package comment).
func (c *Checker) fetch(ctx context.Context, origin string) *entry {
	e := &entry{fetched: c.cfg.Now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		e.kind, e.note = kindUnreachable, err.Error()
		return e
	}
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	req.Header.Set("Accept", "text/plain, */*;q=0.5")
	resp, err := c.client.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, errTooManyRedirects):
			e.kind, e.note = kindAllowAll, "more than 5 redirects"
		case errors.Is(err, context.DeadlineExceeded):
			e.kind, e.note = kindUnreachable, fmt.Sprintf("no answer within %s", c.cfg.FetchTimeout)
		default:
			e.kind, e.note = kindUnreachable, netCause(err)
		}
		return e
	}
	defer resp.Body.Close()
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		body, truncated, err := readAtMost(resp.Body, c.cfg.MaxBytes)
		if err != nil {
			e.kind, e.note = kindUnreachable, "the answer broke off: "+netCause(err)
			return e
		}
		e.kind = kindRules
		if truncated {
			e.note = fmt.Sprintf("read only its first %d bytes (the limit); rules past them are not seen", c.cfg.MaxBytes)
		}
		e.setText(render(Parse(body), c.cfg.Agent), c.cfg.Agent)
	case code == http.StatusTooManyRequests || code >= 500 && code < 600:
		e.kind, e.note = kindUnreachable, fmt.Sprintf("HTTP %d", code)
	case code >= 300 && code < 500:
		e.kind, e.note = kindAllowAll, fmt.Sprintf("HTTP %d", code)
	default:
		e.kind, e.note = kindUnreachable, fmt.Sprintf("HTTP %d", code)
	}
	return e
}

// readAtMost reads at most limit bytes of r, never more. A body that
// reaches the limit may have been cut, so its last line, unless it ends
// in a line break, is dropped ("Allow: /shop" read as "Allow: /s" would
// allow far more) and truncated is true.
func readAtMost(r io.Reader, limit int64) (body []byte, truncated bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) < limit {
		return body, false, nil
	}
	if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
		return body[:i+1], true, nil
	}
	return nil, true, nil
}

// netCause is a network error without the request line url.Error adds.
func netCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
