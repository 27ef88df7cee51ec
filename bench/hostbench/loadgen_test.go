package hostbench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadAnswer reads answers as servers write them: a Content-Length body,
// a chunked body with chunk extensions and trailers, an interim 100
// Continue, and several answers back to back on one connection.
func TestReadAnswer(t *testing.T) {
	wire := "HTTP/1.1 100 Continue\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 13\r\n\r\n{\"tools\":[1]}" +
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"7;ext=1\r\nevent: \r\n" + "1a\r\nmessage\ndata: {\"tools\":[]}\r\n" + "0\r\nX-Trailer: 1\r\n\r\n" +
		"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\nConnection: close\r\n\r\noops" +
		"HTTP/1.0 200 OK\r\n\r\nto the end"
	br := bufio.NewReader(strings.NewReader(wire))
	want := []answer{
		{Status: 200, Body: []byte(`{"tools":[1]}`), KeepAlive: true},
		{Status: 200, Body: []byte("event: message\ndata: {\"tools\":[]}"), KeepAlive: true},
		{Status: 500, Body: []byte("oops"), KeepAlive: false},
		{Status: 200, Body: []byte("to the end"), KeepAlive: false},
	}
	for i, w := range want {
		a, err := readAnswer(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if a.Status != w.Status || string(a.Body) != string(w.Body) || a.KeepAlive != w.KeepAlive {
			t.Errorf("answer %d: status %d keep-alive %v body %q, want %d %v %q", i, a.Status, a.KeepAlive, a.Body, w.Status, w.KeepAlive, w.Body)
		}
	}
	if _, err := readAnswer(br, nil); err != io.EOF {
		t.Errorf("after the last answer: %v, want EOF", err)
	}
}

// TestReadAnswerRefusesMalformed: broken or oversized answers are errors,
// never a body read wrong.
func TestReadAnswerRefusesMalformed(t *testing.T) {
	for name, wire := range map[string]string{
		"no status":        "HTTP/1.1\r\n\r\n",
		"not http":         "SSH-2.0-OpenSSH\r\n\r\n",
		"bad length":       "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
		"short body":       "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
		"bad chunk size":   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
		"chunk overruns":   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
		"unended chunks":   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
		"header no colon":  "HTTP/1.1 200 OK\r\nbroken\r\n\r\n",
		"over the bound":   "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(maxAnswerBytes+1) + "\r\n\r\n",
		"huge chunk":       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n",
		"line over buffer": "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n",
	} {
		if a, err := readAnswer(bufio.NewReaderSize(strings.NewReader(wire), 4096), nil); err == nil {
			t.Errorf("%s: read as status %d body %q", name, a.Status, a.Body)
		}
	}
}

// FuzzReadAnswer: no input panics or reads past its bound.
func FuzzReadAnswer(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x\r\nok\r\n0\r\nT: 1\r\n\r\n")
	f.Add("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nrest")
	f.Fuzz(func(t *testing.T, wire string) {
		a, err := readAnswer(bufio.NewReaderSize(strings.NewReader(wire), 4096), nil)
		if err == nil && len(a.Body) > len(wire) {
			t.Fatalf("a body of %d bytes from %d bytes on the wire", len(a.Body), len(wire))
		}
	})
}

// TestLoadCountsAnswers drives a real net/http server that answers some
// requests with a Content-Length body, some chunked (flushed in pieces, as
// an SSE answer is), some with 500, some with a body lacking the expected
// result, and closes the connection after some: the load generator counts
// exactly the good answers as calls and the others as errors, and goes on
// over new connections.
func TestLoadCountsAnswers(t *testing.T) {
	var n, bad, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"method":"tools/list"}` {
			bad.Add(1)
			http.Error(w, "wrong request body "+string(body), http.StatusBadRequest)
			return
		}
		i := n.Add(1)
		switch i % 7 {
		case 0:
			bad.Add(1)
			http.Error(w, "sometimes failing", http.StatusInternalServerError)
		case 1:
			bad.Add(1)
			io.WriteString(w, `{"error":{"code":-32601}}`) // 200, but not the result
		case 2:
			w.Header().Set("Connection", "close")
			io.WriteString(w, `{"result":{"tools":[]}}`)
		case 3, 4:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"result\":")
			w.(http.Flusher).Flush()
			io.WriteString(w, `{"tools":[`+strings.Repeat(`{"name":"t"},`, 500)+`{"name":"t"}]}}`+"\n\n")
		default:
			b := `{"result":{"tools":[{"name":"t"}]}}`
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			io.WriteString(w, b)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	l := Load{
		Addr:        addr,
		Request:     PostRequest(addr, "/mcp", [][2]string{{"Content-Type", "application/json"}}, `{"method":"tools/list"}`),
		Expect:      []string{`"tools":[`},
		Connections: 4, Requests: 50,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := int64(l.Connections * l.Requests)
	if n.Load() != total {
		t.Fatalf("the server saw %d requests, want %d", n.Load(), total)
	}
	if len(res.Latencies)+res.Errors != int(total) || int64(res.Errors) != bad.Load() {
		t.Errorf("%d calls + %d errors, want %d requests of which %d answered badly", len(res.Latencies), res.Errors, total, bad.Load())
	}
	if c := conns.Load(); c <= int64(l.Connections) {
		t.Errorf("%d connections: the answers with Connection: close were not followed by a new one", c)
	}
	if res.BodyBytes == 0 || res.FirstError == "" {
		t.Errorf("body bytes %d, first error %q", res.BodyBytes, res.FirstError)
	}
	for _, d := range res.Latencies {
		if d <= 0 {
			t.Fatalf("a latency of %s", d)
		}
	}
	t.Logf("%d calls, %d errors (first: %s), %d connections", len(res.Latencies), res.Errors, res.FirstError, conns.Load())
}

// TestLoadWarmupNotCounted: with every fourth answer a 500, the errors are
// the 500s of the measured requests; the warm-up's are not counted.
func TestLoadWarmupNotCounted(t *testing.T) {
	var n, failed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			failed.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"result":{"tools":[]}}`) // the right body, the wrong status
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: ")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, `{"result":{"tools":[]}}`+"\n\n")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	res, err := Load{Addr: addr, Request: PostRequest(addr, "/", nil, "{}"), Expect: []string{`"tools"`}, Connections: 3, Requests: 40, Warmup: 2}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 126 requests, 31 of them failed; at most 6 of those were warm-up.
	if n.Load() != 126 || failed.Load() != 31 || len(res.Latencies)+res.Errors != 120 || res.Errors > 31 || res.Errors < 31-6 {
		t.Errorf("%d calls %d errors, the server failed %d of %d", len(res.Latencies), res.Errors, failed.Load(), n.Load())
	}
}
