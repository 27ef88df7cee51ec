package scrapers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/prometheus/client_golang/prometheus"
)

// Plugin is one MCP server the host mounts at /<ID>/mcp.
type Plugin struct {
	// ID is the plugin's id, as in the first-party list (web-crawl, amazon, …).
	ID string
	// Name is the human name (Web Crawl).
	Name string
	// Unlisted plugins (reddit, instagram) are mounted only when
	// UNLISTED_PLUGINS names them.
	Unlisted bool
	// Tools are the plugin's tools, in the order tools/list shows them.
	Tools []Tool
	// Vars are the configuration variables the plugin reads beyond the
	// per-plugin ones every plugin has (<ID>_BASE_URL, <ID>_PROXY_URLS,
	// <ID>_RATE_LIMIT_PER_MINUTE): SEARXNG_URL, RENDERER_URL, … The host lists
	// them beside its own (host.EnvVars), so the README and deploy checks
	// cover them.
	Vars []Var
	// Status, when set, names a part of the plugin in /readyz (the
	// renderer): its name and "ok …" or "degraded: …". It must be fast: it
	// reports what the plugin knows, it does not probe.
	Status func() (part, status string)
	// Close, when set, releases what the plugin started and holds beyond
	// any call (the browser web-crawl starts from CHROMIUM_BIN). The host
	// calls it once, at Host.Close, after the drain.
	Close func()
}

// Var is one configuration variable a plugin reads.
type Var struct {
	Name    string // GOOGLE_SEARCH_PROVIDERS
	Default string // what an unset variable means, in words or as a value
	Meaning string // one line
}

// Constructor builds a plugin from its environment. The host calls it once,
// at start, for each plugin it is given.
type Constructor func(env Env) (Plugin, error)

// Tool is one MCP tool. Build it with [NewTool] so that its input schema and
// argument decoding come from one Go type.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON schema of the arguments (type object).
	InputSchema *jsonschema.Schema
	// ItemSchema is the JSON schema of one item the tool adds to its Call
	// (build it with [ItemSchema]); the host publishes the result envelope
	// around it as the tool's outputSchema. Nil publishes items of any shape.
	ItemSchema *jsonschema.Schema
	// Meta are the result-level fields the tool sets with Call.SetMeta
	// (results_provider, …), each with its schema; the host declares them in
	// the outputSchema beside the envelope's own fields.
	Meta map[string]*jsonschema.Schema
	// Run decodes raw arguments, validates them and does the work, adding
	// items to call as it goes. An error it returns is a tool error; items
	// already added are still returned, marked partial.
	Run func(ctx context.Context, call *Call, raw json.RawMessage) error
	// Canonical decodes and validates raw arguments as Run does and returns
	// their canonical encoding ([CanonicalArgs]): the host's result cache
	// keys calls by it. An error is Run's argument error. Nil: the host
	// uses CanonicalArgs alone.
	Canonical func(raw json.RawMessage) ([]byte, error)
}

// Validator is implemented by argument types that check their own rules after
// decoding and defaults. Return an *ArgError naming the argument.
type Validator interface {
	Validate() error
}

// Defaulter is implemented by argument types that fill their defaults.
type Defaulter interface {
	Defaults()
}

// NewTool builds a Tool whose arguments are the JSON object Args. The schema is
// inferred from Args (json and jsonschema struct tags); schema, when non-nil,
// may adjust it (minimums, maximums, defaults) before it is published.
// Arguments are decoded strictly: unknown fields and wrong types are tool errors
// that name the argument.
func NewTool[Args any](name, title, description string, schema func(*jsonschema.Schema), run func(ctx context.Context, call *Call, args Args) error) Tool {
	s, err := jsonschema.For[Args](nil)
	if err != nil {
		panic(fmt.Sprintf("scrapers.NewTool %q: %v", name, err))
	}
	dropNullTypes(s)
	if schema != nil {
		schema(s)
	}
	return Tool{
		Name:        name,
		Title:       title,
		Description: description,
		InputSchema: s,
		Run: func(ctx context.Context, call *Call, raw json.RawMessage) error {
			var args Args
			if err := DecodeArgs(raw, &args); err != nil {
				return err
			}
			return run(ctx, call, args)
		},
		Canonical: func(raw json.RawMessage) ([]byte, error) {
			var args Args
			if err := DecodeArgs(raw, &args); err != nil {
				return nil, err
			}
			return CanonicalArgs(raw, s)
		},
	}
}

