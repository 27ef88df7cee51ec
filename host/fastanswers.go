package host

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fast answers: most of the host's requests are initialize (server/discover
// from 2026-07-28 on), tools/list and ping, and a stateless server's answer
// to them depends only on the plugin, the server picked (text-only or not),
// the answer's form (event stream or JSON), the MCP-Protocol-Version header
// and, for initialize, the version asked. Each such answer is built once, by
// the SDK itself answering a canonical request of that shape, and then
// served with the request's id put in, without the SDK's per-request session.
//
// Only requests whose every part the SDK reads is known to lead to that same
// answer take this path (fastShape); anything else (a cursor, an unknown
// member, a version the host does not list, a header the SDK would refuse,
// an id the SDK would spell differently) goes to the SDK as before. The
// license check, rate limits, metrics, traces and the request's log line run
// before, in the MCP route's steps (mcpRoute), exactly as for any request.
// TestFastAnswersMatchTheSDK sends a corpus of shapes to both paths and
// requires the same bytes.

// fastAnswerID is the id of the canonical requests: its JSON text is found
// once in the SDK's answer and replaced by the request's id.
const fastAnswerID = `"pluginhost-fast-answer-0b7c"`

// newProtocol is the first protocol version whose requests carry their
// version, client info and capabilities in _meta (SEP-2575).
const newProtocol = "2026-07-28"

// The _meta members of the new protocol the SDK reads.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// fastKey is everything a fast answer depends on. Each part is checked
// against a fixed set, so there are at most a few hundred per plugin.
type fastKey struct {
	textOnly bool
	jsonOnly bool
	method   string
	header   string // MCP-Protocol-Version, "" when absent
	version  string // initialize's protocolVersion
}

// fastAnswer is the SDK's answer to one shape, split around its id.
type fastAnswer struct {
	once   sync.Once
	ok     bool // false: the SDK's answer could not be reused; the SDK answers
	status int
	header http.Header
	head   []byte // the body before the id
	tail   []byte // the body after it
}

// fastAnswers holds a plugin's fast answers, built as their shapes come.
type fastAnswers struct {
	s        *mcpServers
	answers  sync.Map // fastKey → *fastAnswer
	versions []string // the protocol versions the SDK negotiates
	served   atomic.Int64
	off      *atomic.Bool // the host's switch (tests compare with the SDK)
}

func newFastAnswers(s *mcpServers, off *atomic.Bool) *fastAnswers {
	return &fastAnswers{s: s, versions: mcp.SupportedProtocolVersions(), off: off}
}

// serve answers r from a built answer and reports whether it did; false
// leaves the request untouched for the SDK.
func (f *fastAnswers) serve(w http.ResponseWriter, r *http.Request, msg *rpcMessage, textOnly bool) bool {
	if f.off.Load() {
		return false
	}
	key, ok := f.shape(r, msg)
	if !ok {
		return false
	}
	key.textOnly, key.jsonOnly = textOnly, msg.JSONOnly
	v, ok := f.answers.Load(key)
	if !ok {
		v, _ = f.answers.LoadOrStore(key, &fastAnswer{})
	}
	a := v.(*fastAnswer)
	a.once.Do(func() { f.build(key, a) })
	if !a.ok {
		return false
	}
	h := w.Header()
	for k, vs := range a.header {
		h[k] = vs[:len(vs):len(vs)] // an Add appends to a copy, never to the shared answer
	}
	// The whole length is known: no chunked framing. Three writes into the
	// connection's buffer rather than a copy of the answer per request.
	h["Content-Length"] = []string{strconv.Itoa(len(a.head) + len(msg.ID) + len(a.tail))}
	f.served.Add(1) // before the answer: a client that has it sees it counted
	w.WriteHeader(a.status)
	if _, err := w.Write(a.head); err == nil {
		if _, err = w.Write(msg.ID); err == nil {
			_, _ = w.Write(a.tail)
		}
	}
	return true
}

