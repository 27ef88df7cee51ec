// Package deploy holds the deployment files (main.bicep, compose.yaml,
// searxng/settings.yml, grafana-dashboard.json). Its test keeps them honest
// against the binary: every environment variable they set is one the host
// reads, every value is one the host accepts, every probe path is one it
// serves, and every series the dashboard queries is one it serves.
package deploy

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/all"
	"github.com/surfsense/pluginhost/scrapers/render"
)

// knownVars is every variable the host or its plugins read.
func knownVars() map[string]bool {
	m := map[string]bool{}
	plugins, err := all.Build(scrapers.Env{})
	if err != nil {
		panic(err)
	}
	for _, v := range host.EnvVars(plugins) {
		m[v] = true
	}
	return m
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return string(b)
}

// ---------- a small reader of the Bicep this folder writes

// stripComments removes // comments outside strings.
func stripComments(src string) string {
	var out strings.Builder
	for _, line := range strings.Split(src, "\n") {
		in := false
		for i := 0; i < len(line); i++ {
			switch {
			case line[i] == '\'' && (i == 0 || line[i-1] != '\\'):
				in = !in
			case !in && strings.HasPrefix(line[i:], "//"):
				line = line[:i]
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.String()
}

// block returns the bracketed body ({…} or […]) that follows the first
// occurrence of start, or "" when start is absent or unbalanced.
func block(src, start string) string {
	i := strings.Index(src, start)
	if i < 0 {
		return ""
	}
	j := strings.IndexAny(src[i+len(start):], "{[")
	if j < 0 {
		return ""
	}
	j += i + len(start)
	depth, in := 0, false
	for k := j; k < len(src); k++ {
		c := src[k]
		if c == '\'' && src[k-1] != '\\' {
			in = !in
			continue
		}
		if in {
			continue
		}
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return src[j : k+1]
			}
		}
	}
	return ""
}

type envEntry struct {
	Name, Kind, Expr string // Kind is value or secretRef
}

var envLine = regexp.MustCompile(`(?m)^\s*\{\s*name:\s*'([^']*)',\s*(value|secretRef):\s*(.+?)\s*\}\s*$`)

func envEntries(b string) []envEntry {
	var out []envEntry
	for _, m := range envLine.FindAllStringSubmatch(b, -1) {
		out = append(out, envEntry{m[1], m[2], m[3]})
	}
	return out
}

type bicep struct {
	src    string
	params map[string]string // name → default expression ("" when none)
	vars   map[string]string // simple vars: name → expression
}

var (
	paramLine = regexp.MustCompile(`(?m)^param\s+(\w+)\s+\w+(?:\s*=\s*(.+?))?\s*$`)
	varLine   = regexp.MustCompile(`(?m)^var\s+(\w+)\s*=\s*([^\n{\[]+?)\s*$`)
)

func parseBicep(src string) *bicep {
	b := &bicep{src: stripComments(src), params: map[string]string{}, vars: map[string]string{}}
	for _, m := range paramLine.FindAllStringSubmatch(b.src, -1) {
		b.params[m[1]] = m[2]
	}
	for _, m := range varLine.FindAllStringSubmatch(b.src, -1) {
		b.vars[m[1]] = m[2]
	}
	return b
}

var interp = regexp.MustCompile(`\$\{([^}]*)\}`)

// eval gives the value of a simple expression: a string (with
// interpolations of params and vars), a param, a var, or string(x). Anything
// else (a resource's property) becomes placeholder.
func (b *bicep) eval(expr, placeholder string) (string, bool) {
	expr = strings.TrimSpace(expr)
	if inner, ok := strings.CutPrefix(expr, "string("); ok && strings.HasSuffix(inner, ")") {
		return b.eval(strings.TrimSuffix(inner, ")"), placeholder)
	}
	if strings.HasPrefix(expr, "'") && strings.HasSuffix(expr, "'") && len(expr) >= 2 {
		ok := true
		s := interp.ReplaceAllStringFunc(expr[1:len(expr)-1], func(m string) string {
			v, good := b.eval(m[2:len(m)-1], placeholder)
			ok = ok && good
			return v
		})
		return s, ok
	}
	if _, err := strconv.Atoi(expr); err == nil {
		return expr, true
	}
	if v, ok := b.vars[expr]; ok {
		return b.eval(v, placeholder)
	}
	if v, ok := b.params[expr]; ok && v != "" {
		return b.eval(v, placeholder)
	}
	return placeholder, false
}

// secretStandIns are plausible values for the host's secrets, to check that
// the host accepts the configuration as deployed.
var secretStandIns = map[string]string{
	"redis-url":      "rediss://:key@surfsense-ph-redis.redis.cache.windows.net:6380/0",
	"keygen-url":     "https://keygen.example.com",
	"keygen-account": "surfsense",
	"proxy-urls":     "http://user:pass@proxy.example.com:8080",
}

// checkBicep returns what is wrong with main.bicep's host app.
func checkBicep(src string, known map[string]bool, probePaths []string) (problems []string, env map[string]string) {
	b := parseBicep(src)
	bad := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	hostEnv := block(b.src, "var hostEnv =")
	app := block(b.src, "resource hostApp ")
	if hostEnv == "" || app == "" {
		bad("main.bicep has no `var hostEnv = [...]` or no `resource hostApp`")
		return problems, nil
	}
	if !regexp.MustCompile(`\benv:\s*hostEnv\b`).MatchString(app) {
		bad("hostApp's container does not use hostEnv as its env")
	}
	if stray := envEntries(app); len(stray) > 0 {
		bad("hostApp sets env entries outside hostEnv: %v", stray)
	}

	// Secrets: every secretRef is a Key Vault reference read by the identity.
	secrets := map[string]string{}
	for _, m := range regexp.MustCompile(`\{\s*name:\s*'([^']+)',\s*keyVaultUrl:\s*'([^']+)',\s*identity:\s*identity\.id\s*\}`).FindAllStringSubmatch(block(app, "secrets:"), -1) {
		secrets[m[1]] = m[2]
	}
	env = map[string]string{}
	for _, e := range envEntries(hostEnv) {
		if !known[e.Name] {
			bad("main.bicep sets %s, which the host does not read (host.EnvVars)", e.Name)
		}
		if _, dup := env[e.Name]; dup {
			bad("main.bicep sets %s twice", e.Name)
		}
		switch e.Kind {
		case "secretRef":
			ref := strings.Trim(e.Expr, "'")
			kv, ok := secrets[ref]
			if !ok {
				bad("%s refers to secret %q, which is not a Key Vault reference of hostApp", e.Name, ref)
			} else if !strings.HasSuffix(kv, "secrets/"+ref) {
				bad("secret %q reads Key Vault secret %q", ref, kv)
			}
			env[e.Name] = secretStandIns[ref]
		default:
			v, _ := b.eval(e.Expr, "internal.example.com")
			env[e.Name] = v
		}
	}
	for _, want := range []string{"ADDR", "PUBLIC_URL", "METRICS_ADDR", "LICENSE_BACKEND", "KEYGEN_URL", "KEYGEN_ACCOUNT", "REDIS_URL", "SEARXNG_URL", "PROXY_URLS"} {
		if _, ok := env[want]; !ok {
			bad("main.bicep does not set %s", want)
		}
	}
	for _, name := range []string{"KEYGEN_URL", "KEYGEN_ACCOUNT", "REDIS_URL", "PROXY_URLS"} {
		if e := findEntry(envEntries(hostEnv), name); e != nil && e.Kind != "secretRef" {
			bad("%s must come from Key Vault (secretRef), not a value", name)
		}
	}
	if env["LICENSE_BACKEND"] != "keygen" {
		bad("LICENSE_BACKEND is %q, want keygen in production", env["LICENSE_BACKEND"])
	}

	// Ingress, probes and the listen address agree on one port.
	port, _ := b.eval(firstMatch(app, `targetPort:\s*(\w+)`), "?")
	if _, p, _ := strings.Cut(env["ADDR"], ":"); env["ADDR"] == "" || !strings.HasPrefix(env["ADDR"], "0.0.0.0:") || p != port {
		bad("ADDR is %q but the ingress targets port %s (want 0.0.0.0:%s)", env["ADDR"], port, port)
	}
	if ext := firstMatch(block(app, "ingress:"), `external:\s*(\w+)`); ext != "true" {
		bad("hostApp's ingress is not external")
	}
	probes := regexp.MustCompile(`type:\s*'(\w+)'[^{}]*?httpGet:\s*\{\s*path:\s*'([^']+)',\s*port:\s*(\w+)\s*\}`).FindAllStringSubmatch(block(app, "probes:"), -1)
	kinds := map[string]bool{}
	for _, m := range probes {
		kinds[m[1]] = true
		if !slices.Contains(probePaths, m[2]) {
			bad("the %s probe asks %s, which the host does not serve as a probe (host.ProbePaths: %v)", m[1], m[2], probePaths)
		}
		if p, _ := b.eval(m[3], "?"); p != port {
			bad("the %s probe uses port %s, the ingress %s", m[1], p, port)
		}
	}
	for _, k := range []string{"Startup", "Liveness", "Readiness"} {
		if !kinds[k] {
			bad("hostApp has no %s probe", k)
		}
	}
	for _, m := range probes {
		if m[1] == "Liveness" && m[2] != "/healthz" {
			bad("liveness must ask /healthz (a Redis fault must never restart a replica), not %s", m[2])
		}
		if m[1] == "Readiness" && m[2] != "/readyz" {
			bad("readiness must ask /readyz, not %s", m[2])
		}
	}

	// Scale: at least one replica, an HTTP rule.
	scale := block(app, "scale:")
	minR, _ := b.eval(firstMatch(scale, `minReplicas:\s*(\w+)`), "0")
	if n, err := strconv.Atoi(minR); err != nil || n < 1 {
		bad("hostApp's minReplicas is %q, want at least 1", minR)
	}
	if !regexp.MustCompile(`http:\s*\{\s*metadata:\s*\{\s*concurrentRequests:`).MatchString(scale) {
		bad("hostApp has no HTTP scale rule")
	}
	// The platform must wait longer than the drain.
	grace := firstMatch(app, `terminationGracePeriodSeconds:\s*([^\n]+)`)
	drain := findEntry(envEntries(hostEnv), "SHUTDOWN_DRAIN")
	if grace == "" || drain == nil || !strings.Contains(drain.Expr, "shutdownDrainSeconds") || !regexp.MustCompile(`^shutdownDrainSeconds\s*\+\s*\d+$`).MatchString(strings.TrimSpace(grace)) {
		bad("terminationGracePeriodSeconds (%q) must be SHUTDOWN_DRAIN (shutdownDrainSeconds) plus a margin", grace)
	}
	return problems, env
}

func findEntry(es []envEntry, name string) *envEntry {
	for i := range es {
		if es[i].Name == name {
			return &es[i]
		}
	}
	return nil
}

func firstMatch(s, re string) string {
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestBicepHostMatchesTheBinary(t *testing.T) {
	src := read(t, "main.bicep")
	problems, env := checkBicep(src, knownVars(), host.ProbePaths())
	for _, p := range problems {
		t.Error(p)
	}
	if len(env) == 0 {
		t.Fatal("no host environment found")
	}
	// The host accepts the configuration as deployed.
	cfg, err := host.FromEnv(getenv(env), false)
	if err != nil {
		t.Fatalf("the host refuses main.bicep's environment: %v", err)
	}
	if cfg.RedisURL == "" || cfg.License.Backend != "keygen" {
		t.Errorf("config from main.bicep: redis %q, backend %q", cfg.RedisURL, cfg.License.Backend)
	}
	t.Logf("main.bicep sets %d host variables", len(env))
}

func TestBicepCheckCatchesMistakes(t *testing.T) {
	src := read(t, "main.bicep")
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown variable", "{ name: 'LICENSE_GRACE',", "{ name: 'LICENSE_GRACE_PERIOD',", "LICENSE_GRACE_PERIOD, which the host does not read"},
		{"wrong probe path", "path: '/healthz', port: hostPort", "path: '/health', port: hostPort", "asks /health,"},
		{"secret as a value", "{ name: 'REDIS_URL', secretRef: 'redis-url' }", "{ name: 'REDIS_URL', value: 'redis://x:6379' }", "REDIS_URL must come from Key Vault"},
		{"missing secret", "{ name: 'proxy-urls', keyVaultUrl:", "{ name: 'proxy-url', keyVaultUrl:", `secret "proxy-urls", which is not`},
		{"port mismatch", "targetPort: hostPort", "targetPort: 8080", "ingress targets port 8080"},
		{"no replicas", "minReplicas: minReplicas", "minReplicas: 0", "minReplicas is \"0\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.from) {
				t.Fatalf("main.bicep no longer contains %q: update this test", tc.from)
			}
			problems, _ := checkBicep(strings.Replace(src, tc.from, tc.to, 1), knownVars(), host.ProbePaths())
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Fatalf("problems %q do not mention %q", problems, tc.want)
			}
		})
	}
}

