package host

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// Var is one environment variable the host reads itself: its name, its
// default as the README shows it, what it means, and how it is read into a
// Config. The table vars drives FromEnv, EnvVars and the README's table test.
type Var struct {
	Name    string
	Default string
	Meaning string
	// read parses a non-empty value into c; nil means the host passes it on
	// to the plugins' fetchers, which read it (PROXY_URLS).
	read func(c *Config, v string) error
}

// vars is every variable the host reads, in the order of CONTRACTS.md,
// "Configuration". Plugins' own variables are on their Plugin.Vars;
// per-plugin ones (perPluginSuffixes) are read for the mounted plugins.
var vars = []Var{
	strVar("ADDR", "127.0.0.1:8000", "Listen address (0.0.0.0:8000 in the container image)", func(c *Config) *string { return &c.Addr }),
	strVar("PUBLIC_URL", "http://127.0.0.1:8000", "The public origin, used in the documents the host serves", func(c *Config) *string { return &c.PublicURL }),
	strVar("METRICS_ADDR", "off", "Private listener for Prometheus and Go profiles", func(c *Config) *string { return &c.MetricsAddr }),
	{Name: "LOG_LEVEL", Default: "info", Meaning: "debug, info, warn or error", read: func(c *Config, v string) error {
		var l slog.Level
		if err := l.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("LOG_LEVEL=%q: choose debug, info, warn or error", v)
		}
		c.LogLevel = l
		return nil
	}},
	strVar("LICENSE_BACKEND", "required; dev under serve --dev", "keygen, file or dev", func(c *Config) *string { return &c.License.Backend }),
	strVar("KEYGEN_URL", "", "Keygen CE origin (keygen)", func(c *Config) *string { return &c.License.KeygenURL }),
	strVar("KEYGEN_ACCOUNT", "", "Keygen account id or slug (keygen)", func(c *Config) *string { return &c.License.KeygenAccount }),
	strVar("LICENSE_KEYS_FILE", "", "The file backend's keys and states", func(c *Config) *string { return &c.License.KeysFile }),
	durVar("LICENSE_CACHE_TTL", "5m", "How long a verdict is used before the backend is asked again", time.Second, 24*time.Hour, func(c *Config) *time.Duration { return &c.License.CacheTTL }),
	durVar("LICENSE_GRACE", "24h", "How long a key validated as valid stays valid while Keygen is unreachable", 0, 30*24*time.Hour, func(c *Config) *time.Duration { return &c.License.Grace }),
	strVar("REDIS_URL", "unset: memory, one replica", "Shared state between replicas", func(c *Config) *string { return &c.RedisURL }),
	intVar("RESULT_MAX_BYTES", "65536", "Largest item payload returned whole; the rest goes to get_result", 1024, 64<<20, func(c *Config) *int { return &c.ResultMaxBytes }),
	durVar("RESULT_CACHE_TTL", "5m", "How long an identical call (plugin, tool, arguments) is answered from the shared result cache (0: off)", 0, 24*time.Hour, func(c *Config) *time.Duration { return &c.ResultCacheTTL }),
	durVar("CALL_DEADLINE", "240s", "A call's deadline", time.Second, 299*time.Second, func(c *Config) *time.Duration { return &c.CallDeadline }),
	durVar("TASK_DEADLINE", "30m", "A task's deadline (MCP Tasks), longer than CALL_DEADLINE", time.Minute, 24*time.Hour, func(c *Config) *time.Duration { return &c.TaskDeadline }),
	durVar("TASK_AFTER", "5s", "How long a call from a client that declares MCP Tasks runs before it becomes a task (0: at once)", 0, 298*time.Second, func(c *Config) *time.Duration { return &c.TaskAfter }),
	durVar("PAGE_TIMEOUT", "each plugin's own (20s web-crawl, 30s the site fetchers)", "One upstream page's timeout, headers and body; at most CALL_DEADLINE", time.Second, 299*time.Second, func(c *Config) *time.Duration { return &c.PageTimeout }),
	durVar("BLOCK_HOLD", "60s", "How long a captcha, robot check or rate-limit page (without Retry-After) holds its site, through that exit, for every replica (0: blocks hold nothing; a 429 or 503's Retry-After always holds)", 0, 10*time.Minute, func(c *Config) *time.Duration { return &c.BlockHold }),
	durVar("SHUTDOWN_DRAIN", "30s", "How long calls in flight may finish after SIGTERM", 0, 10*time.Minute, func(c *Config) *time.Duration { return &c.ShutdownDrain }),
	boolVar("ALLOW_PRIVATE_NETWORKS", "false", "Tests and stand-ins only: lets scrapers reach loopback and private addresses (never the cloud's metadata and platform addresses: 169.254.0.0/16, 168.63.129.16, 100.100.100.200, fd00:ec2::254)", func(c *Config) *bool { return &c.AllowPrivateNetworks }),
	{Name: "PROXY_URLS", Default: "none", Meaning: "Comma-separated proxy URLs for every plugin without <ID>_PROXY_URLS"},
	intVar("RATE_LIMIT_PER_MINUTE", "120", "Tool calls per license per plugin per minute (0: no limit)", 0, 1_000_000, func(c *Config) *int { return &c.RateLimitPerMinute }),
	intVar("MAX_CONCURRENT_CALLS", "16", "Tool calls in flight per license (0: no limit)", 0, 100_000, func(c *Config) *int { return &c.MaxConcurrentCalls }),
	intVar("MAX_PAGES_IN_FLIGHT", "1024", "Upstream pages fetched or parsed at once by this replica, all plugins and calls together (per-site politeness still holds)", 1, 1_000_000, func(c *Config) *int { return &c.MaxPagesInFlight }),
	{Name: "PAGES_MEMORY", Default: "a quarter of the container's memory", Meaning: "Bytes those pages may hold while read and parsed (256MiB, 1GiB); a page waits for room", read: func(c *Config, v string) error {
		n, err := scrapers.ParseBytes(v)
		if err != nil || n < 1<<20 {
			return fmt.Errorf("PAGES_MEMORY=%q must be a size of at least 1MiB, such as 256MiB or 1GiB", v)
		}
		c.PagesMemory = n
		return nil
	}},
	{Name: "UNLISTED_PLUGINS", Default: "none", Meaning: "Comma-separated ids of written but unlisted plugins to mount", read: func(c *Config, v string) error {
		c.UnlistedPlugins = nil
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				c.UnlistedPlugins = append(c.UnlistedPlugins, id)
			}
		}
		return nil
	}},
	strVar("REGISTRY_DIR", "the copy built into the binary", "A folder with plugins.json, its Sigstore bundle and icons/", func(c *Config) *string { return &c.RegistryDir }),
	strVar("REGISTRY_PUBLIC_KEY", "the built-in development key", "PEM public key the served list must verify against", func(c *Config) *string { return &c.RegistryPublicKey }),
	strVar("REGISTRY_ISSUER", "", "Keyless: the OIDC issuer", func(c *Config) *string { return &c.RegistryIssuer }),
	strVar("REGISTRY_IDENTITY", "", "Keyless: an anchored identity regular expression", func(c *Config) *string { return &c.RegistryIdentity }),
	strVar("REGISTRY_TRUSTED_ROOT", "the public-good Sigstore root built in", "A Sigstore trusted_root.json for keyless signatures", func(c *Config) *string { return &c.RegistryTrustedRoot }),
	// Read by host/telemetry and the OpenTelemetry exporters themselves, with
	// the other standard OTEL_* variables.
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Default: "unset: no traces", Meaning: "OTLP/HTTP endpoint for traces and mcp.server.operation.duration"},
}

