package oauthpage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// The routes Mount serves.
const (
	ClientMetadataPath = "/oauth/client.json"
	CallbackPath       = "/oauth/callback"
	LogoPath           = "/oauth/logo.svg"
)

// AppCallbackPath is where the app's API takes the callback, on
// http://127.0.0.1:<port>.
const AppCallbackPath = "/plugins/oauth/callback"

// Config configures the pages.
type Config struct {
	// PublicURL is the host's public origin (PUBLIC_URL), such as
	// https://plugins.surfsense.com. Required. It is written in normal form
	// (lower-case scheme and host, no default port, no trailing slash); a
	// path, query, fragment or user name is an error.
	PublicURL string
	// ClientURI is the client_uri of the metadata document, the page an
	// authorization server may link to as "about this app". Empty is
	// PublicURL + "/".
	ClientURI string
	// Logger receives the warning about an http PublicURL and the callback's
	// refusals (at debug level, with the rule broken, never the query). Nil is
	// slog.Default().
	Logger *slog.Logger
	// Seen remembers used states, so a callback link works once. Nil is a new
	// MemorySeen, which holds for this process only; replicas behind one
	// ingress need a shared store.
	Seen SeenStates
}

// Pages serves the OAuth pages. It is safe for concurrent use.
type Pages struct {
	log  *slog.Logger
	seen SeenStates

	meta     ClientMetadata
	metaJSON []byte
	metaETag string
	logoETag string
}