func TestBicepSearxngAndParams(t *testing.T) {
	b := parseBicep(read(t, "main.bicep"))
	app := block(b.src, "resource searxng ")
	if app == "" {
		t.Fatal("no searxng container app")
	}
	if firstMatch(block(app, "ingress:"), `external:\s*(\w+)`) != "false" {
		t.Error("SearXNG's ingress must be internal (external: false)")
	}
	if !strings.Contains(app, "loadTextContent('searxng/settings.yml')") {
		t.Error("the SearXNG app does not load searxng/settings.yml")
	}
	mount := firstMatch(app, `mountPath:\s*'([^']+)'`)
	settingsPath := ""
	for _, e := range envEntries(block(b.src, "var searxngEnv =")) {
		if e.Name == "SEARXNG_SETTINGS_PATH" {
			settingsPath, _ = b.eval(e.Expr, "")
		}
	}
	if mount == "" || settingsPath != mount+"/settings.yml" {
		t.Errorf("SEARXNG_SETTINGS_PATH %q is not settings.yml in the mounted folder %q", settingsPath, mount)
	}
	// The host's SEARXNG_URL names the SearXNG app.
	if e := findEntry(envEntries(block(b.src, "var hostEnv =")), "SEARXNG_URL"); e == nil || !strings.Contains(e.Expr, "searxng.properties.configuration.ingress.fqdn") {
		t.Error("SEARXNG_URL does not point at the SearXNG app's internal address")
	}
	checkSettings(t, "searxng/settings.yml")

	// The example parameters are the template's, and give every required one.
	ex := stripComments(read(t, "main.example.bicepparam"))
	if !strings.Contains(ex, "using 'main.bicep'") {
		t.Error("main.example.bicepparam does not use main.bicep")
	}
	given := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^param\s+(\w+)\s*=`).FindAllStringSubmatch(ex, -1) {
		given[m[1]] = true
		if _, ok := b.params[m[1]]; !ok {
			t.Errorf("the example sets %s, which main.bicep does not declare", m[1])
		}
	}
	for name, def := range b.params {
		if def == "" && !given[name] {
			t.Errorf("the example leaves out the required parameter %s", name)
		}
	}
}

func checkSettings(t *testing.T, path string) {
	t.Helper()
	var s struct {
		UseDefault bool `yaml:"use_default_settings"`
		Search     struct {
			Formats []string `yaml:"formats"`
		} `yaml:"search"`
		Server struct {
			Limiter *bool `yaml:"limiter"`
		} `yaml:"server"`
	}
	if err := yaml.Unmarshal([]byte(read(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !slices.Contains(s.Search.Formats, "json") || !slices.Contains(s.Search.Formats, "html") {
		t.Errorf("%s: search.formats = %v, want html and json (the host asks format=json)", path, s.Search.Formats)
	}
	if s.Server.Limiter == nil || *s.Server.Limiter {
		t.Errorf("%s: server.limiter must be false: the host's requests would be throttled", path)
	}
	if !s.UseDefault {
		t.Errorf("%s: use_default_settings must be true (the engines come from the defaults)", path)
	}
}

// ---------- compose

type composeFile struct {
	Services map[string]struct {
		Build *struct {
			Context    string `yaml:"context"`
			Dockerfile string `yaml:"dockerfile"`
		} `yaml:"build"`
		Image       string    `yaml:"image"`
		NetworkMode string    `yaml:"network_mode"`
		Command     []string  `yaml:"command"`
		Environment yaml.Node `yaml:"environment"`
		Volumes     []string  `yaml:"volumes"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// composeEnv reads an environment given as a map or as a list of K=V, and
// expands ${VAR:-default} to its default.
func composeEnv(n yaml.Node) (map[string]string, error) {
	out := map[string]string{}
	switch n.Kind {
	case 0:
		return out, nil
	case yaml.MappingNode:
		var m map[string]string
		if err := n.Decode(&m); err != nil {
			return nil, err
		}
		out = m
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return nil, err
		}
		for _, kv := range l {
			k, v, _ := strings.Cut(kv, "=")
			out[k] = v
		}
	default:
		return nil, fmt.Errorf("environment is neither a map nor a list")
	}
	def := regexp.MustCompile(`\$\{\w+(?::?-([^}]*))?\}`)
	for k, v := range out {
		out[k] = def.ReplaceAllString(v, "$1")
	}
	return out, nil
}

