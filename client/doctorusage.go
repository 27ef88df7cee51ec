package client

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// usage prints today's usage of the license (GET /usage): the totals, then
// each plugin used today. A host that refuses the license (the license line
// says why) or does not serve /usage is not a problem of its own.
func (d *doctor) usage(ctx context.Context, c *Client) {
	u, err := c.Usage(ctx, "", "")
	var ue *UsageError
	switch {
	case errors.As(err, &ue) && (ue.Status == 401 || ue.Status == 403):
		d.line("usage", "--", "not read: the host refused the license ("+ue.Reason+")")
		return
	case errors.As(err, &ue) && ue.Status == 404:
		d.line("usage", "--", "this host does not serve GET /usage")
		return
	case err != nil:
		d.fail("usage", err.Error())
		return
	}
	day, month := orZero(u.Totals.Day), orZero(u.Totals.Month)
	d.line("usage", "ok", fmt.Sprintf("today (%s, UTC): %s; this month: %d calls", u.Day, countsLine(day), month.Calls))
	ids := make([]string, 0, len(u.Plugins))
	for id, p := range u.Plugins {
		if c := orZero(p.Day); c.Calls+c.Refused.RateLimited+c.Refused.Concurrency+c.Refused.License > 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		d.line("usage", "", id+": "+countsLine(orZero(u.Plugins[id].Day)))
	}
}

func orZero(c *UsageCounts) UsageCounts {
	if c == nil {
		return UsageCounts{}
	}
	return *c
}

func countsLine(c UsageCounts) string {
	s := fmt.Sprintf("%d calls, %d items, %d upstream requests (%s)", c.Calls, c.Items, c.UpstreamRequests, byteSize(c.UpstreamBytes))
	if r := c.Refused.RateLimited + c.Refused.Concurrency + c.Refused.License; r > 0 {
		s += fmt.Sprintf(", %d refused", r)
	}
	if c.Blocked+c.Partial+c.Cancelled > 0 {
		s += fmt.Sprintf(", %d blocked, %d partial, %d cancelled", c.Blocked, c.Partial, c.Cancelled)
	}
	return s
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
