package host

import (
	"fmt"
	"log/slog"

	"github.com/go-chi/chi/v5"

	"github.com/surfsense/pluginhost/oauthpage"
	"github.com/surfsense/pluginhost/registry"
)

// Part is something mounted beside the plugins: it adds routes and names its
// state in /readyz.
type Part interface {
	// Name is the part's name in /readyz.
	Name() string
	// Mount adds the part's routes.
	Mount(r chi.Router)
	// Status says "ok" or what is degraded; a degraded part keeps the replica
	// ready (200), as CONTRACTS.md asks ("Routes", /readyz).
	Status() string
}

// defaultParts builds what the host serves beside the plugins.
func defaultParts(cfg Config, log *slog.Logger, st Stores) ([]Part, error) {
	pages, err := oauthpage.New(oauthpage.Config{PublicURL: cfg.PublicURL, Logger: log, Seen: st.OAuthStates})
	if err != nil {
		return nil, fmt.Errorf("PUBLIC_URL: %w", err)
	}
	reg, err := registry.NewServer(registry.Config{
		Dir: cfg.RegistryDir, PublicKey: cfg.RegistryPublicKey, Issuer: cfg.RegistryIssuer,
		Identity: cfg.RegistryIdentity, TrustedRoot: cfg.RegistryTrustedRoot, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("the plugin registry: %w", err)
	}
	return []Part{oauthPart{pages}, registryPart{reg}}, nil
}

// registryPart serves the signed registry, its icons and the first-party
// list; an unverified registry is named in /readyz and never served.
type registryPart struct{ s *registry.Server }

func (registryPart) Name() string         { return "registry" }
func (p registryPart) Mount(r chi.Router) { p.s.Mount(r) }
func (p registryPart) Status() string     { return p.s.Status() }

// oauthPart mounts the OAuth client metadata document and forwarding page.
type oauthPart struct{ p *oauthpage.Pages }

func (oauthPart) Name() string         { return "oauth" }
func (o oauthPart) Mount(r chi.Router) { o.p.Mount(r) }
func (oauthPart) Status() string       { return "ok" }
