package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/usage"
)

// Usage counts what each license used, summed across the replicas in
// Redis. Add sums events in this replica's buffer (usage.Buffer), written
// every [Options].UsageFlushInterval by one script per batch of entries:
//
//	usage:d:<hash>:<YYYY-MM-DD>   a day's counts: hash of "<plugin>|<tool>|<counter>", 45 days
//	usage:m:<hash>:<YYYY-MM>      a month's counts, the same fields, 400 days
//	usage:top:d:<day>, usage:top:m:<month>
//	                              calls made per license hash (sorted set), 45 / 400 days
//	usage:plan:<hash>             the plan last seen, 400 days
//	usage:batch:<id>              a batch already counted (SET NX), 1 hour
//
// While Redis is unreachable the buffer keeps the counts (bounded by
// [Options].UsageMaxEntries) and writes them when it answers again; reads
// fail then (GET /usage answers 503). See the package documentation.
func (s *Store) Usage() usage.Store { return usageStore{s} }

// FlushUsage writes this replica's buffered counts to Redis now. The
// Store does it every UsageFlushInterval and on Close.
func (s *Store) FlushUsage(ctx context.Context) error { return s.usage.Flush(ctx) }

// Defaults of the usage options.
const (
	DefaultUsageFlushInterval = time.Second
	// usageBatchTTL is how long a written batch's id is remembered: a
	// batch retried later than that after a lost answer counts twice.
	usageBatchTTL = time.Hour
)

type usageStore struct{ s *Store }

var _ usage.Store = usageStore{}

func (u usageStore) Add(e usage.Event) { u.s.usage.Add(e) }

// usageSink writes batches with scriptUsage.
type usageSink struct{ s *Store }

func (k usageSink) Write(ctx context.Context, b usage.Batch) error {
	s := k.s
	args := make([]any, 0, 4+len(b.Entries)*(6+usage.NumFields))
	args = append(args, int64(usageBatchTTL/time.Second), int64(usage.DayRetention/time.Second),
		int64(usage.MonthRetention/time.Second), s.key("usage")+":")
	for _, e := range b.Entries {
		args = append(args, e.License, e.Plan, string(e.Day), string(e.Day.Month()), e.Plugin, e.Tool)
		for _, v := range e.Counts.Values() {
			args = append(args, v)
		}
	}
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptUsage.Run(ctx, s.rdb, []string{s.key("usage", "batch", b.ID)}, args...).Err()
	})
	if err != nil {
		s.fallback("usage")
	}
	if errors.Is(err, errDegraded) { // not even sent
		return fmt.Errorf("%w: %w", usage.ErrNotWritten, err)
	}
	return err
}

func (u usageStore) Days(ctx context.Context, license string, days []usage.Day) (map[usage.Day]usage.Table, error) {
	s := u.s
	cmds := make([]*redis.MapStringStringCmd, len(days))
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, d := range days {
				cmds[i] = p.HGetAll(ctx, s.key("usage", "d", license, string(d)))
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, usageReadErr(err)
	}
	out := map[usage.Day]usage.Table{}
	for i, d := range days {
		if t := parseUsage(cmds[i].Val()); len(t) > 0 {
			out[d] = t
		}
	}
	return out, nil
}

func (u usageStore) Month(ctx context.Context, license string, m usage.Month) (usage.Table, error) {
	s := u.s
	var raw map[string]string
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		raw, err = s.rdb.HGetAll(ctx, s.key("usage", "m", license, string(m))).Result()
		return err
	})
	if err != nil {
		return nil, usageReadErr(err)
	}
	return parseUsage(raw), nil
}

func (u usageStore) Top(ctx context.Context, p usage.Period, n int) ([]usage.Ranked, error) {
	return topUsage(ctx, u.s.rdb, u.s.opts.Prefix, p, n, func(ctx context.Context, fn func(context.Context) error) error {
		return u.s.do(ctx, u.s.opts.Timeout, fn)
	})
}

// TopUsage reads the n licenses that made most calls in p from the Redis
// at url, under prefix ("" is DefaultPrefix): `pluginhost usage --top`. It
// opens one connection for the read, not a replica's Store.
func TopUsage(ctx context.Context, url, prefix string, p usage.Period, n int) ([]usage.Ranked, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL must look like redis://[:password@]host:6379/0 or rediss://…")
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	ro.DisableIdentity = true
	rdb := redis.NewClient(ro)
	defer rdb.Close()
	return topUsage(ctx, rdb, prefix, p, n, func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) })
}

func topUsage(ctx context.Context, rdb redis.Cmdable, prefix string, p usage.Period, n int, do func(context.Context, func(context.Context) error) error) ([]usage.Ranked, error) {
	if n <= 0 {
		return nil, nil
	}
	kind, period := "d", string(p.Day)
	if p.Day == "" {
		kind, period = "m", string(p.Month)
	}
	key := func(parts ...string) string { return prefix + strings.Join(parts, ":") }
	var top []redis.Z
	var tabs []*redis.MapStringStringCmd
	var plans []*redis.StringCmd
	err := do(ctx, func(ctx context.Context) error {
		var err error
		top, err = rdb.ZRevRangeWithScores(ctx, key("usage", "top", kind, period), 0, int64(n-1)).Result()
		if err != nil || len(top) == 0 {
			return err
		}
		tabs = make([]*redis.MapStringStringCmd, len(top))
		plans = make([]*redis.StringCmd, len(top))
		_, err = rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for i, z := range top {
				h, _ := z.Member.(string)
				tabs[i] = pl.HGetAll(ctx, key("usage", kind, h, period))
				plans[i] = pl.Get(ctx, key("usage", "plan", h))
			}
			return nil
		})
		if err == redis.Nil { // a plan never seen
			err = nil
		}
		return err
	})
	if err != nil {
		return nil, usageReadErr(err)
	}
	out := make([]usage.Ranked, 0, len(top))
	for i, z := range top {
		h, _ := z.Member.(string)
		out = append(out, usage.Ranked{License: h, Plan: plans[i].Val(), Counts: parseUsage(tabs[i].Val()).Total()})
	}
	usage.SortRanked(out)
	return out, nil
}