// WithItems returns t declaring items of the schema s (its ItemSchema):
// NewTool(…).WithItems(ItemSchema[Product]()).
func (t Tool) WithItems(s *jsonschema.Schema) Tool {
	t.ItemSchema = s
	return t
}

// WithMeta returns t declaring the result-level field name (set with
// Call.SetMeta) of the schema s.
func (t Tool) WithMeta(name string, s *jsonschema.Schema) Tool {
	meta := make(map[string]*jsonschema.Schema, len(t.Meta)+1)
	for k, v := range t.Meta {
		meta[k] = v
	}
	meta[name] = s
	t.Meta = meta
	return t
}

// ItemSchema is the schema of the item type T, for Tool.ItemSchema: inferred
// from T's json and jsonschema struct tags, as NewTool infers arguments.
func ItemSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("scrapers.ItemSchema: %v", err))
	}
	return s
}

// Env is what a plugin is built from: configuration read from the environment
// and process-wide settings. The zero value reads nothing (every site uses its
// real origin, no proxies) and refuses private networks.
type Env struct {
	// Getenv reads configuration (<ID>_BASE_URL, PROXY_URLS, …). Nil reads nothing.
	Getenv func(string) string
	// AllowPrivateNetworks lifts the SSRF guard (tests and stand-ins only).
	AllowPrivateNetworks bool
	// Logger receives the fetching layer's logs. Nil discards them.
	Logger *slog.Logger
	// Upstream, when non-nil, hears of every upstream request attempt a
	// plugin's fetchers make (retries and proxies included), on the call's
	// context: the host counts them per license, per site and in traces.
	// It must be fast and safe for concurrent use.
	Upstream func(ctx context.Context, u Upstream)
	// PageTimeout (PAGE_TIMEOUT), when positive, caps one upstream page,
	// headers and body, in place of each site's own default; the host keeps
	// it within the call's deadline.
	PageTimeout time.Duration
	// Pages bounds the pages in flight across every plugin of the process,
	// by count and by the bytes they hold (MAX_PAGES_IN_FLIGHT,
	// PAGES_MEMORY); every fetcher and web-crawl take a place in it for each
	// page. Nil uses DefaultPageBudget, one for the process.
	Pages *PageBudget
	// Politeness keeps each site's limits (Site.MaxConcurrent and
	// MinInterval, web-crawl's pages per host and its pause, holds after a
	// 429 or a block) for every fetcher of the process, and with REDIS_URL
	// for every replica. Nil gives each fetcher (and web-crawl) limits of its
	// own, as a plugin alone in its process would keep them; the host always
	// passes one it shares among its plugins.
	Politeness Politeness
	// BlockHold (BLOCK_HOLD) is how long a captcha, robot check or
	// rate-limit page holds its site's exit off for every caller when the
	// site names no Retry-After; 0 holds nothing for a block (the zero Env:
	// a plugin's own tests meet stand-ins that block one URL and serve the
	// next). The host passes 60 s by default.
	BlockHold time.Duration
	// Shared, when non-nil, is a small cache every replica reads (Redis):
	// web-crawl keeps each host's robots.txt there. Nil keeps such things in
	// this process's memory.
	Shared SharedCache
	// Metrics, when non-nil, is where a plugin registers series of its own
	// (the renderer's pluginhost_renders_total); the host serves them on
	// METRICS_ADDR with its own.
	Metrics prometheus.Registerer
}

// Get returns the configuration value name, or "".
func (e Env) Get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(e.Getenv(name))
}

// PageBudget returns Pages, or the process's default budget when it is nil.
func (e Env) PageBudget() *PageBudget {
	if e.Pages == nil {
		return DefaultPageBudget()
	}
	return e.Pages
}

// Polite returns Politeness, or a new LocalPoliteness when it is nil.
func (e Env) Polite() Politeness {
	if e.Politeness == nil {
		return &LocalPoliteness{}
	}
	return e.Politeness
}

// Log returns the environment's logger, never nil.
func (e Env) Log() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

// EnvName turns a plugin id and a suffix into a configuration name:
// EnvName("google-search", "BASE_URL") is GOOGLE_SEARCH_BASE_URL.
func EnvName(id, suffix string) string {
	return strings.ToUpper(strings.ReplaceAll(id, "-", "_")) + "_" + suffix
}

// dropNullTypes turns the ["null", T] types inferred for pointers and slices
// into T: an optional argument is one left out, not one sent as null.
func dropNullTypes(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		} else if len(p.Types) == 2 && p.Types[1] == "null" {
			p.Type, p.Types = p.Types[0], nil
		}
		if p.Items != nil {
			dropNullTypes(p.Items)
		}
		dropNullTypes(p)
	}
}
