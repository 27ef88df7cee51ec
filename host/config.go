package host

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is the host's configuration. Every field has an environment variable
// (CONTRACTS.md, "Configuration"); FromEnv reads them. The zero value is not
// usable: start from Defaults or FromEnv.
type Config struct {
	Addr        string        // ADDR
	PublicURL   string        // PUBLIC_URL
	MetricsAddr string        // METRICS_ADDR; "" is off
	Dev         bool          // serve --dev
	License     LicenseConfig // LICENSE_BACKEND, KEYGEN_*, LICENSE_KEYS_FILE, LICENSE_CACHE_TTL, LICENSE_GRACE
	RedisURL    string        // REDIS_URL; "" keeps everything in memory

	ResultMaxBytes int           // RESULT_MAX_BYTES
	CallDeadline   time.Duration // CALL_DEADLINE
	ShutdownDrain  time.Duration // SHUTDOWN_DRAIN

	AllowPrivateNetworks bool // ALLOW_PRIVATE_NETWORKS

	RateLimitPerMinute int            // RATE_LIMIT_PER_MINUTE
	PluginRateLimits   map[string]int // <ID>_RATE_LIMIT_PER_MINUTE, by plugin id
	MaxConcurrentCalls int            // MAX_CONCURRENT_CALLS

	UnlistedPlugins []string // UNLISTED_PLUGINS

	RegistryDir       string // REGISTRY_DIR; "" serves the copy built into the binary
	RegistryPublicKey string // REGISTRY_PUBLIC_KEY (PEM text or a path to a PEM file)
	RegistryIssuer    string // REGISTRY_ISSUER
	RegistryIdentity  string // REGISTRY_IDENTITY
	// RegistryTrustedRoot (REGISTRY_TRUSTED_ROOT) is a Sigstore
	// trusted_root.json path for keyless signatures; "" is the public-good
	// root built in.
	RegistryTrustedRoot string

	// Getenv reads the plugins' own variables (<ID>_BASE_URL, PROXY_URLS,
	// SEARXNG_URL, …). Nil reads nothing.
	Getenv func(string) string
}

// LicenseConfig chooses and configures the license backend.
type LicenseConfig struct {
	Backend       string        // keygen, file or dev
	KeygenURL     string        // KEYGEN_URL
	KeygenAccount string        // KEYGEN_ACCOUNT
	KeysFile      string        // LICENSE_KEYS_FILE
	CacheTTL      time.Duration // LICENSE_CACHE_TTL
	Grace         time.Duration // LICENSE_GRACE
}

// Defaults returns the configuration with every default of the contract and
// no license backend (which production must choose).
func Defaults() Config {
	return Config{
		Addr:               "127.0.0.1:8000",
		PublicURL:          "http://127.0.0.1:8000",
		License:            LicenseConfig{CacheTTL: 5 * time.Minute, Grace: 24 * time.Hour},
		ResultMaxBytes:     65536,
		CallDeadline:       240 * time.Second,
		ShutdownDrain:      30 * time.Second,
		RateLimitPerMinute: 120,
		MaxConcurrentCalls: 16,
		PluginRateLimits:   map[string]int{},
	}
}

// EnvVars lists every environment variable the host reads itself, in the
// order of CONTRACTS.md. Plugins read more (<ID>_BASE_URL, <ID>_PROXY_URLS,
// PROXY_URLS, SEARXNG_URL, GOOGLE_SEARCH_PROVIDERS, <ID>_RATE_LIMIT_PER_MINUTE);
// PluginEnvVars lists those for the mounted ids.
func EnvVars() []string {
	return []string{
		"ADDR", "PUBLIC_URL", "METRICS_ADDR", "LICENSE_BACKEND", "KEYGEN_URL", "KEYGEN_ACCOUNT",
		"LICENSE_KEYS_FILE", "LICENSE_CACHE_TTL", "LICENSE_GRACE", "REDIS_URL", "RESULT_MAX_BYTES",
		"CALL_DEADLINE", "SHUTDOWN_DRAIN", "ALLOW_PRIVATE_NETWORKS", "SEARXNG_URL", "PROXY_URLS",
		"RATE_LIMIT_PER_MINUTE", "MAX_CONCURRENT_CALLS", "UNLISTED_PLUGINS", "REGISTRY_DIR",
		"REGISTRY_PUBLIC_KEY", "REGISTRY_ISSUER", "REGISTRY_IDENTITY", "REGISTRY_TRUSTED_ROOT", "GOOGLE_SEARCH_PROVIDERS",
		"LOG_LEVEL",
	}
}

// PluginEnvVars lists the per-plugin variables for ids.
func PluginEnvVars(ids []string) []string {
	var out []string
	for _, id := range ids {
		p := strings.ToUpper(strings.ReplaceAll(id, "-", "_"))
		out = append(out, p+"_BASE_URL", p+"_PROXY_URLS", p+"_RATE_LIMIT_PER_MINUTE")
	}
	return out
}

// ProbePaths are the paths probes may use: liveness and readiness.
func ProbePaths() []string { return []string{"/healthz", "/readyz"} }

