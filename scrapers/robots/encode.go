package robots

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// kind is what fetching a robots.txt found.
type kind uint8

const (
	kindRules       kind = iota + 1 // 2xx: the rules apply
	kindAllowAll                    // 4xx, a 3xx not followed, too many redirects: no rules
	kindUnreachable                 // 5xx, 429, network error: nothing allowed for a while
)

var kindNames = map[kind]string{kindRules: "rules", kindAllowAll: "allow-all", kindUnreachable: "unreachable"}

// entry is one origin's robots.txt as kept: the group for the agent,
// rendered compactly, and parsed again for use.
type entry struct {
	kind    kind
	fetched time.Time
	note    string // why (for allow-all and unreachable): "HTTP 404", "HTTP 503", the network error
	text    []byte // for kindRules: the compact rendering (see render)
	group   *Group
	sitemap []string
}

// header starts every encoded entry; a value that does not start with it
// (another program's, an older version's) is ignored and refetched.
const header = "surfsense-robots/1\n"

// maxEncoded bounds what is decoded from the fleet cache.
const maxEncoded = 4 << 20

// encode renders e as kept in the fleet cache:
//
//	surfsense-robots/1
//	<kind> <fetched, Unix milliseconds> <note, percent-free, one line>
//	<the compact robots.txt, for kind rules>
func encode(e *entry) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(kindNames[e.kind])
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(e.fetched.UnixMilli(), 10))
	b.WriteByte(' ')
	b.WriteString(oneLine(e.note))
	b.WriteByte('\n')
	b.Write(e.text)
	return b.Bytes()
}

// decode reads what encode wrote; ok is false for anything else.
func decode(v []byte, agent string) (e *entry, ok bool) {
	if len(v) > maxEncoded || !bytes.HasPrefix(v, []byte(header)) {
		return nil, false
	}
	v = v[len(header):]
	i := bytes.IndexByte(v, '\n')
	if i < 0 {
		return nil, false
	}
	fields := strings.SplitN(string(v[:i]), " ", 3)
	if len(fields) < 2 {
		return nil, false
	}
	e = &entry{}
	for k, name := range kindNames {
		if fields[0] == name {
			e.kind = k
		}
	}
	ms, err := strconv.ParseInt(fields[1], 10, 64)
	if e.kind == 0 || err != nil || ms <= 0 {
		return nil, false
	}
	e.fetched = time.UnixMilli(ms)
	if len(fields) == 3 {
		e.note = fields[2]
	}
	if e.kind == kindRules {
		e.setText(v[i+1:], agent)
	} else if len(v) > i+1 {
		return nil, false
	}
	return e, true
}

// setText keeps a compact rendering and its parse.
func (e *entry) setText(text []byte, agent string) {
	r := Parse(text)
	e.text = text
	e.group = r.For(agent)
	e.sitemap = r.sitemaps
}

// render writes the part of r that applies to agent as a robots.txt of its
// own: the Content-Signal lines before any group, one '*' group with the
// agent's Crawl-delay, Content-Signal lines and rules, then the Sitemap
// lines. Parsed again, it decides every path as r does for agent.
func render(r *Robots, agent string) []byte {
	g := r.For(agent)
	var b bytes.Buffer
	for _, s := range g.global {
		writeSignal(&b, s)
	}
	b.WriteString("User-agent: *\n")
	if g.delay != "" {
		b.WriteString("Crawl-delay: " + g.delay + "\n")
	}
	for _, s := range g.signals {
		writeSignal(&b, s)
	}
	for _, ru := range g.rules {
		if ru.allow {
			b.WriteString("Allow: ")
		} else {
			b.WriteString("Disallow: ")
		}
		b.WriteString(ru.pattern)
		b.WriteByte('\n')
	}
	for _, s := range r.sitemaps {
		b.WriteString("Sitemap: " + s + "\n")
	}
	return b.Bytes()
}

func writeSignal(b *bytes.Buffer, s signalLine) {
	b.WriteString("Content-Signal: ")
	if s.pattern != "" {
		b.WriteString(s.pattern + " ")
	}
	for i, p := range s.pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p[0] + "=" + p[1])
	}
	b.WriteByte('\n')
}

// oneLine keeps a note on one line.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
