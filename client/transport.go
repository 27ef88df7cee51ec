package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxRefusalBody bounds how much of a refusal's body is read for its reason.
const maxRefusalBody = 64 << 10

// listingTransport adds a listing's headers to the requests the MCP SDK
// makes and records what the SDK's errors do not keep: the HTTP status and
// body of the last refusal, whether the server forgot the session, and the
// last network error.
type listingTransport struct {
	ctx    context.Context // the listing's: errors after it is done are not the server's
	base   http.RoundTripper
	origin string      // scheme://host of the server: headers go only there
	header http.Header // added to every request to origin

	mu        sync.Mutex
	refusal   *RefusalError
	forgotten bool  // a request with Mcp-Session-Id was answered 404
	netErr    error // the last error reaching the server or reading its answer
}

func (t *listingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if originOf(r.URL.Scheme, r.URL.Host) == t.origin {
		// Only the server's own origin gets the credential: a redirect
		// elsewhere is sent nothing of it.
		for k, vs := range t.header {
			r.Header[k] = append([]string(nil), vs...)
		}
	} else {
		r.Header.Del(HeaderAuthorization)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		if t.ctx.Err() == nil {
			t.mu.Lock()
			t.netErr = err
			t.mu.Unlock()
		}
		return nil, err
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, t: t}
	if req.Method != http.MethodPost || (resp.StatusCode >= 200 && resp.StatusCode < 300) {
		return resp, nil
	}
	// A refusal: keep its status and reason, and give the SDK the same body.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	ref := &RefusalError{
		StatusCode:      resp.StatusCode,
		WWWAuthenticate: resp.Header.Values("WWW-Authenticate"),
		RetryAfter:      resp.Header.Get("Retry-After"),
	}
	ref.Reason, ref.Message = refusalBody(body)
	t.mu.Lock()
	t.refusal = ref
	if resp.StatusCode == http.StatusNotFound && req.Header.Get("Mcp-Session-Id") != "" {
		t.forgotten = true
	}
	t.mu.Unlock()
	return resp, nil
}

// watchedBody records an error reading an answer, such as a stream cut.
type watchedBody struct {
	io.ReadCloser
	t *listingTransport
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.t.ctx.Err() == nil {
		b.t.mu.Lock()
		b.t.netErr = err
		b.t.mu.Unlock()
	}
	return n, err
}

func (t *listingTransport) state() (ref *RefusalError, forgotten bool, netErr error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusal, t.forgotten, t.netErr
}

// refusalBody reads a refusal body's "reason" and "message" (contract 2).
// A body that is not a JSON object, or whose fields are not strings, has
// none.
func refusalBody(body []byte) (reason, message string) {
	var v struct {
		Reason  any `json:"reason"`
		Message any `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", ""
	}
	if s, ok := v.Reason.(string); ok {
		reason = cleanText(s, 100)
	}
	if s, ok := v.Message.(string); ok {
		message = cleanText(s, 300)
	}
	return reason, message
}

// cleanText keeps at most n runes of s, without control characters, so a
// server's text can be shown or logged safely.
func cleanText(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if n == 0 {
			break
		}
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			continue
		}
		b.WriteRune(r)
		n--
	}
	return b.String()
}

func originOf(scheme, host string) string {
	scheme = strings.ToLower(scheme)
	return scheme + "://" + canonicalHost(scheme, host)
}
