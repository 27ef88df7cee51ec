package host

import (
	"errors"
	"fmt"
	"github.com/surfsense/pluginhost/scrapers"
	"log/slog"
	"net/url"
	"time"
)

// Config is the host's configuration. Every field has an environment variable
// (CONTRACTS.md, "Configuration"); FromEnv reads them through the table in
// envvars.go. The zero value is not usable: start from Defaults or FromEnv.
type Config struct {
	Addr        string        // ADDR
	PublicURL   string        // PUBLIC_URL
	MetricsAddr string        // METRICS_ADDR; "" is off
	LogLevel    slog.Level    // LOG_LEVEL (cmd/pluginhost's logger)
	Dev         bool          // serve --dev
	License     LicenseConfig // LICENSE_BACKEND, KEYGEN_*, LICENSE_KEYS_FILE, LICENSE_CACHE_TTL, LICENSE_GRACE
	RedisURL    string        // REDIS_URL; "" keeps everything in memory

	ResultMaxBytes int           // RESULT_MAX_BYTES
	ResultCacheTTL time.Duration // RESULT_CACHE_TTL; 0 turns the result cache off
	CallDeadline   time.Duration // CALL_DEADLINE
	TaskDeadline   time.Duration // TASK_DEADLINE: a task's deadline (tasks.go), longer than CallDeadline
	TaskAfter      time.Duration // TASK_AFTER: how long a call runs before it becomes a task (at most CallDeadline)
	PageTimeout    time.Duration // PAGE_TIMEOUT; 0 leaves each plugin its own default
	BlockHold      time.Duration // BLOCK_HOLD: how long a captcha or robot check holds its site's exit for every replica; 0: not at all
	ShutdownDrain  time.Duration // SHUTDOWN_DRAIN

	AllowPrivateNetworks bool // ALLOW_PRIVATE_NETWORKS

	RateLimitPerMinute int            // RATE_LIMIT_PER_MINUTE
	PluginRateLimits   map[string]int // <ID>_RATE_LIMIT_PER_MINUTE, by plugin id; New reads them for the plugins it mounts
	MaxConcurrentCalls int            // MAX_CONCURRENT_CALLS

	MaxPagesInFlight int   // MAX_PAGES_IN_FLIGHT; 0 is scrapers.DefaultMaxPagesInFlight
	PagesMemory      int64 // PAGES_MEMORY in bytes; 0 is scrapers.DefaultPageMemory (a quarter of the container's memory)

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
		ResultCacheTTL:     5 * time.Minute,
		CallDeadline:       240 * time.Second,
		TaskDeadline:       30 * time.Minute,
		TaskAfter:          5 * time.Second,
		ShutdownDrain:      30 * time.Second,
		BlockHold:          scrapers.BlockHold,
		RateLimitPerMinute: 120,
		MaxConcurrentCalls: 16,
		PluginRateLimits:   map[string]int{},
	}
}

// ProbePaths are the paths probes may use: liveness and readiness.
func ProbePaths() []string { return []string{"/healthz", "/readyz"} }

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
	if c.PageTimeout > 0 && c.CallDeadline > 0 && c.PageTimeout > c.CallDeadline {
		errs = append(errs, fmt.Errorf("PAGE_TIMEOUT=%s is longer than CALL_DEADLINE=%s: a page's timeout must fit in the call's deadline", c.PageTimeout, c.CallDeadline))
	}
	if c.TaskDeadline > 0 && c.CallDeadline > 0 && c.TaskDeadline <= c.CallDeadline {
		errs = append(errs, fmt.Errorf("TASK_DEADLINE=%s must be longer than CALL_DEADLINE=%s: a task is for calls that outlast a request", c.TaskDeadline, c.CallDeadline))
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