// shape says whether the request is one whose answer is known from its key
// alone, and its key (without the server and form, which serve adds).
func (f *fastAnswers) shape(r *http.Request, msg *rpcMessage) (fastKey, bool) {
	var key fastKey
	switch msg.Method {
	case "initialize", "server/discover", "tools/list", "ping", "notifications/initialized":
	default:
		return key, false
	}
	if msg.ID != nil && !plainID(msg.ID) {
		return key, false // the SDK would write it back spelled otherwise
	}
	hv, newProto, ok := f.knownHeaders(r, msg.Method)
	if !ok {
		return key, false
	}
	key.method, key.header = msg.Method, hv
	params, ok := uniqueMembers(msg.Params)
	if !ok {
		return key, false
	}
	switch msg.Method {
	case "notifications/initialized":
		// Notifications are answered 202 before they are read; only an
		// empty one is taken, in the protocols where it is one.
		return key, !newProto && len(params) == 0
	case "initialize":
		if newProto || !onlyMembers(params, "protocolVersion", "capabilities", "clientInfo", "_meta") {
			return key, false
		}
		var v string
		if json.Unmarshal(params["protocolVersion"], &v) != nil || v >= newProtocol || !slices.Contains(f.versions, v) {
			return key, false
		}
		var caps mcp.ClientCapabilities
		var info mcp.Implementation
		if !decodesObject(params["capabilities"], &caps) || !decodesObject(params["clientInfo"], &info) {
			return key, false
		}
		key.version = v
	case "server/discover", "tools/list", "ping":
		// A cursor (tools/list) is the SDK's to read.
		if !onlyMembers(params, "_meta") || (msg.Method == "server/discover" && !newProto) {
			return key, false
		}
	}
	_, ok = metaAgrees(params["_meta"], hv, newProto)
	return key, ok
}

// knownHeaders checks the headers the SDK reads of any request: no
// Last-Event-ID (refused on a POST), a protocol version it negotiates (or
// none), from 2026-07-28 on an Mcp-Method naming the method, and a Host its
// DNS-rebinding guard lets through. It returns the version and whether it
// is 2026-07-28's protocol or later.
func (f *fastAnswers) knownHeaders(r *http.Request, method string) (string, bool, bool) {
	if len(r.Header.Values("Last-Event-ID")) > 0 || !sdkHostAllowed(r) {
		return "", false, false
	}
	hv := r.Header.Get("MCP-Protocol-Version")
	if hv != "" && !slices.Contains(f.versions, hv) {
		return "", false, false
	}
	newProto := hv >= newProtocol
	if newProto && r.Header.Get("Mcp-Method") != method {
		return "", false, false // the SDK answers a missing or other Mcp-Method with an error
	}
	return hv, newProto, true
}

// metaAgrees checks _meta as the SDK reads it. Before 2026-07-28 it must not
// carry a protocol version (the SDK would then check it against the header);
// from 2026-07-28 on it must carry the header's version, client capabilities
// the SDK can read, and client info it can read when present. It returns
// _meta's members when it agrees.
func metaAgrees(raw json.RawMessage, header string, newProto bool) (map[string]json.RawMessage, bool) {
	if raw == nil {
		return nil, !newProto
	}
	meta, ok := uniqueMembers(raw)
	if !ok || meta == nil {
		return nil, false
	}
	pv, has := meta[metaProtocolVersion]
	if !newProto {
		return meta, !has
	}
	var v string
	if !has || json.Unmarshal(pv, &v) != nil || v != header {
		return nil, false
	}
	var caps clientCapabilitiesV2
	if !decodesObject(meta[metaClientCapabilities], &caps) {
		return nil, false
	}
	if ci, ok := meta[metaClientInfo]; ok {
		var info mcp.Implementation
		if !decodesObject(ci, &info) {
			return nil, false
		}
	}
	return meta, true
}

