package host

import (
	"fmt"
	"log/slog"

	"github.com/go-chi/chi/v5"

	"github.com/surfsense/pluginhost/oauthpage"
)

// defaultParts builds what the host serves beside the plugins.
func defaultParts(cfg Config, log *slog.Logger, st Stores) ([]Part, error) {
	pages, err := oauthpage.New(oauthpage.Config{PublicURL: cfg.PublicURL, Logger: log, Seen: st.OAuthStates})
	if err != nil {
		return nil, fmt.Errorf("PUBLIC_URL: %w", err)
	}
	return []Part{oauthPart{pages}}, nil
}

// oauthPart mounts the OAuth client metadata document and forwarding page.
type oauthPart struct{ p *oauthpage.Pages }

func (oauthPart) Name() string         { return "oauth" }
func (o oauthPart) Mount(r chi.Router) { o.p.Mount(r) }
func (oauthPart) Status() string       { return "ok" }
