package oauthpage

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

const brokenHeading = "This sign-in link is broken"
const brokenAdvice = "go back to SurfSense and start the sign-in again"

// checkForward fails t unless resp forwards to 127.0.0.1:port with rawQuery
// byte for byte.
func checkForward(t *testing.T, resp *http.Response, port int, rawQuery string) {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303; body:\n%s", resp.StatusCode, readBody(t, resp))
	}
	checkSecurityHeaders(t, resp, "no-store")
	loc := resp.Header.Get("Location")
	want := fmt.Sprintf("http://127.0.0.1:%d/plugins/oauth/callback?%s", port, rawQuery)
	if loc != want {
		t.Fatalf("Location\n got %q\nwant %q", loc, want)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q does not parse: %v", loc, err)
	}
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() != fmt.Sprint(port) || u.Path != AppCallbackPath || u.RawQuery != rawQuery || u.Fragment != "" || u.User != nil {
		t.Fatalf("Location %q parses as %#v", loc, u)
	}
}

// checkBroken fails t unless resp is the 400 page.
func checkBroken(t *testing.T, resp *http.Response) string {
	t.Helper()
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400 (Location %q)", resp.StatusCode, resp.Header.Get("Location"))
	}
	checkSecurityHeaders(t, resp, "no-store")
	if loc := resp.Header.Get("Location"); loc != "" {
		t.Errorf("a refusal has Location %q", loc)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if !strings.Contains(body, brokenHeading) || !strings.Contains(body, brokenAdvice) {
		t.Errorf("the page does not say the link is broken and what to do:\n%s", body)
	}
	return body
}

func TestCallbackForwards(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
		port  int
	}{
		{"code and state", "code=SplxlOBeZQQYbYS6WxSbIA&state=8000.bW9ja19ub25jZQ", 8000},
		{"state first", "state=65535.x&code=abc", 65535},
		{"lowest port", "code=c&state=1024.n", 1024},
		{"iss too", "code=c&state=49152.Zz-_&iss=https%3A%2F%2Fauth.example.com", 49152},
		{"provider error", "error=access_denied&error_description=The+user+denied+the+request%21&state=8000.n0nce", 8000},
		{"error with uri", "error=invalid_scope&error_description=Scope%20%22admin%22%20is%20not%20allowed&error_uri=https%3A%2F%2Fauth.example%2Ferr&state=8000.a", 8000},
		{"error only state", "error=server_error&state=3000.abc", 3000},
		{"odd but valid bytes", "code=a~b*c!d$e'f(g)h,i:j@k/l?m=n&state=8000.q&empty=&flag", 8000},
		{"escapes kept", "code=%41%2b%2B+%20&state=8000.n", 8000},
		{"encoded state key", "code=a&%73tate=8000.n", 8000},
		{"encoded state value", "code=a&state=8000%2En%5F", 8000},
		{"semicolon elsewhere", "code=a;b&state=8000.n", 8000},
		{"empty fields", "&&code=a&&state=8000.n&&", 8000},
		{"broken escape elsewhere", "code=%zz&state=8000.n", 8000},
		{"state-like keys", "xstate=1.a&states=2.b&state_=3&state=8000.n", 8000},
		{"long code", "code=" + strings.Repeat("A", 4000) + "&state=8000.n", 8000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r, _ := newTestPages(t, nil)
			resp := get(r, CallbackPath, tc.query)
			checkForward(t, resp, tc.port, tc.query)
			body := readBody(t, resp)
			if !strings.Contains(body, `href="http://127.0.0.1:`) {
				t.Errorf("the 303 body has no fallback link:\n%s", body)
			}
		})
	}
}