// clientCapabilitiesV2 is how the SDK reads the client capabilities of
// 2026-07-28's _meta (mcp.clientCapabilitiesV2).
type clientCapabilitiesV2 struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// uniqueMembers reads a JSON object's members, refusing a member named
// twice (which decoders read differently). A nil raw is no members.
func uniqueMembers(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if raw == nil {
		return nil, true
	}
	all, err := scanMembers(raw)
	if err != nil {
		return nil, false
	}
	members := make(map[string]json.RawMessage, len(all))
	for _, m := range all {
		if _, dup := members[m.Name]; dup {
			return nil, false
		}
		members[m.Name] = m.Value
	}
	return members, true
}

// onlyMembers reports whether every member is one of names.
func onlyMembers(m map[string]json.RawMessage, names ...string) bool {
	for k := range m {
		if !slices.Contains(names, k) {
			return false
		}
	}
	return true
}

// decodesObject reports whether raw is a JSON object that decodes into v.
// encoding/json matches member names regardless of case where the SDK does
// not, so it refuses more than the SDK does, never less.
func decodesObject(raw json.RawMessage, v any) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	if _, ok := uniqueMembers(raw); !ok {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// plainID reports whether the SDK writes the id back exactly as it came:
// an integer without a sign or leading zero, of at most 15 digits (the SDK
// reads numbers as float64: past 2^53 it writes back another number), or a
// short string of characters JSON and the SDK never escape.
func plainID(id json.RawMessage) bool {
	if id[0] == '"' {
		if len(id) < 2 || len(id) > 66 || id[len(id)-1] != '"' {
			return false
		}
		for _, c := range id[1 : len(id)-1] {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:", c) >= 0) {
				return false
			}
		}
		return true
	}
	if len(id) > 15 || (len(id) > 1 && id[0] == '0') {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sdkHostAllowed mirrors the SDK's DNS-rebinding guard: a request reaching
// a loopback address must name a loopback host.
func sdkHostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil {
		return true
	}
	return !isLoopback(la.String()) || isLoopback(r.Host)
}

func isLoopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		h = strings.Trim(addr, "[]")
	}
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// build asks the SDK the canonical request of key's shape and keeps its
// answer when it is a success that names the id once.
func (f *fastAnswers) build(key fastKey, a *fastAnswer) {
	params := ""
	switch {
	case key.method == "initialize":
		params = `{"protocolVersion":"` + key.version + `","capabilities":{},"clientInfo":{"name":"pluginhost","version":"0"}}`
	case key.header >= newProtocol:
		params = `{"_meta":{"` + metaProtocolVersion + `":"` + key.header + `","` + metaClientCapabilities + `":{}}}`
	}
	body := `{"jsonrpc":"2.0","method":"` + key.method + `"`
	if key.method != "notifications/initialized" {
		body += `,"id":` + fastAnswerID
	}
	if params != "" {
		body += `,"params":` + params
	}
	body += "}"
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key.header != "" {
		req.Header.Set("MCP-Protocol-Version", key.header)
	}
	if key.header >= newProtocol {
		req.Header.Set("Mcp-Method", key.method)
	}
	if key.textOnly {
		req.Header.Set("x-surfsense-text-only", "1")
	}
	rec := httptest.NewRecorder()
	if key.jsonOnly {
		f.s.json.ServeHTTP(rec, req)
	} else {
		f.s.stream.ServeHTTP(rec, req)
	}
	out := rec.Body.Bytes()
	a.status, a.header = rec.Code, rec.Header().Clone()
	a.header.Del("Content-Length")
	if key.method == "notifications/initialized" {
		a.ok = rec.Code == http.StatusAccepted && len(out) == 0
		return
	}
	if rec.Code != http.StatusOK || bytes.Count(out, []byte(fastAnswerID)) != 1 {
		return
	}
	i := bytes.Index(out, []byte(fastAnswerID))
	a.head, a.tail = slices.Clone(out[:i]), slices.Clone(out[i+len(fastAnswerID):])
	a.ok = true
}
