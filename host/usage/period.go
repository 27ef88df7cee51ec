package usage

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Retention and range bounds.
const (
	// DayRetention is how long a day's counts are kept.
	DayRetention = 45 * 24 * time.Hour
	// MonthRetention is how long a month's counts are kept.
	MonthRetention = 400 * 24 * time.Hour
	// MaxRangeDays is the most days one range (GET /usage?from=&to=) holds.
	MaxRangeDays = 45
)

const (
	dayLayout   = "2006-01-02"
	monthLayout = "2006-01"
)

// Day is a UTC day, "2026-12-01".
type Day string

// Month is a UTC month, "2026-12".
type Month string

// DayOf is the UTC day of t.
func DayOf(t time.Time) Day { return Day(t.UTC().Format(dayLayout)) }

// MonthOf is the UTC month of t.
func MonthOf(t time.Time) Month { return Month(t.UTC().Format(monthLayout)) }

// ParseDay reads "YYYY-MM-DD" exactly (a real date, zero-padded).
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(dayLayout, s)
	if err != nil || t.Format(dayLayout) != s {
		return "", fmt.Errorf("%q is not a day: write it YYYY-MM-DD, such as 2026-12-01", clip(s))
	}
	return Day(s), nil
}

// ParseMonth reads "YYYY-MM" exactly.
func ParseMonth(s string) (Month, error) {
	t, err := time.Parse(monthLayout, s)
	if err != nil || t.Format(monthLayout) != s {
		return "", fmt.Errorf("%q is not a month: write it YYYY-MM, such as 2026-12", clip(s))
	}
	return Month(s), nil
}

// Time is the day's start (UTC midnight); the zero time for a malformed day.
func (d Day) Time() time.Time {
	t, _ := time.Parse(dayLayout, string(d))
	return t
}

// Month is the month the day is in.
func (d Day) Month() Month { return MonthOf(d.Time()) }

// AddDays is the day n days later (earlier when n < 0).
func (d Day) AddDays(n int) Day { return DayOf(d.Time().AddDate(0, 0, n)) }

// Days are the days from from to to, both included, oldest first; nil when
// to is before from.
func Days(from, to Day) []Day {
	var out []Day
	for d, end := from.Time(), to.Time(); !d.After(end); d = d.AddDate(0, 0, 1) {
		out = append(out, DayOf(d))
	}
	return out
}

// Span is how many days from from to to hold, both included (0 when to is
// before from).
func Span(from, to Day) int {
	n := int(to.Time().Sub(from.Time()).Hours()/24) + 1
	return max(n, 0)
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// periodCache is the last day asked of dayMonthOf: events come in the same
// day nearly always, and formatting a date on every call costs more than
// the rest of counting.
var periodCache atomic.Pointer[cachedPeriod]

type cachedPeriod struct {
	unixDay int64
	day     Day
	month   Month
}

// dayMonthOf is DayOf(t) and MonthOf(t), cached for the last day asked.
func dayMonthOf(t time.Time) (Day, Month) {
	sec := t.Unix()
	n := sec / 86400
	if sec < 0 && sec%86400 != 0 {
		n-- // floor, for times before 1970
	}
	if c := periodCache.Load(); c != nil && c.unixDay == n {
		return c.day, c.month
	}
	c := &cachedPeriod{unixDay: n, day: DayOf(t), month: MonthOf(t)}
	periodCache.Store(c)
	return c.day, c.month
}