// refusedQueries are raw queries the callback must answer with the 400 page.
func refusedQueries() []struct{ name, query string } {
	qs := []struct{ name, query string }{
		{"empty query", ""},
		{"no state", "code=abc"},
		{"state without value", "code=abc&state"},
		{"state empty", "code=abc&state="},
		{"state twice", "code=a&state=8000.x&state=8000.x"},
		{"state twice different", "state=8000.x&code=a&state=9000.y"},
		{"state twice encoded key", "state=8000.x&%73tate=9000.y"},
		{"state twice plus key", "state=8000.x&%73%74%61%74%65=9000.y"},
		{"state hidden after semicolon", "code=a;state=9000.y&state=8000.x"},
		{"state only after semicolon", "code=a;state=9000.y"},
		{"state with semicolon", "state=8000.x;y"},
		{"plus sign raw", "state=+8000.x"},
		{"plus sign encoded", "state=%2B8000.x"},
		{"minus sign", "state=-8000.x"},
		{"exponent", "state=1e4.x"},
		{"space encoded", "state=8000.x%20"},
		{"leading space encoded", "state=%208000.x"},
		{"trailing plus space", "state=8000.x+"},
		{"at raw", "state=8000.x@evil.example"},
		{"at encoded", "state=8000.x%40evil.example"},
		{"slash raw", "state=8000.a/b"},
		{"slash encoded", "state=8000.a%2Fb"},
		{"less-than encoded", "state=8000.%3Cscript%3Ealert(1)%3C%2Fscript%3E"},
		{"less-than double encoded", "state=8000.%253Cscript"},
		{"dot encoded twice", "state=8000%252Ex"},
		{"broken escape", "state=8000.ab%zz"},
		{"truncated escape", "state=8000.ab%4"},
		{"nul encoded", "state=8000.ab%00"},
		{"newline encoded", "state=8000.ab%0d%0aLocation:%20http://evil"},
		{"unicode digits encoded", "state=%D9%A8%D9%A0%D9%A0%D9%A0.x"},
		{"fullwidth digits encoded", "state=%EF%BC%98%EF%BC%90%EF%BC%90%EF%BC%90.x"},
		{"host in state", "state=evil.example"},
		{"ip in state", "state=127.0.0.1"},
		{"port only", "state=8000"},
		{"port and dot", "state=8000."},
		{"long nonce", "state=8000." + strings.Repeat("n", MaxNonceLen+1)},
		{"very long state", "state=8000." + strings.Repeat("n", 7000)},
		{"query too long", "code=" + strings.Repeat("A", MaxQueryLen) + "&state=8000.n"},
		{"fragment", "code=a#b&state=8000.n"},
		{"fragment in state", "state=8000.n#x"},
		{"raw space", "code=a b&state=8000.n"},
		{"raw tab", "code=a\tb&state=8000.n"},
		{"raw newline", "code=a\r\nLocation: http://evil&state=8000.n"},
		{"raw non-ascii", "code=é&state=8000.n"},
		{"raw DEL", "code=\x7f&state=8000.n"},
	}
	for _, s := range malformedStates {
		if len(s.in) < 2000 {
			qs = append(qs, struct{ name, query string }{"encoded " + s.name, "code=abc&state=" + url.QueryEscape(s.in)})
		}
	}
	return qs
}

func TestCallbackRefuses(t *testing.T) {
	for _, tc := range refusedQueries() {
		t.Run(tc.name, func(t *testing.T) {
			seen := &countingSeen{}
			_, r, _ := newTestPages(t, seen)
			body := checkBroken(t, get(r, CallbackPath, tc.query))
			if got := seen.calls(); len(got) != 0 {
				t.Errorf("a refused state was recorded as used: %q", got)
			}
			for _, bad := range []string{"<script", "evil", "alert(", "Location:"} {
				if strings.Contains(body, bad) {
					t.Errorf("the page repeats input %q:\n%s", bad, body)
				}
			}
		})
	}
}

func TestCallbackRepeatedState(t *testing.T) {
	_, r, _ := newTestPages(t, nil)
	q := "code=first&state=8000.abc"
	checkForward(t, get(r, CallbackPath, q), 8000, q)

	for _, again := range []string{
		q,                            // the same link
		"code=second&state=8000.abc", // another code with the used state
		"state=8000.abc",             // a provider error for it
		"code=x&state=8000%2Eabc",    // the same state, %-encoded
		"code=x&state=8000.%61bc",    // ditto
	} {
		body := checkBroken(t, get(r, CallbackPath, again))
		if !strings.Contains(body, "already used") {
			t.Errorf("%q: the page does not say the link was used:\n%s", again, body)
		}
	}
	// Another nonce, or the same nonce for another port, is another state.
	checkForward(t, get(r, CallbackPath, "code=x&state=8000.abd"), 8000, "code=x&state=8000.abd")
	checkForward(t, get(r, CallbackPath, "code=x&state=8001.abc"), 8001, "code=x&state=8001.abc")
}

func TestCallbackHeadDoesNotUseState(t *testing.T) {
	_, r, _ := newTestPages(t, nil)
	q := "code=a&state=8000.abc"
	for _, m := range []string{http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		resp := do(r, m, CallbackPath, q, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
			t.Errorf("%s: status %d, Allow %q; want 405, GET", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
		checkSecurityHeaders(t, resp, "no-store")
	}
	checkForward(t, get(r, CallbackPath, q), 8000, q)
}

func TestCallbackStoreErrorForwards(t *testing.T) {
	seen := &countingSeen{err: errors.New("redis: connection refused")}
	_, r, logs := newTestPages(t, seen)
	q := "code=a&state=8000.abc"
	checkForward(t, get(r, CallbackPath, q), 8000, q)
	if got := seen.calls(); len(got) != 1 || got[0] != "8000.abc" {
		t.Errorf("store asked %q, want [8000.abc]", got)
	}
	if !strings.Contains(logs.String(), "forwarding anyway") || !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the store's failure was not logged:\n%s", logs)
	}
}

func TestCallbackLogsNoQuery(t *testing.T) {
	_, r, logs := newTestPages(t, nil)
	checkBroken(t, get(r, CallbackPath, "code=SECRETCODE42&state=80.NONCE42"))
	q := "code=SECRETCODE42&state=8000.NONCE42"
	checkForward(t, get(r, CallbackPath, q), 8000, q)
	checkBroken(t, get(r, CallbackPath, q))
	out := logs.String()
	if !strings.Contains(out, "oauth callback refused") {
		t.Errorf("refusals are not logged:\n%s", out)
	}
	for _, secret := range []string{"SECRETCODE42", "NONCE42"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds %q:\n%s", secret, out)
		}
	}
}