// perPluginSuffixes are the variables every mounted plugin has, named by
// scrapers.EnvName(id, suffix): AMAZON_BASE_URL, GOOGLE_SEARCH_PROXY_URLS, …
var perPluginSuffixes = []scrapers.Var{
	{Name: "BASE_URL", Default: "the site", Meaning: "A site's origin: replaces scheme and host of every request to the site's domains"},
	{Name: "PROXY_URLS", Default: "PROXY_URLS", Meaning: "Comma-separated proxy URLs for one plugin, rotated"},
	{Name: "RATE_LIMIT_PER_MINUTE", Default: "RATE_LIMIT_PER_MINUTE", Meaning: "Tool calls per license per minute for one plugin (0: no limit)"},
}

// Vars is the host's own table of variables.
func Vars() []Var { return append([]Var(nil), vars...) }

// PluginVars are the variables of the plugins given: for each, the
// per-plugin ones under its id, then those it declares (Plugin.Vars).
func PluginVars(plugins []scrapers.Plugin) []scrapers.Var {
	var out []scrapers.Var
	seen := map[string]bool{}
	add := func(v scrapers.Var) {
		if !seen[v.Name] {
			seen[v.Name] = true
			out = append(out, v)
		}
	}
	for _, p := range plugins {
		for _, s := range perPluginSuffixes {
			add(scrapers.Var{Name: scrapers.EnvName(p.ID, s.Name), Default: s.Default, Meaning: s.Meaning})
		}
		for _, v := range p.Vars {
			add(v)
		}
	}
	return out
}

