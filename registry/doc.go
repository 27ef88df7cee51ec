// Package registry holds SurfSense's two plugin lists and everything done
// with them: the first-party list the app packages and the signed
// third-party registry, their shared entry schema and the two rule sets
// ([Check], [CheckAcross], [CheckHistory]), Sigstore signing with a key pair
// or keyless ([SignFile], [SignKeyless]) and verification ([Verifier],
// [VerifyList]), the maintainers' commands ([Main], wired as `pluginhost
// registry`), and serving ([Server]): the host verifies the registry at start
// and never serves a list that does not verify.
//
// Both lists and their icons are built into the binary; see README.md for
// the schema, the rules, and how the built-in registry is re-signed.
package registry
