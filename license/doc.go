// Package license checks SurfSense license keys: contract 2 of
// ../shared/spec/CONTRACTS.md ("The license (contract 2, kept exactly)").
//
// [ParseAuthorization] reads the Authorization header (the scheme matched
// without regard to case, the key verbatim after one space). A [Checker] asks
// a [Backend] — [Keygen] (Keygen CE's validate-key action), a keys file
// ([NewFile]) or [Dev] (any non-empty key) — and caches each verdict under the
// key's [Hash] in a [Store] (memory, or Redis through host/redisstore) for its
// TTL; concurrent checks of one key make one backend request, and a key
// validated as valid stays valid through a grace period while the backend is
// unreachable.
//
// The key is a secret: nothing here logs it, returns it or stores it; caches
// and shared stores see only its hash.
//
// A file per idea: authorization.go (the header), verdict.go (statuses,
// verdicts and reasons), checker.go (caching, grace, one request per key),
// backends.go (file and dev), keygen.go (Keygen CE), store.go (the verdict
// cache).
package license
