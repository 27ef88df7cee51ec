package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors [VerifyList] wraps, besides [ErrNotVerified].
var (
	// ErrUnknownSchema: the list's schema_version is not one this build
	// reads. Keep the copy held; a newer build reads it.
	ErrUnknownSchema = errors.New("unknown registry schema_version")
	// ErrOlderList: the list's generated_at is older than the copy held, as
	// a replayed old list would be. Keep the copy held.
	ErrOlderList = errors.New("registry list is older than the copy held")
	// ErrInvalidList: the list verifies but breaks the registry's rules.
	ErrInvalidList = errors.New("registry list breaks its rules")
)

// VerifyList verifies a fetched registry (the exact bytes of plugins.json
// and of plugins.json.sigstore.json) and returns it parsed. It refuses, in
// this order: a signature that does not verify under the verifier's trust
// ([ErrNotVerified]), a schema_version other than [SchemaVersion]
// ([ErrUnknownSchema]), a list breaking the registry's rules or taking a
// first-party id ([ErrInvalidList]), and a list whose generated_at is older
// than held's ([ErrOlderList]). held is the newest copy already accepted, or
// nil. Icon files are not checked: they are fetched apart.
func (v *Verifier) VerifyList(listJSON, bundleJSON []byte, held *List) (*List, error) {
	if len(listJSON) > MaxListBytes {
		return nil, fmt.Errorf("%w: the list is %d bytes; the most is %d", ErrInvalidList, len(listJSON), MaxListBytes)
	}
	if err := v.Verify(listJSON, bundleJSON); err != nil {
		return nil, err
	}
	if err := checkSchemaVersion(listJSON); err != nil {
		return nil, err
	}
	list, ps := Check(ThirdParty, listJSON, nil)
	if fp, err := firstParty(); err == nil {
		ps = append(ps, CheckAcross(fp, list)...)
	}
	if len(ps) > 0 {
		return nil, fmt.Errorf("%w:\n%s", ErrInvalidList, ps.Error())
	}
	if held != nil && list.GeneratedAt.Before(held.GeneratedAt) {
		return nil, fmt.Errorf("%w: generated_at %s is before the held copy's %s", ErrOlderList,
			list.GeneratedAt.Format(time.RFC3339), held.GeneratedAt.Format(time.RFC3339))
	}
	return list, nil
}

// VerifyList is [Verifier.VerifyList] with a verifier built from trust.
func VerifyList(listJSON, bundleJSON []byte, trust Trust, held *List) (*List, error) {
	v, err := NewVerifier(trust)
	if err != nil {
		return nil, err
	}
	return v.VerifyList(listJSON, bundleJSON, held)
}

// checkSchemaVersion refuses a list whose schema_version is absent or not
// [SchemaVersion], before its rules are read.
func checkSchemaVersion(listJSON []byte) error {
	var head struct {
		SchemaVersion json.RawMessage `json:"schema_version"`
	}
	if err := json.Unmarshal(listJSON, &head); err != nil {
		return fmt.Errorf("%w: the list is not a JSON object: %v", ErrInvalidList, err)
	}
	got := strings.TrimSpace(string(head.SchemaVersion))
	if got != fmt.Sprint(SchemaVersion) {
		if got == "" {
			got = "missing"
		}
		return fmt.Errorf("%w: schema_version is %s; this build reads %d", ErrUnknownSchema, clip(got), SchemaVersion)
	}
	return nil
}
