package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// Config says which registry the host serves and whose signature it must
// carry. The zero value serves the embedded copy, verified against the
// embedded dev public key.
type Config struct {
	// Dir (REGISTRY_DIR) is a folder holding plugins.json,
	// plugins.json.sigstore.json and icons/. Empty serves the copy built in.
	Dir string
	// PublicKey (REGISTRY_PUBLIC_KEY) is a PEM public key, given as the PEM
	// text itself or as the path of a file holding it.
	PublicKey string
	// Issuer and Identity (REGISTRY_ISSUER, REGISTRY_IDENTITY) trust a
	// keyless signature: the OIDC issuer, exactly, and an identity regular
	// expression anchored with ^ and $.
	Issuer   string
	Identity string
	// TrustedRoot (REGISTRY_TRUSTED_ROOT) is the path of a Sigstore
	// trusted_root.json for keyless signatures; empty uses the public-good
	// root built in.
	TrustedRoot string
	// Logger receives what the server decides at start and on reload. Nil
	// discards.
	Logger *slog.Logger
}

// trust turns the configuration into the trust the list must carry.
// hasTrust is false when nothing says whose signature a REGISTRY_DIR list
// needs.
func (c Config) trust() (t Trust, hasTrust bool, err error) {
	if key := strings.TrimSpace(c.PublicKey); key != "" {
		pemKey := []byte(key)
		if !strings.Contains(key, "-----BEGIN") {
			pemKey, err = readLimited(key, 64<<10)
			if err != nil {
				return t, false, fmt.Errorf("REGISTRY_PUBLIC_KEY: reading the key file: %w", err)
			}
		} else if !strings.Contains(key, "\n") {
			// Some deploy tools flatten a PEM into one line with \n escapes.
			pemKey = []byte(strings.ReplaceAll(key, `\n`, "\n"))
		}
		t.PublicKey = pemKey
	}
	t.Issuer, t.Identity = c.Issuer, c.Identity
	if c.TrustedRoot != "" {
		t.TrustedRoot, err = readLimited(c.TrustedRoot, 4<<20)
		if err != nil {
			return t, false, fmt.Errorf("REGISTRY_TRUSTED_ROOT: %w", err)
		}
	}
	if t.IsZero() {
		if c.Dir != "" {
			return t, false, nil
		}
		t.PublicKey = devPublicKey
	}
	return t, true, nil
}

// Server serves the signed registry, its bundle and icons, and the
// first-party list. It verifies the registry when built and on [Server.Reload],
// and never serves a list that did not verify: until one does, the registry
// routes answer 503 and [Server.Status] says why. Its methods are safe for
// concurrent use.
type Server struct {
	cfg      Config
	log      *slog.Logger
	verifier *Verifier // nil when no trust is configured for a REGISTRY_DIR

	mu    sync.RWMutex
	state *servedRegistry // nil while unverified
	why   string          // why unverified

	firstPartyETag string
}

// servedRegistry is one verified copy: exact bytes and the icons it names.
type servedRegistry struct {
	list, bundle []byte
	parsed       *List
	icons        map[string][]byte
	listETag     string
	bundleETag   string
	iconETags    map[string]string
}

// NewServer builds a server and verifies the registry. It fails only on a
// configuration that cannot work (an unreadable key, an identity regular
// expression not anchored, a key and an identity both); a registry that does
// not verify leaves the server up, unverified, with the reason in
// [Server.Status].
func NewServer(cfg Config) (*Server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: log, firstPartyETag: etag(firstPartyJSON)}
	t, hasTrust, err := cfg.trust()
	if err != nil {
		return nil, err
	}
	if hasTrust {
		if s.verifier, err = NewVerifier(t); err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
	}
	if err := s.Reload(); err != nil {
		log.Warn("registry unverified: not serving it", "why", err.Error(), "source", s.source())
	}
	return s, nil
}

func (s *Server) source() string {
	if s.cfg.Dir == "" {
		return "built-in copy"
	}
	return s.cfg.Dir
}

// Reload reads and verifies the registry again (from REGISTRY_DIR, or the
// built-in copy). A copy that verifies and is not older than the one served
// replaces it; otherwise the one served stays (or the server stays
// unverified) and the error says why.
func (s *Server) Reload() error {
	next, err := s.load()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.state != nil && next.parsed.GeneratedAt.Before(s.state.parsed.GeneratedAt) {
		err = fmt.Errorf("%w: generated_at %s is before the served copy's %s", ErrOlderList,
			next.parsed.GeneratedAt.Format(time.RFC3339), s.state.parsed.GeneratedAt.Format(time.RFC3339))
	}
	if err != nil {
		if s.state == nil {
			s.why = err.Error()
		}
		return err
	}
	s.state, s.why = next, ""
	s.log.Info("registry verified", "source", s.source(), "trust", s.verifier.Trust().String(),
		"generated_at", next.parsed.GeneratedAt.Format(time.RFC3339), "plugins", len(next.parsed.Plugins), "removed", len(next.parsed.Removed))
	return nil
}

