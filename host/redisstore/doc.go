// Package redisstore shares the host's state between replicas through Redis
// (go-redis v9): license verdicts, the thread registry with cancel fan-out,
// rate limits and concurrency slots, and stored large results.
//
// One [Store] per replica holds one client and offers the stores the host
// uses: [Store.Licenses] (license.Store), [Store.Calls] (calls.Registry),
// [Store.Results] (results.Store), [Store.Limiter] (ratelimit.Limiter) and
// [Store.SeenStates] (oauthpage.SeenStates); [Store.Check] is the form of
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
//	cancel, ended              pub/sub channels of the thread registry
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
//   - Results: stored in this replica's memory while Redis is down; Get
//     looks in Redis first, then in memory, so a result stored during the
//     fault is readable from the replica that stored it, for 24 hours or
//     until it restarts.
//   - OAuth states: this replica's memory, so a callback link works once
//     per replica during the fault (the app accepts a state only once).
//
// A cancel or an ended call announced while a replica's subscription was cut
// off is not replayed: the canceller then reports those calls as still
// running after its wait, and they end by their deadline.
package redisstore
