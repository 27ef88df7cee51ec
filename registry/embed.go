package registry

//go:generate go run ./internal/devsign

import (
	"bytes"
	"embed"
	"io/fs"
	"sync"
)

// The lists, their icons, the dev signature and the trust built into the
// binary. See README.md for how the embedded registry is re-signed.
var (
	//go:embed first_party/plugins.json
	firstPartyJSON []byte
	//go:embed first_party/icons
	firstPartyIconsFS embed.FS

	//go:embed plugins.json
	registryJSON []byte
	//go:embed plugins.json.sigstore.json
	registryBundle []byte
	//go:embed icons
	registryIconsFS embed.FS

	//go:embed dev-registry.pub
	devPublicKey []byte
	//go:embed trusted_root.public-good.json
	publicGoodTrustedRoot []byte
)

// FirstPartyJSON returns SurfSense's own list exactly as built in, the bytes
// GET /first-party/plugins.json serves.
func FirstPartyJSON() []byte { return bytes.Clone(firstPartyJSON) }

// FirstPartyIcons is the first-party list's icons folder, as built in.
func FirstPartyIcons() fs.FS { return mustSub(firstPartyIconsFS, "first_party/icons") }

// EmbeddedRegistry returns the registry and its bundle as built in. The
// bundle is signed with the dev key ([DevPublicKey]); a host with no
// REGISTRY_DIR serves this copy.
func EmbeddedRegistry() (list, bundle []byte) {
	return bytes.Clone(registryJSON), bytes.Clone(registryBundle)
}

// EmbeddedRegistryIcons is the registry's icons folder, as built in.
func EmbeddedRegistryIcons() fs.FS { return mustSub(registryIconsFS, "icons") }

// DevPublicKey returns the PEM public key the embedded registry is signed
// with. Its private key is not kept: `go generate ./registry` makes a new
// pair and re-signs (README.md).
func DevPublicKey() []byte { return bytes.Clone(devPublicKey) }

// PublicGoodTrustedRoot returns the Sigstore public-good trusted_root.json
// built in (from sigstore-go v1.3.0's examples), used for keyless bundles
// unless another root is given.
func PublicGoodTrustedRoot() []byte { return bytes.Clone(publicGoodTrustedRoot) }

var firstParty = sync.OnceValues(func() (*List, error) {
	list, ps := Check(FirstParty, firstPartyJSON, FirstPartyIcons())
	if len(ps) > 0 {
		return nil, ps
	}
	return list, nil
})

// FirstPartyList returns SurfSense's own list, parsed and checked. An error
// means the built-in list breaks its rules (a build that tests would have
// stopped); it lists every problem.
func FirstPartyList() (*List, error) {
	list, err := firstParty()
	if err != nil {
		return nil, err
	}
	return cloneList(list), nil
}

// FirstPartyTools maps each first-party plugin id to the tools its entry
// lists (without [ResultTool]), for the test that mounts every server and
// compares.
func FirstPartyTools() (map[string][]string, error) {
	list, err := firstParty()
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(list.Plugins))
	for _, e := range list.Plugins {
		out[e.ID] = append([]string(nil), e.Tools...)
	}
	return out, nil
}

func mustSub(f embed.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		// dir is a constant naming an embedded folder; fs.Sub fails only
		// for an invalid path.
		panic("registry: " + err.Error())
	}
	return sub
}

// cloneList copies a list deeply enough that callers cannot change the
// cached one.
func cloneList(l *List) *List {
	if l == nil {
		return nil
	}
	c := *l
	c.Plugins = make([]Entry, len(l.Plugins))
	for i, e := range l.Plugins {
		e.Hosts = append([]string(nil), e.Hosts...)
		e.Tools = append([]string(nil), e.Tools...)
		e.Auth.Scopes = append([]string(nil), e.Auth.Scopes...)
		if e.Verification != nil {
			v := *e.Verification
			e.Verification = &v
		}
		c.Plugins[i] = e
	}
	c.Removed = append([]Removed(nil), l.Removed...)
	return &c
}