func TestComposeMatchesTheBinary(t *testing.T) {
	var c composeFile
	if err := yaml.Unmarshal([]byte(read(t, "compose.yaml")), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	hostSvc, ok := c.Services["host"]
	if !ok {
		t.Fatal("compose.yaml has no host service")
	}
	env, err := composeEnv(hostSvc.Environment)
	if err != nil {
		t.Fatal(err)
	}
	known := knownVars()
	for k := range env {
		if !known[k] {
			t.Errorf("compose.yaml sets %s, which the host does not read (host.EnvVars)", k)
		}
	}
	for _, want := range []string{"ADDR", "REDIS_URL", "SEARXNG_URL", "LICENSE_BACKEND"} {
		if env[want] == "" {
			t.Errorf("compose.yaml does not set %s", want)
		}
	}
	cfg, err := host.FromEnv(getenv(env), false)
	if err != nil {
		t.Fatalf("the host refuses compose.yaml's environment: %v", err)
	}
	if cfg.Addr != "0.0.0.0:8000" {
		t.Errorf("ADDR = %q, want 0.0.0.0:8000 in a container", cfg.Addr)
	}
	// The URLs name the other services.
	for name, svc := range map[string]string{"REDIS_URL": "redis", "SEARXNG_URL": "searxng"} {
		if !strings.Contains(env[name], "//"+svc+":") {
			t.Errorf("%s = %q does not name the %s service", name, env[name], svc)
		} else if _, ok := c.Services[svc]; !ok {
			t.Errorf("%s names %s, which is not a service", name, svc)
		}
	}
	if hostSvc.Healthcheck != nil {
		for _, arg := range hostSvc.Healthcheck.Test {
			if i := strings.Index(arg, "://"); i >= 0 {
				u := arg[i+3:]
				if j := strings.Index(u, "/"); j >= 0 && !slices.Contains(host.ProbePaths(), u[j:]) {
					t.Errorf("the host's healthcheck asks %s, not a probe path", u[j:])
				}
			}
		}
	}

	// SearXNG reads the settings beside this file.
	sx, ok := c.Services["searxng"]
	if !ok {
		t.Fatal("compose.yaml has no searxng service")
	}
	sxEnv, _ := composeEnv(sx.Environment)
	mounted := false
	for _, v := range sx.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && filepath.Clean(parts[0]) == "searxng/settings.yml" && parts[1] == sxEnv["SEARXNG_SETTINGS_PATH"] {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("searxng does not mount ./searxng/settings.yml at SEARXNG_SETTINGS_PATH (%q): %v", sxEnv["SEARXNG_SETTINGS_PATH"], sx.Volumes)
	}

	// The host is built from the repository's Dockerfile.
	if hostSvc.Build == nil || filepath.Clean(hostSvc.Build.Context) != ".." {
		t.Fatal("the host service must build with context .. (the repository root)")
	}
	root, _ := filepath.Abs("..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the build context %s is not the module root", root)
	}
	df := hostSvc.Build.Dockerfile
	if df == "" {
		df = "Dockerfile"
	}
	t.Run("Dockerfile", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(root, df)); err != nil {
			t.Skipf("%s is not at the repository root yet (the lead's); compose.yaml builds from it", df)
		}
	})
}

