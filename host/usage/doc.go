// Package usage counts what each license used (CONTRACTS.md, "GET /usage"):
// per license (by license.Hash, never the key), plugin, tool and UTC day,
// the calls answered, the calls refused by reason, the items returned, the
// upstream requests (retries and proxies included) and bytes, and the calls
// that ended blocked, partial or cancelled.
//
// The host reports each call's end, and each refusal, as an [Event] to a
// [Store]'s Add, which never blocks on I/O: it is on every call's path.
// [Memory] is the store of one replica without Redis. host/redisstore's
// store is shared by the replicas: it aggregates events in a [Buffer] and
// flushes them to Redis every second, once each (a [Batch] has an id, so a
// retried batch is not counted twice), and keeps them, within a bound, while
// Redis is unreachable. [Discard] counts nothing (the bench's "off").
//
// Days are UTC days ("2026-12-01"), months UTC months ("2026-12"). A day's
// counts are kept [DayRetention] (45 days), a month's [MonthRetention]
// (400 days); a range of days read at once holds at most [MaxRangeDays].
package usage
