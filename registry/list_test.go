package registry

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// signedList signs list with a fresh key and returns the bundle and the trust.
func signedList(t *testing.T, keyPath string, list []byte) []byte {
	t.Helper()
	key, err := LoadPrivateKey(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SignBytes(key, list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyList(t *testing.T) {
	keyPath, pubPath := testKeys(t)
	trust := Trust{PublicKey: readFile(t, pubPath)}
	bundle := signedList(t, keyPath, registryJSON)

	held, err := VerifyList(registryJSON, bundle, trust, nil)
	if err != nil {
		t.Fatalf("a good list: %v", err)
	}
	if held.Lookup("orbit-docs") == nil || len(held.Removed) != 1 {
		t.Fatalf("parsed list %+v", held)
	}
	// The same copy again (equal generated_at) is fine.
	if _, err := VerifyList(registryJSON, bundle, trust, held); err != nil {
		t.Errorf("same list again: %v", err)
	}

	newer := bytes.Replace(registryJSON, []byte("2026-11-27T09:30:00Z"), []byte("2026-12-01T00:00:00Z"), 1)
	newerList, err := VerifyList(newer, signedList(t, keyPath, newer), trust, held)
	if err != nil {
		t.Fatalf("a newer list: %v", err)
	}

	_, otherPub := testKeys(t)
	schema2 := bytes.Replace(registryJSON, []byte(`"schema_version": 1`), []byte(`"schema_version": 2`), 1)
	noSchema := bytes.Replace(registryJSON, []byte(`"schema_version": 1,`), nil, 1)
	broken := bytes.Replace(registryJSON, []byte(`"privacy_policy": "https://orbitdocs.io/privacy",`), nil, 1)
	takesFirstParty := bytes.Replace(registryJSON, []byte(`"id": "recipe-box"`), []byte(`"id": "youtube"`), 1)

	cases := map[string]struct {
		list, bundle []byte
		trust        Trust
		held         *List
		want         error
		msg          string
	}{
		"tampered":                {bytes.Replace(registryJSON, []byte("Ledgerly Ltd"), []byte("Ledgerly Ltd."), 1), bundle, trust, nil, ErrNotVerified, ""},
		"wrong key":               {registryJSON, bundle, Trust{PublicKey: readFile(t, otherPub)}, nil, ErrNotVerified, ""},
		"missing bundle":          {registryJSON, nil, trust, nil, ErrNotVerified, "missing"},
		"bundle of another list":  {registryJSON, signedList(t, keyPath, newer), trust, nil, ErrNotVerified, ""},
		"wrong identity":          {registryJSON, bundle, Trust{Issuer: GitHubActionsIssuer, Identity: workflowIdentity}, nil, ErrNotVerified, ""},
		"replayed older list":     {registryJSON, bundle, trust, newerList, ErrOlderList, "before the held copy's 2026-12-01T00:00:00Z"},
		"unknown schema_version":  {schema2, signedList(t, keyPath, schema2), trust, nil, ErrUnknownSchema, "schema_version is 2"},
		"missing schema_version":  {noSchema, signedList(t, keyPath, noSchema), trust, nil, ErrUnknownSchema, "missing"},
		"signed but breaks rules": {broken, signedList(t, keyPath, broken), trust, nil, ErrInvalidList, "orbit-docs: privacy_policy: missing"},
		"takes a first-party id":  {takesFirstParty, signedList(t, keyPath, takesFirstParty), trust, nil, ErrInvalidList, "youtube: id"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := VerifyList(c.list, c.bundle, c.trust, c.held)
			if !errors.Is(err, c.want) || got != nil {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q lacks %q", err, c.msg)
			}
		})
	}
	if _, err := VerifyList(registryJSON, bundle, Trust{}, nil); err == nil || errors.Is(err, ErrNotVerified) {
		t.Errorf("no trust: %v", err)
	}
}
