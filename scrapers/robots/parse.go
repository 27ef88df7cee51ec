package robots

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Robots is a parsed robots.txt: its groups, its Sitemap lines and the
// Content-Signal lines that stand before any group.
type Robots struct {
	groups   []*parsedGroup
	global   []signalLine
	sitemaps []string
}

// parsedGroup is one group as written: its product tokens and its members.
type parsedGroup struct {
	agents  []string // lower-cased product tokens; "*" for the global group
	rules   []rule
	delay   string // the last Crawl-delay value as written, "" if none
	signals []signalLine
}

// rule is one Allow or Disallow line.
type rule struct {
	allow   bool
	pattern string // normalised; starts with '/' or '*'
	m       matcher
}

// signalLine is one Content-Signal line: an optional path pattern and its
// key=value pairs (keys lower-cased, values as written, lower-cased).
type signalLine struct {
	pattern string // "" when it applies to every path
	m       matcher
	pairs   [][2]string
}

// Bounds on what a parsed file keeps, whatever its size.
const (
	maxSitemaps   = 500  // Sitemap lines kept
	maxPatternLen = 4096 // longer Allow/Disallow/Content-Signal patterns are dropped
	maxSignalKeys = 16   // key=value pairs kept per Content-Signal line
)

// Parse reads a robots.txt body. It never fails: lines it cannot read are
// skipped, as RFC 9309 asks, and a body that is an HTML page has no rules.
func Parse(body []byte) *Robots {
	r := &Robots{}
	if isHTML(body) {
		return r
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var cur *parsedGroup
	inAgents := false // the last record was a User-agent line
	seenSitemap := map[string]bool{}
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		key, val, ok := splitLine(line)
		if !ok {
			continue
		}
		switch key {
		case "user-agent":
			if !inAgents || cur == nil {
				cur = &parsedGroup{}
				r.groups = append(r.groups, cur)
			}
			inAgents = true
			cur.agents = append(cur.agents, productToken(val))
		case "allow", "disallow":
			inAgents = false
			if cur == nil || val == "" {
				continue
			}
			p := normalisePattern(val)
			if len(p) > maxPatternLen {
				continue
			}
			cur.rules = append(cur.rules, rule{allow: key == "allow", pattern: p, m: compile(p)})
		case "crawl-delay":
			// Crawl-delay and Content-Signal are "other records" (RFC 9309
			// 2.2.4): they must not change how the groups are read, so
			// unlike a rule they do not end a run of User-agent lines.
			if cur != nil {
				cur.delay = val
			}
		case "content-signal":
			s, ok := parseSignal(val)
			if !ok {
				continue
			}
			if cur == nil {
				r.global = append(r.global, s)
			} else {
				cur.signals = append(cur.signals, s)
			}
		case "sitemap":
			if len(r.sitemaps) < maxSitemaps && !seenSitemap[val] && isAbsoluteHTTP(val) {
				seenSitemap[val] = true
				r.sitemaps = append(r.sitemaps, val)
			}
		}
	}
	return r
}

// keys maps the record names RFC 9309 defines, the extensions read here and
// the misspellings Google's parser accepts, to one spelling.
var keys = map[string]string{
	"user-agent": "user-agent", "useragent": "user-agent", "user agent": "user-agent",
	"allow":    "allow",
	"disallow": "disallow", "dissallow": "disallow", "dissalow": "disallow",
	"disalow": "disallow", "diasllow": "disallow", "disallaw": "disallow",
	"sitemap": "sitemap", "site-map": "sitemap",
	"crawl-delay": "crawl-delay", "crawldelay": "crawl-delay",
	"content-signal": "content-signal", "content-signals": "content-signal",
}

// splitLine splits a record into its canonical key and its value, the
// comment removed. A line without a colon is read as "key value" when it is
// exactly two words, as Google's parser does.
func splitLine(line []byte) (key, val string, ok bool) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	s := strings.TrimSpace(string(line))
	if s == "" {
		return "", "", false
	}
	k, v, found := strings.Cut(s, ":")
	if !found {
		f := strings.Fields(s)
		if len(f) != 2 {
			return "", "", false
		}
		k, v = f[0], f[1]
	}
	key, ok = keys[strings.ToLower(strings.TrimSpace(k))]
	return key, strings.TrimSpace(v), ok
}

// productToken reads a User-agent value: "*" for the global group, else
// its leading run of letters, '_' and '-', lower-cased (RFC 9309 2.2.1).
func productToken(v string) string {
	if v == "*" || strings.HasPrefix(v, "* ") || strings.HasPrefix(v, "*\t") {
		return "*"
	}
	end := 0
	for end < len(v) {
		c := v[end]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' {
			end++
			continue
		}
		break
	}
	return strings.ToLower(v[:end])
}

