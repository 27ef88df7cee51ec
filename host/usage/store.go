package usage

import (
	"context"
	"time"
)

// Event is one thing to count: a call's end or a refusal.
type Event struct {
	// License is license.Hash of the key, never the key.
	License string
	// Plan is the plan from the license's verdict, "" when unknown.
	Plan string
	// Plugin and Tool are what was called; Tool is [UnknownTool] when the
	// request was refused before its tool was read.
	Plugin, Tool string
	// Time is when it happened; its UTC day and month are the periods
	// counted.
	Time   time.Time
	Counts Counts
}

// UnknownTool stands for the tool of a request refused before its tool
// was read (the license check comes before the body, by contract 2), or
// naming a tool the plugin does not have.
const UnknownTool = "-"

// Tool names one tool of one plugin.
type Tool struct{ Plugin, Tool string }

// Table is one license's counts in one period, per tool.
type Table map[Tool]Counts

// Total is the sum over every tool.
func (t Table) Total() Counts {
	var c Counts
	for _, v := range t {
		c.Add(v)
	}
	return c
}

// Merge adds o into t.
func (t Table) Merge(o Table) {
	for k, v := range o {
		c := t[k]
		c.Add(v)
		t[k] = c
	}
}

// Ranked is one license among those that used most in a period.
type Ranked struct {
	License string // the hash
	Plan    string // the last plan seen, "" when unknown
	Counts  Counts // summed over its tools
}

// Period is a day or a month: exactly one is set.
type Period struct {
	Day   Day
	Month Month
}

// String is the day or the month.
func (p Period) String() string {
	if p.Day != "" {
		return string(p.Day)
	}
	return string(p.Month)
}

// Counter takes events. Add never blocks on I/O, never fails and is safe
// for concurrent use: it is on every call's path.
type Counter interface {
	Add(Event)
}

// Store counts events and reads them back.
type Store interface {
	Counter
	// Days are license's counts on each of days (a day with none is
	// absent).
	Days(ctx context.Context, license string, days []Day) (map[Day]Table, error)
	// Month is license's counts in month m.
	Month(ctx context.Context, license string, m Month) (Table, error)
	// Top are the n licenses that made most calls (answered or refused) in
	// p, most first.
	Top(ctx context.Context, p Period, n int) ([]Ranked, error)
}

// Discard counts nothing and reads nothing: counting off.
type Discard struct{}

func (Discard) Add(Event) {}
func (Discard) Days(context.Context, string, []Day) (map[Day]Table, error) {
	return map[Day]Table{}, nil
}
func (Discard) Month(context.Context, string, Month) (Table, error) { return Table{}, nil }
func (Discard) Top(context.Context, Period, int) ([]Ranked, error)  { return nil, nil }
