// Package resultcache answers a question asked twice with one upstream
// fetch (CONTRACTS.md, "Tool results": Cache).
//
// A question is a tool call's [Key]: its plugin, its tool and its canonical
// arguments, never the license (these are public pages). A [Cache] keeps the
// answers of finished runs in a [Store] for the cache's TTL (RESULT_CACHE_TTL)
// and makes concurrent identical calls share one run:
//
//   - [Cache.Lookup] gives a stored answer no older than the caller accepts
//     (max_age_seconds, at most the TTL);
//   - [Cache.Join] makes the caller a member of the run of its key on this
//     replica, starting one when none runs. With [Leases] (Redis) the run is
//     shared across replicas too: one replica holds a short lease and runs;
//     the others wait for its answer, and take the lease over when its holder
//     stops renewing it (a replica that died).
//
// A run belongs to no caller: it ends on its own deadline, or when the last
// member (on any replica) has left it; a member that leaves early (its user
// cancelled, its client went away) only stops waiting. Only whole answers are
// stored: a partial, blocked or failed run is shared with the members that
// waited for it and never stored ([Cacheable]).
//
// [Memory] is the Store of one replica, bounded in bytes; host/redisstore
// offers the shared one.
package resultcache