// parseSignal reads a Content-Signal value such as
// "search=yes, ai-input=no" or "/docs/ ai-train=no".
func parseSignal(v string) (signalLine, bool) {
	var s signalLine
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "*") {
		i := strings.IndexAny(v, " \t")
		if i < 0 {
			return s, false
		}
		s.pattern = normalisePattern(v[:i])
		if len(s.pattern) > maxPatternLen {
			return s, false
		}
		s.m = compile(s.pattern)
		v = v[i+1:]
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		k, val, ok := strings.Cut(part, "=")
		k, val = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(val))
		if !ok || k == "" || val == "" {
			continue
		}
		if len(s.pairs) == maxSignalKeys {
			break
		}
		s.pairs = append(s.pairs, [2]string{k, val})
	}
	return s, len(s.pairs) > 0
}

// isHTML reports whether body is an HTML page (a site that answers every
// path with its home page or an error page) rather than a robots.txt.
func isHTML(body []byte) bool {
	head := body
	if len(head) > 512 {
		head = head[:512]
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return strings.HasPrefix(http.DetectContentType(head), "text/html")
}

// isAbsoluteHTTP reports whether s looks like an absolute http(s) URL.
func isAbsoluteHTTP(s string) bool {
	l := strings.ToLower(s)
	return (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && len(s) <= 2048
}

// Sitemaps returns the Sitemap URLs the file names (absolute http(s) URLs,
// each once, at most 500).
func (r *Robots) Sitemaps() []string {
	return append([]string(nil), r.sitemaps...)
}

// Group is what applies to one agent: the merged groups for its product
// token, else the merged '*' groups, else nothing (everything allowed).
type Group struct {
	rules   []rule
	delay   string
	signals []signalLine
	global  []signalLine
}

// For returns the group that applies to agent (a product token such as
// "SurfSense").
func (r *Robots) For(agent string) *Group {
	agent = strings.ToLower(productToken(agent))
	g := &Group{global: r.global}
	found := false
	for _, want := range []string{agent, "*"} {
		if want == "" {
			continue
		}
		for _, pg := range r.groups {
			for _, a := range pg.agents {
				if a == want {
					found = true
					g.rules = append(g.rules, pg.rules...)
					g.signals = append(g.signals, pg.signals...)
					if pg.delay != "" {
						g.delay = pg.delay
					}
					break
				}
			}
		}
		if found {
			break
		}
	}
	// Longest first, Allow first among equals: the first rule that
	// matches a path decides it (RFC 9309 2.2.2).
	slices.SortFunc(g.rules, func(a, b rule) int {
		if c := cmp.Compare(len(b.pattern), len(a.pattern)); c != 0 {
			return c
		}
		if a.allow != b.allow {
			if a.allow {
				return -1
			}
			return 1
		}
		return strings.Compare(a.pattern, b.pattern)
	})
	return g
}

// Test says whether path (a URL's escaped path and query) may be fetched,
// and which rule decided ("" when none applies).
func (g *Group) Test(path string) (allowed bool, decidedBy string) {
	if path == "" {
		path = "/"
	}
	path = normalisePath(path)
	if path == "/robots.txt" {
		return true, ""
	}
	for _, r := range g.rules {
		if r.m.match(path) {
			if r.allow {
				return true, "Allow: " + r.pattern
			}
			return false, "Disallow: " + r.pattern
		}
	}
	return true, ""
}

// CrawlDelay returns the group's Crawl-delay; ok is false when it names none
// or one that is not a number of seconds.
func (g *Group) CrawlDelay() (d time.Duration, ok bool) {
	if g.delay == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(g.delay, 64)
	if err != nil || f < 0 || f != f {
		return 0, false
	}
	if f > 365*24*3600 {
		f = 365 * 24 * 3600
	}
	return time.Duration(f * float64(time.Second)), true
}

// Signal returns the value of the Content-Signal key (such as "ai-input")
// that applies to path: the most specific line naming the key wins, the
// group's lines before those standing before any group.
func (g *Group) Signal(path, key string) (value string, ok bool) {
	path = normalisePath(path)
	key = strings.ToLower(key)
	bestLen := -1
	for _, lines := range [][]signalLine{g.signals, g.global} {
		for _, s := range lines {
			if len(s.pattern) < bestLen || (s.pattern != "" && !s.m.match(path)) {
				continue
			}
			for _, p := range s.pairs {
				if p[0] == key {
					value, ok, bestLen = p[1], true, len(s.pattern)
				}
			}
		}
		if ok {
			return value, ok
		}
	}
	return value, ok
}