// TestProbePathsAreServed asks a real host the probe paths the deploy files
// use.
func TestProbePathsAreServed(t *testing.T) {
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	h, err := host.New(cfg, host.Options{Plugins: []scrapers.Constructor{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	for _, p := range host.ProbePaths() {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", p, resp.StatusCode)
		}
	}
}

// TestBrowserBesideTheHost: both deployments run a headless Chromium that
// shares the host's network namespace (the host reaches its DevTools port on
// loopback, and it reaches the host's guarding proxy there), with exactly
// the renderer's guard switches (render.GuardFlags), and the host's
// RENDERER_URL names it.
func TestBrowserBesideTheHost(t *testing.T) {
	b := parseBicep(read(t, "main.bicep"))
	app := block(b.src, "resource hostApp ")
	if !strings.Contains(app, "name: 'browser'") || !regexp.MustCompile(`image:\s*browserImage`).MatchString(app) {
		t.Fatal("hostApp has no browser container (a second container of the same app, so that it shares the replica's loopback)")
	}
	var args []string
	for _, m := range regexp.MustCompile(`(?m)^\s*'([^']*)'\s*$`).FindAllStringSubmatch(block(b.src, "var browserArgs ="), -1) {
		args = append(args, m[1])
	}
	if !slices.Equal(args, render.GuardFlags) {
		t.Errorf("main.bicep's browserArgs are not render.GuardFlags:\n got  %q\n want %q", args, render.GuardFlags)
	}
	if !regexp.MustCompile(`args:\s*browserArgs`).MatchString(app) {
		t.Error("the browser container does not take browserArgs")
	}
	port, _ := b.eval("browserPort", "?")
	e := findEntry(envEntries(block(b.src, "var hostEnv =")), "RENDERER_URL")
	if e == nil {
		t.Fatal("main.bicep does not set RENDERER_URL")
	}
	if v, _ := b.eval(e.Expr, "?"); v != "http://127.0.0.1:"+port {
		t.Errorf("RENDERER_URL is %q, want the browser container's port on loopback (http://127.0.0.1:%s)", v, port)
	}
	if strings.Contains(block(app, "ingress:"), port) {
		t.Error("the ingress names the browser's port")
	}

	var c composeFile
	if err := yaml.Unmarshal([]byte(read(t, "compose.yaml")), &c); err != nil {
		t.Fatal(err)
	}
	br, ok := c.Services["browser"]
	if !ok {
		t.Fatal("compose.yaml has no browser service")
	}
	if br.NetworkMode != "service:host" {
		t.Errorf("the browser's network_mode is %q, want service:host (the host's loopback)", br.NetworkMode)
	}
	if !slices.Equal(br.Command, render.GuardFlags) {
		t.Errorf("compose's browser command is not render.GuardFlags:\n got  %q\n want %q", br.Command, render.GuardFlags)
	}
	env, _ := composeEnv(c.Services["host"].Environment)
	if env["RENDERER_URL"] != "http://127.0.0.1:9222" {
		t.Errorf("compose's RENDERER_URL is %q, want http://127.0.0.1:9222", env["RENDERER_URL"])
	}
	// web-crawl accepts both environments.
	for name, vars := range map[string]map[string]string{"compose": env, "main.bicep": {"RENDERER_URL": "http://127.0.0.1:" + port, "RENDER_CONCURRENCY": "2"}} {
		if _, ok, err := render.FromEnv(scrapers.Env{Getenv: func(k string) string { return vars[k] }}, "web-crawl"); err != nil || !ok {
			t.Errorf("%s: the renderer refuses its configuration: ok %v, %v", name, ok, err)
		}
	}
}
