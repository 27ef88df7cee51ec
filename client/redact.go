package client

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// Secrets never show through formatting: every type that holds a key, a
// token or a store of them prints, marshals and logs with the secret
// replaced by hiddenSecret (TestNoSecretInAnyFormat prints each in every
// way). Format is used rather than String alone, since fmt prints an
// unexported field's value, and a %d or %x of a struct its strings, without
// asking String.

// hiddenSecret stands for a secret that is set.
const hiddenSecret = "[hidden]"

func hide(s string) string {
	if s == "" {
		return ""
	}
	return hiddenSecret
}

// formatHidden prints v, a copy whose secrets are already replaced and
// whose type has no methods, the way verb and flags ask for a struct.
func formatHidden(f fmt.State, verb rune, typeName string, v any) {
	switch {
	case verb == 'v' && f.Flag('#'):
		s := fmt.Sprintf("%#v", v)
		// %#v names the method-less copy's type; name the real one.
		if i := indexByte(s, '{'); i >= 0 {
			s = typeName + s[i:]
		}
		fmt.Fprint(f, s)
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "%+v", v)
	default:
		fmt.Fprintf(f, "%v", v)
	}
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

type plainPlugin InstalledPlugin

func (p InstalledPlugin) hidden() plainPlugin {
	h := plainPlugin(p.clone())
	h.Credential = hide(p.Credential)
	return h
}

// String prints the row with its credential hidden.
func (p InstalledPlugin) String() string { return fmt.Sprintf("%+v", p.hidden()) }

// Format prints the row with its credential hidden, for every verb.
func (p InstalledPlugin) Format(f fmt.State, verb rune) {
	formatHidden(f, verb, "client.InstalledPlugin", p.hidden())
}

// LogValue logs the row's id, URL and state, never its credential.
func (p InstalledPlugin) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", p.ID), slog.String("url", p.URL),
		slog.String("credential_kind", string(p.CredentialKind)), slog.String("check_failure", string(p.CheckFailure)))
}

type plainCustom CustomPlugin

// Format prints the custom plugin with its token hidden, for every verb.
func (in CustomPlugin) Format(f fmt.State, verb rune) {
	h := plainCustom(in)
	h.Token = hide(in.Token)
	formatHidden(f, verb, "client.CustomPlugin", h)
}

// MarshalJSON marshals the custom plugin with its token hidden.
func (in CustomPlugin) MarshalJSON() ([]byte, error) {
	h := plainCustom(in)
	h.Token = hide(in.Token)
	return json.Marshal(h)
}

// String prints the custom plugin with its token hidden.
func (in CustomPlugin) String() string { return fmt.Sprint(in) }

// LogValue logs the custom plugin's name and URL, never its token.
func (in CustomPlugin) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", in.Name), slog.String("url", in.URL))
}

// Format prints what String says, for every verb.
func (l StaticLicense) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, l.GoString())
		return
	}
	fmt.Fprint(f, l.String())
}

// LogValue logs what String says.
func (l StaticLicense) LogValue() slog.Value { return slog.StringValue(l.String()) }

// MarshalJSON marshals what String says, never the key.
func (l StaticLicense) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%q", l.String())), nil
}

// Format prints how many plugins the store holds, never a credential.
func (s *MemoryStore) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "client.MemoryStore{%d plugins; credentials hidden}", s.count())
}

// Format prints the store's file, never a credential or its key.
func (s *FileStore) Format(f fmt.State, verb rune) {
	if s == nil {
		fmt.Fprint(f, "client.FileStore(nil)")
		return
	}
	fmt.Fprintf(f, "client.FileStore{%s: %d plugins; credentials and key hidden}", s.path, s.mem.count())
}

// Format prints the client's configuration, never the license key, a
// store's credentials or a sign-in's state.
func (c *Client) Format(f fmt.State, verb rune) {
	if c == nil {
		fmt.Fprint(f, "client.Client(nil)")
		return
	}
	fmt.Fprintf(f, "client.Client{Host: %s, Store: %v, License: %v, FirstParty: %t, Registry: %t, %d sign-ins}",
		c.Host, c.Store, c.License, c.FirstParty != nil, c.Registry != nil, c.signInCount())
}