// New checks cfg and returns the pages. When PublicURL is http, it logs once
// that real authorization servers will not accept the client (the draft
// requires an https client_id); that is expected only of a local run.
func New(cfg Config) (*Pages, error) {
	origin, err := normalizeOrigin(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	clientURI := origin + "/"
	if cfg.ClientURI != "" {
		u, err := url.Parse(cfg.ClientURI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("oauthpage: ClientURI %q is not an absolute http or https URL", cfg.ClientURI)
		}
		clientURI = cfg.ClientURI
	}
	p := &Pages{log: cfg.Logger, seen: cfg.Seen}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.seen == nil {
		p.seen = &MemorySeen{}
	}
	p.meta = newClientMetadata(origin, clientURI)
	if p.metaJSON, p.metaETag, err = encodeDocument(p.meta); err != nil {
		return nil, fmt.Errorf("oauthpage: encoding the client metadata document: %w", err)
	}
	p.logoETag = etagOf([]byte(logoSVG))
	if strings.HasPrefix(origin, "http://") {
		p.log.Warn("PUBLIC_URL is http, so real OAuth authorization servers will not accept SurfSense's client ID metadata document (they require https); OAuth sign-ins through this host work only against servers that allow it, as in a local run",
			"client_id", p.meta.ClientID)
	}
	return p, nil
}

// ClientMetadata returns the document served at ClientMetadataPath.
func (p *Pages) ClientMetadata() ClientMetadata {
	m := p.meta
	m.RedirectURIs = append([]string(nil), m.RedirectURIs...)
	m.GrantTypes = append([]string(nil), m.GrantTypes...)
	m.ResponseTypes = append([]string(nil), m.ResponseTypes...)
	return m
}

// Mount adds the pages' routes to r, for every method: the metadata
// document and the logo answer GET and HEAD, the callback answers GET, and
// any other method gets 405 with the same security headers. HEAD is not
// served for the callback, since answering it would use up the state.
func (p *Pages) Mount(r chi.Router) {
	r.HandleFunc(ClientMetadataPath, p.ServeClientMetadata)
	r.HandleFunc(LogoPath, p.ServeLogo)
	r.HandleFunc(CallbackPath, p.ServeCallback)
}

// ServeClientMetadata answers the Client ID Metadata Document as
// application/json, cacheable for an hour.
func (p *Pages) ServeClientMetadata(w http.ResponseWriter, r *http.Request) {
	if !allowMethod(w, r, cspDocument, http.MethodGet, http.MethodHead) {
		return
	}
	serveStatic(w, r, "application/json", metadataCacheControl, p.metaETag, p.metaJSON)
}

// ServeLogo answers the logo named by the document's logo_uri, as
// image/svg+xml with a sandboxing CSP.
func (p *Pages) ServeLogo(w http.ResponseWriter, r *http.Request) {
	if !allowMethod(w, r, cspDocument, http.MethodGet, http.MethodHead) {
		return
	}
	serveStatic(w, r, "image/svg+xml", logoCacheControl, p.logoETag, []byte(logoSVG))
}

// allowMethod reports whether r's method is one of allowed; if not, it
// answers 405 with the security headers and Allow.
func allowMethod(w http.ResponseWriter, r *http.Request, csp string, allowed ...string) bool {
	for _, m := range allowed {
		if r.Method == m {
			return true
		}
	}
	h := w.Header()
	setSecurityHeaders(h, csp)
	h.Set("Cache-Control", "no-store")
	h.Set("Allow", strings.Join(allowed, ", "))
	h.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = io.WriteString(w, "405 method not allowed: use "+strings.Join(allowed, " or ")+"\n")
	return false
}

// ServeCallback forwards the browser back to the app.
//
// The mechanism is a 303 See Other to
// http://127.0.0.1:<port>/plugins/oauth/callback?<query>, where <query> is the
// request's raw query byte for byte (code, state, iss, a provider's error and
// error_description, whatever came). A redirect needs no script, so the page
// works under the strictest CSP, and Referrer-Policy: no-referrer on it keeps
// both this page's and the provider's address from the app. The host is always
// the literal 127.0.0.1 and the port always comes from a state ParseState
// accepted; nothing else of the request goes into the target.
//
// It answers 400 with a page in plain words when the query:
//   - is longer than MaxQueryLen, or has a byte a browser would have
//     %-encoded (space, control, non-ASCII) or a "#";
//   - has no state, states more than once, or a state behind a ";";
//   - has a state ParseState refuses once %-decoded;
//   - has a state already used (see SeenStates).
//
// Every answer is no-store, no-referrer, DENY framing, nosniff, with a CSP
// that allows only the page's own style sheet.
func (p *Pages) ServeCallback(w http.ResponseWriter, r *http.Request) {
	if !allowMethod(w, r, cspPage, http.MethodGet) {
		return
	}
	h := w.Header()
	setSecurityHeaders(h, cspPage)
	h.Set("Cache-Control", "no-store")

	raw := r.URL.RawQuery
	state, err := p.checkCallback(r, raw)
	if err != nil {
		p.refuse(w, err)
		return
	}
	target := "http://127.0.0.1:" + strconv.Itoa(state.Port) + AppCallbackPath + "?" + raw
	h.Set("Location", target)
	body, err := render(forwardTemplate, forwardData{Title: "Returning to SurfSense", Target: target})
	if err != nil {
		p.log.Error("oauth callback", "error", err)
		w.WriteHeader(http.StatusSeeOther)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusSeeOther)
	_, _ = w.Write(body)
}

// ErrStateUsed says a callback's state was already used.
var ErrStateUsed = errors.New("state was already used")

func (p *Pages) checkCallback(r *http.Request, raw string) (State, error) {
	if err := checkQueryBytes(raw); err != nil {
		return State{}, err
	}
	value, err := stateFromQuery(raw)
	if err != nil {
		return State{}, err
	}
	state, err := ParseState(value)
	if err != nil {
		return State{}, err
	}
	first, err := p.seen.FirstUse(r.Context(), value)
	switch {
	case err != nil:
		// Forward anyway: the app takes a state only once itself.
		p.log.Warn("oauth callback: could not check whether the state was used before; forwarding anyway", "error", err)
	case !first:
		return State{}, ErrStateUsed
	}
	return state, nil
}

// refuse answers the 400 page. err names the rule broken; the page says it
// in a fixed sentence and shows nothing of the request.
func (p *Pages) refuse(w http.ResponseWriter, err error) {
	p.log.Debug("oauth callback refused", "rule", err.Error())
	h := w.Header()
	body, rerr := render(brokenTemplate, brokenData{Title: "This sign-in link is broken", Why: whyText(err)})
	if rerr != nil {
		p.log.Error("oauth callback", "error", rerr)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		body = []byte("This sign-in link is broken. Go back to SurfSense and start the sign-in again.\n")
	} else {
		h.Set("Content-Type", "text/html; charset=utf-8")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// whyText is the 400 page's last line: which way the link is broken, in
// plain words.
func whyText(err error) string {
	switch {
	case errors.Is(err, ErrStateUsed):
		return "This link was already used. A sign-in link works only once."
	case errors.Is(err, ErrStateMissing):
		return "The link is missing the part SurfSense added to find its way back."
	case errors.Is(err, ErrStateRepeated), errors.Is(err, ErrStateHidden):
		return "The link carries SurfSense's part more than once, so it cannot be trusted."
	case errors.Is(err, ErrQueryTooLong), errors.Is(err, ErrQueryBytes):
		return "The link is too long or has characters a browser would not send."
	default:
		return "The part of the link SurfSense added is damaged."
	}
}