func usageReadErr(err error) error {
	return fmt.Errorf("usage cannot be read from Redis now: %w", err)
}

// parseUsage reads a usage hash; fields it does not know are left out.
func parseUsage(raw map[string]string) usage.Table {
	t := usage.Table{}
	for f, v := range raw {
		i := strings.LastIndexByte(f, '|')
		j := strings.IndexByte(f, '|')
		if i < 0 || j == i {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		k := usage.Tool{Plugin: f[:j], Tool: f[j+1 : i]}
		c := t[k]
		if c.Set(f[i+1:], n) {
			t[k] = c
		}
	}
	return t
}

// flushUsage writes the usage buffer (every UsageFlushInterval, and at
// once when Redis answers again after a fault).
func (s *Store) flushUsage() {
	if s.usage.Held() == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 4*s.opts.Timeout)
	_ = s.usage.Flush(ctx)
	cancel()
}

// flushUsageAtClose is the last flush, bounded, after the loops stopped.
func (s *Store) flushUsageAtClose() {
	if s.usage.Held() == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*s.opts.Timeout)
	defer cancel()
	if err := s.usage.Flush(ctx); err != nil {
		s.log.Warn("usage counts not written to Redis at close: they are lost", "entries", s.usage.Held(), "error", err.Error())
	}
}

// usageMetrics are the buffer's series.
type usageMetrics struct {
	reg     prometheus.Registerer
	held    prometheus.GaugeFunc
	dropped prometheus.CounterFunc
}

func newUsageMetrics(r prometheus.Registerer, b *usage.Buffer) (*usageMetrics, error) {
	m := &usageMetrics{
		reg: r,
		held: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "usage_buffered_entries",
			Help: "Usage entries (license, day, plugin, tool) this replica holds, not yet written to Redis.",
		}, func() float64 { return float64(b.Held()) }),
		dropped: prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "usage_dropped_events_total",
			Help: "Usage events not counted because the buffer was full during a Redis fault.",
		}, func() float64 { return float64(b.Dropped()) }),
	}
	if err := r.Register(m.held); err != nil {
		return nil, err
	}
	if err := r.Register(m.dropped); err != nil {
		r.Unregister(m.held)
		return nil, err
	}
	return m, nil
}

func (m *usageMetrics) unregister() {
	m.reg.Unregister(m.held)
	m.reg.Unregister(m.dropped)
}

// scriptUsage counts one batch once. KEYS[1] is the batch's id key;
// ARGV[1..3] the lifetimes in seconds of the id, a day and a month; ARGV[4]
// the key prefix of usage; then per entry: license hash, plan, day, month,
// plugin, tool and the counters in the order of usage.Fields. Returns 1
// when counted, 0 when the batch was counted before.
var scriptUsage = redis.NewScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
local names = {` + luaNames() + `}
local nf = #names
local dttl, mttl, p = ARGV[2], ARGV[3], ARGV[4]
local i = 5
while i + 5 + nf <= #ARGV do
  local lic, plan, day, month, plugin, tool = ARGV[i], ARGV[i+1], ARGV[i+2], ARGV[i+3], ARGV[i+4], ARGV[i+5]
  local dk = p .. 'd:' .. lic .. ':' .. day
  local mk = p .. 'm:' .. lic .. ':' .. month
  local made = 0
  for f = 1, nf do
    local v = tonumber(ARGV[i + 5 + f])
    if v ~= 0 then
      local field = plugin .. '|' .. tool .. '|' .. names[f]
      redis.call('HINCRBY', dk, field, v)
      redis.call('HINCRBY', mk, field, v)
      if f <= ` + strconv.Itoa(usage.MadeFields) + ` then made = made + v end
    end
  end
  redis.call('EXPIRE', dk, dttl)
  redis.call('EXPIRE', mk, mttl)
  if made > 0 then
    local td, tm = p .. 'top:d:' .. day, p .. 'top:m:' .. month
    redis.call('ZINCRBY', td, made, lic)
    redis.call('ZINCRBY', tm, made, lic)
    redis.call('EXPIRE', td, dttl)
    redis.call('EXPIRE', tm, mttl)
  end
  if plan ~= '' then redis.call('SET', p .. 'plan:' .. lic, plan, 'EX', mttl) end
  i = i + 6 + nf
end
return 1
`)

func luaNames() string {
	q := make([]string, len(usage.Fields))
	for i, f := range usage.Fields {
		q[i] = "'" + f + "'"
	}
	return strings.Join(q, ", ")
}
