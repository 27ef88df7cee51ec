package host

import (
	"fmt"
	"net/http"

	"github.com/surfsense/pluginhost/host/usage"
)

// serveUsage answers GET /usage (CONTRACTS.md, "GET /usage") with the
// caller's own usage: today and this month (UTC), or with ?from=&to= a
// range of at most usage.MaxRangeDays days, per plugin and tool, with
// totals and the plan from the verdict. A license reads only its own hash.
func (h *Host) serveUsage(w http.ResponseWriter, r *http.Request) {
	c, _ := callerFrom(r.Context())
	ctx := r.Context()
	today := usage.DayOf(h.now())
	q := r.URL.Query()
	ans := usageAnswer{Plan: planPtr(c), Plugins: map[string]*pluginUsage{}}
	for _, m := range h.plugins { // every plugin mounted, used or not
		pu := ans.plugin(m.plugin.ID)
		for _, t := range m.plugin.Tools {
			pu.tool(t.Name)
		}
	}
	if !q.Has("from") && !q.Has("to") {
		days, err := h.stores.Usage.Days(ctx, c.LicenseHash, []usage.Day{today})
		if err != nil {
			h.usageUnavailable(w, err)
			return
		}
		month, err := h.stores.Usage.Month(ctx, c.LicenseHash, today.Month())
		if err != nil {
			h.usageUnavailable(w, err)
			return
		}
		ans.Day, ans.Month = today, today.Month()
		// The month first: it holds every tool today has, so that each
		// level has both periods.
		ans.add(month, func(p *periodCounts) **usage.Counts { return &p.MonthCounts })
		ans.add(days[today], func(p *periodCounts) **usage.Counts { return &p.DayCounts })
		writeJSON(w, http.StatusOK, ans)
		return
	}
	from, to, msg := usageRange(q.Get("from"), q.Get("to"), today)
	if msg != "" {
		h.refuse(w, http.StatusBadRequest, "bad_request", msg, 0)
		return
	}
	list := usage.Days(from, to)
	days, err := h.stores.Usage.Days(ctx, c.LicenseHash, list)
	if err != nil {
		h.usageUnavailable(w, err)
		return
	}
	ans.From, ans.To = from, to
	ans.Days = make(map[usage.Day]usage.Counts, len(list))
	for _, d := range list {
		t := days[d]
		ans.Days[d] = t.Total()
		ans.add(t, func(p *periodCounts) **usage.Counts { return &p.RangeCounts })
	}
	writeJSON(w, http.StatusOK, ans)
}

// usageRange checks ?from=&to=: both days (to defaults to today), from not
// after to, to not after today, at most usage.MaxRangeDays days. msg says
// what is wrong, "" when nothing is.
func usageRange(fromS, toS string, today usage.Day) (from, to usage.Day, msg string) {
	if fromS == "" {
		return "", "", "a range needs from=YYYY-MM-DD (and to=YYYY-MM-DD, today by default)"
	}
	from, err := usage.ParseDay(fromS)
	if err != nil {
		return "", "", "from: " + err.Error()
	}
	to = today
	if toS != "" {
		if to, err = usage.ParseDay(toS); err != nil {
			return "", "", "to: " + err.Error()
		}
	}
	switch n := usage.Span(from, to); {
	case to < from:
		return "", "", fmt.Sprintf("from (%s) is after to (%s)", from, to)
	case n > usage.MaxRangeDays:
		return "", "", fmt.Sprintf("a range holds at most %d days; from %s to %s is %d days: ask for shorter ranges", usage.MaxRangeDays, from, to, n)
	case to > today:
		return "", "", fmt.Sprintf("to (%s) is after today (%s, UTC)", to, today)
	}
	return from, to, ""
}

func (h *Host) usageUnavailable(w http.ResponseWriter, err error) {
	h.log.Warn("usage not read", "err", err)
	h.refuse(w, http.StatusServiceUnavailable, "usage_unavailable", "usage is counted but cannot be read now (the shared store does not answer); try again shortly", 5)
}

// usageAnswer is GET /usage's body.
type usageAnswer struct {
	Day     usage.Day               `json:"day,omitempty"`
	Month   usage.Month             `json:"month,omitempty"`
	From    usage.Day               `json:"from,omitempty"`
	To      usage.Day               `json:"to,omitempty"`
	Plan    *string                 `json:"plan"`
	Totals  periodCounts            `json:"totals"`
	Plugins map[string]*pluginUsage `json:"plugins"`
	// Days are the range's totals per day (a range only).
	Days map[usage.Day]usage.Counts `json:"days,omitempty"`
}

// periodCounts are counts in the answer's periods: day and month, or range.
type periodCounts struct {
	DayCounts   *usage.Counts `json:"day,omitempty"`
	MonthCounts *usage.Counts `json:"month,omitempty"`
	RangeCounts *usage.Counts `json:"range,omitempty"`
}

type pluginUsage struct {
	periodCounts
	Tools map[string]*periodCounts `json:"tools"`
}

func (a *usageAnswer) plugin(id string) *pluginUsage {
	p := a.Plugins[id]
	if p == nil {
		p = &pluginUsage{Tools: map[string]*periodCounts{}}
		a.Plugins[id] = p
	}
	return p
}

func (p *pluginUsage) tool(name string) *periodCounts {
	t := p.Tools[name]
	if t == nil {
		t = &periodCounts{}
		p.Tools[name] = t
	}
	return t
}

// add sums t into the period that field picks, at every level: totals,
// plugin, tool. Every level gets the period, zero when nothing was counted.
func (a *usageAnswer) add(t usage.Table, field func(*periodCounts) **usage.Counts) {
	into := func(p *periodCounts, c usage.Counts) {
		f := field(p)
		if *f == nil {
			*f = &usage.Counts{}
		}
		(*f).Add(c)
	}
	into(&a.Totals, usage.Counts{})
	for _, pu := range a.Plugins {
		into(&pu.periodCounts, usage.Counts{})
		for _, tu := range pu.Tools {
			into(tu, usage.Counts{})
		}
	}
	for k, c := range t {
		pu := a.plugin(k.Plugin)
		tu := pu.tool(k.Tool)
		into(tu, usage.Counts{})
		into(&pu.periodCounts, usage.Counts{})
		into(&a.Totals, c)
		into(&pu.periodCounts, c)
		into(tu, c)
	}
}

func planPtr(c caller) *string {
	if p := planOf(c.Result); p != "" {
		return &p
	}
	return nil
}