func (s *Server) load() (*servedRegistry, error) {
	if s.verifier == nil {
		return nil, errors.New("REGISTRY_DIR is set but no trust is: set REGISTRY_PUBLIC_KEY, or REGISTRY_ISSUER and REGISTRY_IDENTITY")
	}
	var list, bundle []byte
	var icons fs.FS
	if s.cfg.Dir == "" {
		list, bundle, icons = registryJSON, registryBundle, EmbeddedRegistryIcons()
	} else {
		var err error
		path := filepath.Join(s.cfg.Dir, "plugins.json")
		if list, err = readLimited(path, MaxListBytes); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		path += BundleSuffix
		if bundle, err = readLimited(path, MaxBundleBytes); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no signature: %s is missing", path)
			}
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		icons = os.DirFS(filepath.Join(s.cfg.Dir, "icons"))
	}
	if err := s.verifier.Verify(list, bundle); err != nil {
		return nil, err
	}
	if err := checkSchemaVersion(list); err != nil {
		return nil, err
	}
	parsed, ps := Check(ThirdParty, list, icons)
	if fp, err := firstParty(); err == nil {
		ps = append(ps, CheckAcross(fp, parsed)...)
	}
	if len(ps) > 0 {
		return nil, fmt.Errorf("%w (%d problems), first: %s", ErrInvalidList, len(ps), ps[0])
	}
	st := &servedRegistry{
		list: list, bundle: bundle, parsed: parsed,
		icons: map[string][]byte{}, iconETags: map[string]string{},
		listETag: etag(list), bundleETag: etag(bundle),
	}
	for _, e := range parsed.Plugins {
		if e.Icon == "" || st.icons[e.Icon] != nil {
			continue
		}
		data, err := readIcon(icons, e.Icon)
		if err != nil {
			return nil, fmt.Errorf("%s: icon: %w", e.ID, err)
		}
		st.icons[e.Icon] = data
		st.iconETags[e.Icon] = etag(data)
	}
	return st, nil
}

// Status is the registry's part of /readyz: "ok" while a verified list is
// served, else "unverified: <why>".
func (s *Server) Status() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.state != nil {
		return "ok"
	}
	return "unverified: " + s.why
}

// Verified reports whether a verified list is being served.
func (s *Server) Verified() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.state != nil
}

// List returns the served list, parsed, or nil while unverified.
func (s *Server) List() *List {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.state == nil {
		return nil
	}
	return cloneList(s.state.parsed)
}

func (s *Server) current() (*servedRegistry, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.state, s.why
}

// Mount adds the registry's routes to r: GET and HEAD of /plugins.json,
// /plugins.json.sigstore.json, /icons/{file} and /first-party/plugins.json.
func (s *Server) Mount(r chi.Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.MethodFunc(m, "/plugins.json", s.ServeList)
		r.MethodFunc(m, "/plugins.json"+BundleSuffix, s.ServeBundle)
		r.MethodFunc(m, "/icons/{file}", s.ServeIcon)
		r.MethodFunc(m, "/first-party/plugins.json", s.ServeFirstParty)
	}
}

// ServeList answers GET /plugins.json with the verified list, byte for byte
// as signed, or 503 while unverified.
func (s *Server) ServeList(w http.ResponseWriter, r *http.Request) {
	st, why := s.current()
	if st == nil {
		unverified(w, why)
		return
	}
	serveBytes(w, r, "application/json", st.listETag, "public, max-age=300", st.list)
}

// ServeBundle answers GET /plugins.json.sigstore.json with the served list's
// Sigstore bundle, or 503 while unverified.
func (s *Server) ServeBundle(w http.ResponseWriter, r *http.Request) {
	st, why := s.current()
	if st == nil {
		unverified(w, why)
		return
	}
	serveBytes(w, r, "application/json", st.bundleETag, "public, max-age=300", st.bundle)
}

// ServeIcon answers GET /icons/<file> with an icon the served list names,
// with its exact content type, Content-Security-Policy: sandbox and nosniff.
// Only plain icon names are looked up, taken from the request's path as sent:
// any escape (%2e, %2f, %00, double encoding), slash or backslash is a 404,
// and files the list does not name are never read.
func (s *Server) ServeIcon(w http.ResponseWriter, r *http.Request) {
	name, ok := iconNameFromRequest(r)
	if !ok {
		notFound(w)
		return
	}
	st, why := s.current()
	if st == nil {
		unverified(w, why)
		return
	}
	data, ok := st.icons[name]
	if !ok {
		notFound(w)
		return
	}
	serveBytes(w, r, IconContentType(name), st.iconETags[name], "public, max-age=3600", data)
}

// iconNameFromRequest takes the icon name from the escaped request path,
// which must end in /icons/<name> with name a plain icon file name.
func iconNameFromRequest(r *http.Request) (string, bool) {
	escaped := r.URL.EscapedPath()
	i := strings.LastIndex(escaped, "/icons/")
	if i < 0 {
		return "", false
	}
	name := escaped[i+len("/icons/"):]
	if !validIconName(name) {
		return "", false
	}
	// When routed by chi, the parameter must be the same plain name.
	if p := chi.URLParam(r, "file"); p != "" && p != name {
		return "", false
	}
	// The decoded path must agree: no escape hid anything.
	if !strings.HasSuffix(r.URL.Path, "/icons/"+name) {
		return "", false
	}
	return name, true
}

// ServeFirstParty answers GET /first-party/plugins.json with SurfSense's own
// list as built in.
func (s *Server) ServeFirstParty(w http.ResponseWriter, r *http.Request) {
	serveBytes(w, r, "application/json", s.firstPartyETag, "public, max-age=300", firstPartyJSON)
}

// serveBytes writes data with the registry's headers; http.ServeContent
// answers conditional (If-None-Match) and HEAD requests.
func serveBytes(w http.ResponseWriter, r *http.Request, contentType, tag, cache string, data []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", cache)
	h.Set("ETag", tag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func etag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

func unverified(w http.ResponseWriter, why string) {
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{
		"reason":  "registry_unverified",
		"message": "The plugin registry's signature did not verify, so it is not served: " + why,
	}, "300")
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"reason": "not_found"}, "")
}

func writeJSON(w http.ResponseWriter, status int, body any, retryAfter string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", "no-store")
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
