package registry

import "testing"

// BenchmarkCheckRegistry is the rule check of the example registry, icons
// included (what the host does at start besides the signature).
func BenchmarkCheckRegistry(b *testing.B) {
	icons := EmbeddedRegistryIcons()
	for b.Loop() {
		if _, ps := Check(ThirdParty, registryJSON, icons); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}

// BenchmarkVerifyListKey is a client's whole acceptance of a fetched
// registry signed with a key pair: signature, schema, rules, first-party ids.
func BenchmarkVerifyListKey(b *testing.B) {
	v, err := NewVerifier(Trust{PublicKey: devPublicKey})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := v.VerifyList(registryJSON, registryBundle, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyKeyless is the signature check of a keyless bundle:
// certificate chain, transparency-log promise and inclusion proof, identity.
func BenchmarkVerifyKeyless(b *testing.B) {
	s := newSigstoreStandIn(b)
	bundle, err := SignKeylessBytes(b.Context(), s.options(workflowToken(workflowRef)), registryJSON)
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewVerifier(Trust{Issuer: standInIssuer, Identity: workflowIdentity, TrustedRoot: s.trustedRoot})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := v.Verify(registryJSON, bundle); err != nil {
			b.Fatal(err)
		}
	}
}