// TestCallbackStyleHash checks that the CSP's hash is the hash of the style
// sheet the page really carries, so browsers apply it.
func TestCallbackStyleHash(t *testing.T) {
	_, r, _ := newTestPages(t, nil)
	for _, q := range []string{"state=1.x", "code=a&state=8000.x"} {
		resp := get(r, CallbackPath, q)
		body := readBody(t, resp)
		m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(body, -1)
		if len(m) != 1 {
			t.Fatalf("%q: want one style element, got %d", q, len(m))
		}
		sum := sha256.Sum256([]byte(m[0][1]))
		src := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src "+src) {
			t.Errorf("%q: CSP %q does not allow the page's style %s", q, csp, src)
		}
		if strings.Contains(body, "<script") || strings.Contains(body, " style=") {
			t.Errorf("%q: the page has a script or an inline style attribute", q)
		}
	}
}

// TestCallbackFallbackLinkEscaped checks the 303 body's link is escaped.
func TestCallbackFallbackLinkEscaped(t *testing.T) {
	_, r, _ := newTestPages(t, nil)
	q := `code="><script>x</script>&state=8000.n`
	resp := get(r, CallbackPath, q)
	checkForward(t, resp, 8000, q)
	body := readBody(t, resp)
	if strings.Contains(body, "<script>") || strings.Contains(body, `"><`) {
		t.Errorf("the 303 body holds the query unescaped:\n%s", body)
	}
}

// TestCallbackOverTCP sends request lines a browser would not, through a real
// server, to show that Go's server passes them to the page and the page
// refuses them.
func TestCallbackOverTCP(t *testing.T) {
	_, r, _ := newTestPages(t, nil)
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, target := range []string{
		"/oauth/callback?code=a#frag&state=8000.n1",
		"/oauth/callback?code=\xc3\xa9&state=8000.n2",
		"/oauth/callback?state=8000.n3&state=8000.n3",
	} {
		resp := rawGet(t, srv.Listener.Addr().String(), target)
		checkBroken(t, resp)
	}
	q := "code=a'b&state=8000.n4"
	checkForward(t, rawGet(t, srv.Listener.Addr().String(), "/oauth/callback?"+q), 8000, q)
}

func rawGet(t *testing.T, addr, target string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	return resp
}

// brokenPages are every 400 page the callback can answer.
func brokenPages(t testing.TB) map[string]bool {
	pages := map[string]bool{}
	for _, err := range []error{ErrStateUsed, ErrStateMissing, ErrStateRepeated, ErrQueryBytes, ErrPortRange} {
		b, rerr := render(brokenTemplate, brokenData{Title: "This sign-in link is broken", Why: whyText(err)})
		if rerr != nil {
			t.Fatal(rerr)
		}
		pages[string(b)] = true
	}
	return pages
}

// FuzzCallback checks the callback on any query: it answers 303 to
// 127.0.0.1 on a valid port with the query unchanged, or one of its fixed 400
// pages, and never anything else.
func FuzzCallback(f *testing.F) {
	for _, tc := range refusedQueries() {
		if len(tc.query) < 1000 {
			f.Add(tc.query)
		}
	}
	for _, q := range []string{"code=a&state=8000.x", "error=access_denied&state=1024.y", "%73tate=8000.x", "state=8000%2Ex&a;b"} {
		f.Add(q)
	}
	pages := brokenPages(f)
	f.Fuzz(func(t *testing.T, q string) {
		_, r, _ := newTestPages(t, nil)
		resp := get(r, CallbackPath, q)
		body := readBody(t, resp)
		checkSecurityHeaders(t, resp, "no-store")
		switch resp.StatusCode {
		case http.StatusSeeOther:
			loc := resp.Header.Get("Location")
			u, err := url.Parse(loc)
			if err != nil {
				t.Fatalf("Location %q: %v", loc, err)
			}
			if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Path != AppCallbackPath || u.RawQuery != q || u.Fragment != "" {
				t.Fatalf("query %q forwarded to %q", q, loc)
			}
			if loc != "http://127.0.0.1:"+u.Port()+AppCallbackPath+"?"+q {
				t.Fatalf("query %q forwarded to %q", q, loc)
			}
			// The app's parser must see the same one state.
			vals, _ := url.ParseQuery(strings.ReplaceAll(q, ";", "&"))
			if states := vals["state"]; len(states) != 1 {
				t.Fatalf("query %q forwarded with states %q", q, states)
			} else if s, err := ParseState(states[0]); err != nil || fmt.Sprint(s.Port) != u.Port() {
				t.Fatalf("query %q forwarded to port %s with state %q (%v)", q, u.Port(), states[0], err)
			}
		case http.StatusBadRequest:
			if !pages[body] {
				t.Fatalf("query %q: the 400 body is not one of the fixed pages:\n%s", q, body)
			}
		default:
			t.Fatalf("query %q: status %d", q, resp.StatusCode)
		}
	})
}
