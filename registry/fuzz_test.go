package registry

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzCheck feeds arbitrary bytes to the checker as either list. It must
// never panic; every problem must name an entry, a field and a message; and
// a list that passes must pass again, unchanged, once written back out.
func FuzzCheck(f *testing.F) {
	f.Add(firstPartyJSON, true)
	f.Add(registryJSON, false)
	f.Add(listBytes(f, []map[string]any{regEntry()}, nil), false)
	f.Add(listBytes(f, []map[string]any{fpEntry()}, nil), true)
	f.Add([]byte(`{"schema_version":1,"generated_at":"2026-11-27T09:30:00+02:00","plugins":[],"removed":[{"id":"a","reason":"b"}]}`), false)
	f.Add([]byte(`{"schema_version":1,"plugins":[{"id":"x","id":"y","auth":{"type":"oauth","scopes":[1,"a"]}}]}`), true)
	f.Add([]byte(`{"plugins":[null,{},[],"x",1]}`), false)
	f.Add([]byte(`[`), false)
	f.Add([]byte("\xff\xfe"), true)
	f.Fuzz(func(t *testing.T, data []byte, first bool) {
		kind := ThirdParty
		if first {
			kind = FirstParty
		}
		list, ps := Check(kind, data, nil)
		if list == nil {
			t.Fatal("nil list")
		}
		for _, p := range ps {
			if p.Entry == "" || p.Field == "" || p.Message == "" {
				t.Fatalf("incomplete problem %#v", p)
			}
			if !strings.HasPrefix(p.String(), p.Entry+": "+p.Field+": ") {
				t.Fatalf("badly formatted %q", p)
			}
		}
		if len(ps) > 0 {
			return
		}
		out, err := json.Marshal(list)
		if err != nil {
			t.Fatalf("a passing list does not encode: %v", err)
		}
		again, ps := Check(kind, out, nil)
		if len(ps) > 0 {
			t.Fatalf("a passing list fails once re-encoded:\n%s\n%s", ps, out)
		}
		if !again.GeneratedAt.Equal(list.GeneratedAt) {
			t.Fatalf("generated_at %v became %v", list.GeneratedAt, again.GeneratedAt)
		}
		a, b := *list, *again
		a.GeneratedAt, b.GeneratedAt = time.Time{}, time.Time{}
		if !reflect.DeepEqual(normalize(&a), normalize(&b)) {
			t.Fatalf("round trip changed the list:\n%+v\n%+v", a, b)
		}
	})
}

// normalize treats nil and empty slices alike, as JSON with omitempty does.
func normalize(l *List) *List {
	c := cloneList(l)
	if len(c.Removed) == 0 {
		c.Removed = nil
	}
	for i := range c.Plugins {
		e := &c.Plugins[i]
		if len(e.Tools) == 0 {
			e.Tools = nil
		}
		if len(e.Auth.Scopes) == 0 {
			e.Auth.Scopes = nil
		}
		if len(e.Hosts) == 0 {
			e.Hosts = nil
		}
	}
	return c
}

// FuzzCheckSVG feeds arbitrary bytes to the icon checker: it must never
// panic, and what it accepts must hold no script.
func FuzzCheckSVG(f *testing.F) {
	for _, n := range []string{"ok.svg", "script.svg", "onload.svg", "href.svg", "style.svg", "anim.svg", "doctype.svg", "broken.svg"} {
		f.Add(testIcons[n].Data)
	}
	f.Add(firstPartyIconBytes(f, "google-search.svg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkSVG(data) == nil {
			lower := strings.ToLower(string(data))
			if strings.Contains(lower, "<script") || strings.Contains(lower, "javascript:") {
				t.Fatalf("accepted an SVG with a script: %q", data)
			}
		}
	})
}

func firstPartyIconBytes(f *testing.F, name string) []byte {
	b, err := readIcon(FirstPartyIcons(), name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzVerifyBundle feeds arbitrary bundles to the verifier: it must never
// panic, and whatever fails must wrap ErrNotVerified.
func FuzzVerifyBundle(f *testing.F) {
	f.Add(registryBundle)
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"x"}},"messageSignature":{"messageDigest":{"algorithm":"SHA2_256","digest":"AA=="},"signature":"AA=="}}`))
	f.Add([]byte(`{}`))
	v, err := NewVerifier(Trust{PublicKey: devPublicKey})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, bundle []byte) {
		if err := v.Verify(registryJSON, bundle); err != nil && !isNotVerified(err) {
			t.Fatalf("failure not wrapping ErrNotVerified: %v", err)
		}
	})
}

func isNotVerified(err error) bool { return errors.Is(err, ErrNotVerified) }
