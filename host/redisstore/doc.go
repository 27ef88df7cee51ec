// Package redisstore shares the host's state between replicas through Redis
// (go-redis v9): license verdicts, the thread registry with cancel fan-out,
// rate limits and concurrency slots, and stored large results.
//
// One [Store] per replica holds one client and offers the stores the host
// uses: [Store.Licenses] (license.Store), [Store.Calls] (calls.Registry),
// [Store.Results] (results.Store), [Store.Limiter] (ratelimit.Limiter),
// [Store.SeenStates] (oauthpage.SeenStates), [Store.Usage] (usage.Store) and
// [Store.ResultCache] (the shared result cache: resultcache.Store and
// resultcache.Leases), [Store.Tasks] (tasks.Store, MCP Tasks); [Store.Check] is the form of
// [Store.Health] that host.Stores.Health takes.
//
// # Keys
//
// Every key and channel starts with [Options.Prefix] ("surfsense:ph:").
// Licenses are named by license.Hash, never by the key:
//
//	lic:<hash>                 a verdict (JSON license.Entry), kept as long as the checker asks (the grace)
//	lic-lock:<hash>            who asks the license backend about <hash> now (SET NX PX)
//	calls:<hash>:<thread>      calls in flight: sorted set of replica/call, scored by expiry
//	rl:<hash>:<plugin>         calls in the last minute: sorted set scored by time
//	conc:<hash>                calls in flight for MAX_CONCURRENT_CALLS: sorted set scored by expiry
//	res:<result id>            a stored result and its owner's hash (JSON), 24 h
//	oauth-state:<sha256>       an OAuth callback state already used, 10 min
//	usage:d:<hash>:<day>       a day's usage: hash of "<plugin>|<tool>|<counter>" (HINCRBY), 45 days
//	usage:m:<hash>:<month>     a month's usage, the same fields, 400 days
//	usage:top:d:<day>, usage:top:m:<month>
//	                           calls made per license hash (sorted set), 45 / 400 days
//	usage:plan:<hash>          the plan last seen with the license, 400 days
//	usage:batch:<id>           a usage batch already counted (SET NX), 1 hour
//	cache:<key>                a result cache answer, "<fetched ms>|<JSON>", RESULT_CACHE_TTL
//	cache-lease:<key>          the replica running <key> now (SET NX PX, renewed)
//	cache-wait:<key>           replicas waiting for that run: sorted set scored by expiry
//	task:<hash>:<id>           an MCP task (hash: status, message, times, result or error), its TTL
//	task-leases                tasks running: sorted set of task id, scored by expiry
//	pol:<site>                 a site's politeness slots: sorted set of replica/lease, scored by expiry
//	pol-next:<site>            the earliest start of the site's next request (ms), its interval after the last
//	pol-hold:<site>|<exit>     a hold on the site through one exit (direct, proxy-N): the reason, PX the time asked
//	shared:<key>               a value every replica reads (web-crawl's robots.txt per host), its TTL
//	cancel, ended              pub/sub channels of the thread registry
//	cache-done                 pub/sub channel: a result cache key was finished
//
// Times inside Redis come from Redis (TIME in Lua scripts), so the replicas'
// clocks never matter. Redis Cluster is not supported: one Redis (or a
// primary with replicas), such as Azure Cache for Redis Basic or Standard.
//
// # Faults
//
// Every command runs under a short deadline ([Options.Timeout], 250 ms; a
// large result gets [Options.ResultTimeout]). The first failure marks Redis
// down; while it is down no command is even tried, so a fault costs at most
// one timeout, and a probe pings every [Options.ProbeInterval] until Redis
// answers again. go-redis reconnects by itself; the pub/sub subscription is
// renewed. [Store.Health] and the gauge redis_up report the state, so that
// /readyz can name Redis as degraded (with 200), and redis_fallbacks_total
// counts what was served from memory instead. Nothing hangs or panics, and no
// method returns a Redis error to the host: each concern falls back to this
// replica's memory, as follows.
//
//   - Licenses: fail open to the local cache. Every verdict saved or loaded
//     is mirrored into this replica's memory, which answers Load while Redis
//     cannot; Save always succeeds (in memory). Lock is granted while Redis
//     is down, so each replica may ask the license backend itself (the
//     checker's single-flight still makes it one request per replica):
//     refusing the lock would refuse every new key.
//   - Calls: local only. A call starts and can be cancelled on its own
//     replica; a cancel reaches this replica's calls only. Registrations
//     made or removed during the fault are written by the first heartbeat
//     after Redis answers again. A replica that dies leaves its calls
//     registered for at most [Options.CallTTL] (15 s).
//   - Rate limits and concurrency: fail open to a local limit (this
//     replica's ratelimit.Memory), so each replica enforces the limits alone
//     until Redis answers: at most N times the limit across N replicas, but
//     never zero. A slot held by a replica that died lapses after CallTTL.
//   - Politeness (a site's pages in flight, the pause between them, and
//     holds after a 429, a 503 or a block: [Store.Politeness]): fail open
//     to this replica's own limits (scrapers.LocalPoliteness), so each
//     replica is polite alone until Redis answers: at most N times a site's
//     limit across N replicas, never a call failed or held up by the fault.
//     A hold is kept in this replica's memory too, so it outlives a fault
//     here. A lease held by a replica that died lapses after CallTTL; a
//     waiting request asks again every 20 to 200 ms, never holding a lock.
//     /readyz names Redis degraded with "politeness is per replica".
//   - Shared cache ([Store.SharedCache], web-crawl's robots.txt): a miss
//     while Redis is down, so each replica fetches for itself and keeps the
//     answer in its own memory.
//   - Results: stored in this replica's memory while Redis is down or full
//     (refusing the write with OOM: maxmemory and noeviction), under an id
//     that names this replica (results.LocalID), and the call's answer says
//     so (result_held_by). Get looks in Redis first, then in memory, so such
//     a result is readable from the replica that stored it, for 24 hours or
//     until it restarts; every other replica answers that the result is
//     held by that replica, by name, never that it expired. A full Redis is
//     not a fault: reads go on, and each write it refuses falls back alone.
//   - Result cache: this replica's memory; leases are granted at once, so
//     each replica runs its own questions until Redis answers.
//   - Tasks: none created. A task must be readable on every replica before
//     it is returned, so while Redis is down a call that would become a
//     task is answered directly (the client declared the extension and
//     takes either). tasks/get and tasks/cancel answer -32603 (the task may
//     exist; poll again). A task's progress is skipped during the fault and
//     its end is retried for 30 s. A task whose replica dies, or cannot
//     renew its lease for longer than [Options.CallTTL] (15 s), is failed
//     by the next read of it on any replica.
//   - OAuth states: this replica's memory, so a callback link works once
//     per replica during the fault (the app accepts a state only once).
//   - Usage: buffered, then written when Redis answers. Every replica sums
//     its events in memory (usage.Buffer) and writes them every
//     [Options].UsageFlushInterval (1 s), a batch of entries per script that
//     counts a batch id once, and at once when Redis answers again after a
//     fault. Reads (GET /usage) need Redis: they answer 503
//     usage_unavailable during the fault. What can be lost:
//     1. An event that needs a new entry (license, day, plugin, tool) while
//     the buffer already holds [Options].UsageMaxEntries (200,000) entries
//     not yet written: it is dropped and counted in
//     usage_dropped_events_total. Events adding to an entry held are never
//     dropped, so the bound caps memory, not calls.
//     2. What a replica holds when it stops while Redis is still down (Close
//     tries one last write, bounded; the loss is logged with its size), or
//     when it dies.
//     3. What Redis itself loses: a Redis without persistence (AOF or RDB)
//     that restarts comes back empty, and the counts it held (not those the
//     replicas still buffer) are gone. Turn persistence on where usage
//     matters.
//     A batch whose answer was lost (Redis applied it, then the connection
//     failed) is written again with its id and counted once, provided the
//     retry comes within an hour (the id's lifetime) and Redis kept the id.
//     Counts reach Redis up to UsageFlushInterval after the call: another
//     replica's GET /usage may lag by that much.
//
// A cancel or an ended call announced while a replica's subscription was cut
// off is not replayed: the canceller then reports those calls as still
// running after its wait, and they end by their deadline.
package redisstore
