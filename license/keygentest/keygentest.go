// Package keygentest is a stand-in Keygen CE for tests and the bench. It
// answers POST /v1/accounts/{account}/licenses/actions/validate-key as Keygen
// documents: 200 with meta.valid, meta.code and the license in data for good
// and bad keys alike (data null for NOT_FOUND), and can be made to fail like
// an outage: 5xx, a slow answer past the client's timeout, or a refused
// connection.
package keygentest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// License is one key's state in the stand-in.
type License struct {
	Code   string     // VALID, EXPIRED, SUSPENDED, BANNED, NO_MACHINE, …
	Plan   string     // metadata.plan; "" for none
	Expiry *time.Time // attributes.expiry
}

// Outage is how the stand-in fails.
type Outage int

const (
	Up          Outage = iota
	ServerError        // 503 with a JSON:API error body
	Slow               // answers after Delay (longer than the checker's timeout)
	TooMany            // 429
	BadRequest         // 400 (a 4xx other than 408/429: the key is invalid)
)

// Server is the stand-in.
type Server struct {
	Account string
	*httptest.Server

	mu       sync.Mutex
	licenses map[string]License
	outage   Outage
	// Delay is how long a Slow answer takes (default 10 s).
	Delay    time.Duration
	requests atomic.Int64
	closed   atomic.Bool
}

// New starts a stand-in for account with the given keys.
func New(account string, licenses map[string]License) *Server {
	s := &Server{Account: account, licenses: map[string]License{}, Delay: 10 * time.Second}
	for k, v := range licenses {
		s.licenses[k] = v
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Set changes (or adds) a key's state.
func (s *Server) Set(key string, l License) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.licenses[key] = l
}

// SetOutage makes the stand-in fail (or recover with Up).
func (s *Server) SetOutage(o Outage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = o
}

// Requests is how many validate-key requests arrived.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Refuse closes the listener so that connections are refused, keeping the
// URL (the port stays closed; nothing else listens on it in a test).
func (s *Server) Refuse() {
	if s.closed.CompareAndSwap(false, true) {
		s.Server.Listener.Close()
		s.Server.CloseClientConnections()
	}
}

// Restart listens again on the same address after Refuse.
func (s *Server) Restart() error {
	if !s.closed.Load() {
		return nil
	}
	addr := strings.TrimPrefix(s.URL, "http://")
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go srv.Serve(ln)
	s.closed.Store(false)
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	want := "/v1/accounts/" + s.Account + "/licenses/actions/validate-key"
	if r.Method != http.MethodPost || r.URL.Path != want {
		jsonAPIError(w, http.StatusNotFound, "Not found", "NOT_FOUND")
		return
	}
	s.requests.Add(1)
	s.mu.Lock()
	outage, delay := s.outage, s.Delay
	s.mu.Unlock()
	switch outage {
	case ServerError:
		jsonAPIError(w, http.StatusServiceUnavailable, "Service unavailable", "SERVICE_UNAVAILABLE")
		return
	case TooMany:
		w.Header().Set("Retry-After", "60")
		jsonAPIError(w, http.StatusTooManyRequests, "Throttled", "THROTTLED")
		return
	case BadRequest:
		jsonAPIError(w, http.StatusBadRequest, "Bad request", "PARAMETER_INVALID")
		return
	case Slow:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.api+json") && !strings.HasPrefix(ct, "application/json") {
		jsonAPIError(w, http.StatusUnsupportedMediaType, "Unsupported media type", "UNSUPPORTED_MEDIA_TYPE")
		return
	}
	var body struct {
		Meta struct {
			Key string `json:"key"`
		} `json:"meta"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil || body.Meta.Key == "" {
		jsonAPIError(w, http.StatusBadRequest, "Parameter missing", "PARAMETER_MISSING")
		return
	}
	s.mu.Lock()
	l, ok := s.licenses[body.Meta.Key]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/vnd.api+json; charset=utf-8")
	if !ok {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"meta": map[string]any{"ts": time.Now().UTC().Format(time.RFC3339Nano), "valid": false, "detail": "does not exist", "code": "NOT_FOUND"},
			"data": nil,
		})
		return
	}
	valid := l.Code == "VALID"
	status := map[string]string{"VALID": "ACTIVE", "EXPIRED": "EXPIRED", "SUSPENDED": "SUSPENDED", "BANNED": "BANNED"}[l.Code]
	if status == "" {
		status = "ACTIVE"
	}
	meta := map[string]any{}
	if l.Plan != "" {
		meta["plan"] = l.Plan
	}
	attrs := map[string]any{"name": "SurfSense", "key": "(redacted)", "status": status, "metadata": meta, "expiry": nil, "uses": 0, "protected": true}
	if l.Expiry != nil {
		attrs["expiry"] = l.Expiry.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"meta": map[string]any{"ts": time.Now().UTC().Format(time.RFC3339Nano), "valid": valid, "detail": detail(l.Code), "code": l.Code},
		"data": map[string]any{"id": fmt.Sprintf("lic-%d", len(body.Meta.Key)), "type": "licenses", "attributes": attrs},
	})
}

func detail(code string) string {
	switch code {
	case "VALID":
		return "is valid"
	case "EXPIRED":
		return "is expired"
	case "SUSPENDED":
		return "is suspended"
	case "BANNED":
		return "is banned"
	case "NO_MACHINE":
		return "must have exactly 1 associated machine"
	default:
		return strings.ToLower(code)
	}
}

func jsonAPIError(w http.ResponseWriter, status int, title, code string) {
	w.Header().Set("Content-Type", "application/vnd.api+json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"title": title, "detail": title, "code": code}}})
}