// PerPluginVars are the per-plugin variables as the README writes them,
// with <ID> for the id: <ID>_BASE_URL, <ID>_PROXY_URLS, …
func PerPluginVars() []scrapers.Var {
	out := make([]scrapers.Var, len(perPluginSuffixes))
	for i, s := range perPluginSuffixes {
		out[i] = scrapers.Var{Name: "<ID>_" + s.Name, Default: s.Default, Meaning: s.Meaning}
	}
	return out
}

// EnvVars lists every variable read by the host and by the plugins given:
// the host's table, then PluginVars(plugins).
func EnvVars(plugins []scrapers.Plugin) []string {
	var out []string
	for _, v := range vars {
		out = append(out, v.Name)
	}
	for _, v := range PluginVars(plugins) {
		out = append(out, v.Name)
	}
	return out
}

// FromEnv reads the configuration from the table. dev applies `serve --dev`:
// the dev license backend and memory unless the environment says otherwise.
// Every bad value is reported at once. Per-plugin variables are read by New,
// for the plugins it mounts.
func FromEnv(getenv func(string) string, dev bool) (Config, error) {
	c := Defaults()
	c.Dev = dev
	c.Getenv = getenv
	var errs []error
	for _, v := range vars {
		raw := strings.TrimSpace(getenv(v.Name))
		if raw == "" || v.read == nil {
			continue
		}
		if err := v.read(&c, raw); err != nil {
			errs = append(errs, err)
		}
	}
	if dev && c.License.Backend == "" {
		c.License.Backend = "dev"
	}
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

// readPluginVars reads <ID>_RATE_LIMIT_PER_MINUTE for the plugins mounted.
// (<ID>_BASE_URL and <ID>_PROXY_URLS are read by the plugins' fetchers.)
func (c *Config) readPluginVars(ids []string) error {
	var errs []error
	for _, id := range ids {
		name := scrapers.EnvName(id, "RATE_LIMIT_PER_MINUTE")
		v := c.getenv(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q must be a whole number, 0 for no limit", name, v))
			continue
		}
		if c.PluginRateLimits == nil {
			c.PluginRateLimits = map[string]int{}
		}
		c.PluginRateLimits[id] = n
	}
	return errors.Join(errs...)
}

func (c *Config) getenv(name string) string {
	if c.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(c.Getenv(name))
}

func strVar(name, def, meaning string, field func(*Config) *string) Var {
	return Var{Name: name, Default: def, Meaning: meaning, read: func(c *Config, v string) error {
		*field(c) = v
		return nil
	}}
}

func durVar(name, def, meaning string, lo, hi time.Duration, field func(*Config) *time.Duration) Var {
	return Var{Name: name, Default: def, Meaning: meaning, read: func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s=%q is not a Go duration such as 30s or 5m", name, v)
		}
		if d < lo || (hi > 0 && d > hi) {
			return fmt.Errorf("%s=%s must be between %s and %s", name, v, lo, hi)
		}
		*field(c) = d
		return nil
	}}
}

func intVar(name, def, meaning string, lo, hi int, field func(*Config) *int) Var {
	return Var{Name: name, Default: def, Meaning: meaning, read: func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%s=%q must be a whole number from %d to %d", name, v, lo, hi)
		}
		*field(c) = n
		return nil
	}}
}

func boolVar(name, def, meaning string, field func(*Config) *bool) Var {
	return Var{Name: name, Default: def, Meaning: meaning, read: func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q must be true or false", name, v)
		}
		*field(c) = b
		return nil
	}}
}