// FromEnv reads the configuration. dev applies `serve --dev`: the dev license
// backend and memory unless the environment says otherwise. Every bad value is
// reported at once.
func FromEnv(getenv func(string) string, dev bool) (Config, error) {
	c := Defaults()
	c.Dev = dev
	c.Getenv = getenv
	var errs []error
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	str := func(name string, dst *string) {
		if v := get(name); v != "" {
			*dst = v
		}
	}
	dur := func(name string, dst *time.Duration, lo, hi time.Duration) {
		v := get(name)
		if v == "" {
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not a Go duration such as 30s or 5m", name, v))
			return
		}
		if d < lo || (hi > 0 && d > hi) {
			errs = append(errs, fmt.Errorf("%s=%s must be between %s and %s", name, v, lo, hi))
			return
		}
		*dst = d
	}
	num := func(name string, dst *int, lo, hi int) {
		v := get(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("%s=%q must be a whole number from %d to %d", name, v, lo, hi))
			return
		}
		*dst = n
	}
	boolean := func(name string, dst *bool) {
		v := get(name)
		if v == "" {
			return
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q must be true or false", name, v))
			return
		}
		*dst = b
	}
	str("ADDR", &c.Addr)
	str("PUBLIC_URL", &c.PublicURL)
	str("METRICS_ADDR", &c.MetricsAddr)
	str("LICENSE_BACKEND", &c.License.Backend)
	str("KEYGEN_URL", &c.License.KeygenURL)
	str("KEYGEN_ACCOUNT", &c.License.KeygenAccount)
	str("LICENSE_KEYS_FILE", &c.License.KeysFile)
	dur("LICENSE_CACHE_TTL", &c.License.CacheTTL, time.Second, 24*time.Hour)
	dur("LICENSE_GRACE", &c.License.Grace, 0, 30*24*time.Hour)
	str("REDIS_URL", &c.RedisURL)
	num("RESULT_MAX_BYTES", &c.ResultMaxBytes, 1024, 64<<20)
	dur("CALL_DEADLINE", &c.CallDeadline, time.Second, 299*time.Second)
	dur("SHUTDOWN_DRAIN", &c.ShutdownDrain, 0, 10*time.Minute)
	boolean("ALLOW_PRIVATE_NETWORKS", &c.AllowPrivateNetworks)
	num("RATE_LIMIT_PER_MINUTE", &c.RateLimitPerMinute, 0, 1_000_000)
	num("MAX_CONCURRENT_CALLS", &c.MaxConcurrentCalls, 0, 100_000)
	if v := get("UNLISTED_PLUGINS"); v != "" {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				c.UnlistedPlugins = append(c.UnlistedPlugins, id)
			}
		}
	}
	str("REGISTRY_DIR", &c.RegistryDir)
	str("REGISTRY_PUBLIC_KEY", &c.RegistryPublicKey)
	str("REGISTRY_ISSUER", &c.RegistryIssuer)
	str("REGISTRY_IDENTITY", &c.RegistryIdentity)
	str("REGISTRY_TRUSTED_ROOT", &c.RegistryTrustedRoot)
	if dev && c.License.Backend == "" {
		c.License.Backend = "dev"
	}
	c.pluginRateLimits(get, &errs)
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

// pluginRateLimits reads <ID>_RATE_LIMIT_PER_MINUTE for every known id.
func (c *Config) pluginRateLimits(get func(string) string, errs *[]error) {
	for _, id := range KnownPluginIDs {
		name := strings.ToUpper(strings.ReplaceAll(id, "-", "_")) + "_RATE_LIMIT_PER_MINUTE"
		v := get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			*errs = append(*errs, fmt.Errorf("%s=%q must be a whole number, 0 for no limit", name, v))
			continue
		}
		c.PluginRateLimits[id] = n
	}
}

// KnownPluginIDs are the ids whose per-plugin variables are read.
var KnownPluginIDs = []string{"google-search", "web-crawl", "youtube", "tiktok", "google-maps", "amazon", "walmart", "indeed", "reddit", "instagram"}

// Validate checks the parts of the configuration that depend on each other.
func (c *Config) Validate() error {
	return errors.Join(c.validateBackend(), c.validateRest())
}

// validateBackend checks the license backend's choice and settings.
func (c *Config) validateBackend() error {
	var errs []error
	switch c.License.Backend {
	case "":
		errs = append(errs, errors.New("LICENSE_BACKEND is not set: choose keygen (production), file (self-hosting) or dev (local only; `pluginhost serve --dev` sets it)"))
	case "dev":
	case "keygen":
		if c.License.KeygenURL == "" || c.License.KeygenAccount == "" {
			errs = append(errs, errors.New("LICENSE_BACKEND=keygen needs KEYGEN_URL and KEYGEN_ACCOUNT"))
		}
	case "file":
		if c.License.KeysFile == "" {
			errs = append(errs, errors.New("LICENSE_BACKEND=file needs LICENSE_KEYS_FILE"))
		}
	default:
		errs = append(errs, fmt.Errorf("LICENSE_BACKEND=%q: choose keygen, file or dev", c.License.Backend))
	}
	return errors.Join(errs...)
}

// validateRest checks everything but the license backend.
func (c *Config) validateRest() error {
	var errs []error
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		errs = append(errs, fmt.Errorf("PUBLIC_URL=%q must be an origin such as https://plugins.surfsense.com", c.PublicURL))
	}
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
			errs = append(errs, errors.New("REDIS_URL must be a redis://, rediss:// or unix:// URL"))
		}
	}
	if (c.RegistryIssuer == "") != (c.RegistryIdentity == "") {
		errs = append(errs, errors.New("REGISTRY_ISSUER and REGISTRY_IDENTITY go together"))
	}
	return errors.Join(errs...)
}

// RateLimitFor returns the per-minute limit for plugin id.
func (c *Config) RateLimitFor(id string) int {
	if n, ok := c.PluginRateLimits[id]; ok {
		return n
	}
	return c.RateLimitPerMinute
}
