package hostbench

// A light HTTP/1.1 load generator, in the manner of wrk: keep-alive
// connections over raw TCP, each sending one pre-built request after
// another and reading the answer with a bufio.Reader (status line, headers,
// a Content-Length or chunked body). The net/http client costs about as much
// CPU per request as the servers measured here, which on a 2-core machine
// would measure the client; this costs a small fraction of it.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// maxAnswerBytes bounds one answer's body; a larger one is an error.
const maxAnswerBytes = 16 << 20

// requestTimeout bounds one request, from writing it to the end of its
// answer; a server that stops answering costs a connection this long, not
// the whole run.
const requestTimeout = 30 * time.Second

// Load is one load run against one address.
type Load struct {
	Addr    string // host:port
	Request []byte // one whole request (see PostRequest), sent again and again
	// Expect are strings every good answer's body contains; an answer
	// without one of them, or with a status other than 200, is an error.
	Expect      []string
	Connections int           // keep-alive connections, each with one request at a time [32]
	Duration    time.Duration // how long to send, when Requests is 0 [2s]
	Requests    int           // requests per connection; 0 sends for Duration
	Warmup      int           // requests per connection before measuring (not counted)
}

// LoadResult is what a load run measured: latency of the good answers,
// the errors, and the size of the last good answer's body.
type LoadResult struct {
	Latencies  []time.Duration
	Errors     int
	Elapsed    time.Duration
	BodyBytes  int
	FirstError string // the first error seen, for the report
}

// Stats summarises r.
func (r LoadResult) Stats() Stats { return summarise(r.Latencies, r.Errors, r.Elapsed) }

// PostRequest builds a POST of body to path on addr with the given headers
// (name, value pairs) and a Content-Length.
func PostRequest(addr, path string, headers [][2]string, body string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", path, addr)
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return b.Bytes()
}

// Run sends l's load and waits for every connection to finish. An error is
// returned only when no connection could be opened or ctx ended; failed
// requests are counted in Errors.
func (l Load) Run(ctx context.Context) (LoadResult, error) {
	if l.Connections <= 0 {
		l.Connections = 32
	}
	if l.Duration <= 0 && l.Requests <= 0 {
		l.Duration = 2 * time.Second
	}
	// Every connection is opened and warmed before any is measured.
	conns := make([]*loadConn, l.Connections)
	for i := range conns {
		c, err := dialLoad(ctx, l.Addr)
		if err != nil {
			for _, c := range conns[:i] {
				c.close()
			}
			return LoadResult{}, fmt.Errorf("connecting to %s: %w", l.Addr, err)
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	stop := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			c.interrupt()
		}
	})
	defer stop()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range l.Warmup {
				_, _ = c.do(ctx, l)
			}
		}()
	}
	wg.Wait()
	var mu sync.Mutex
	var res LoadResult
	start := time.Now()
	end := start.Add(l.Duration)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			capHint := l.Requests
			if capHint == 0 {
				capHint = 1024
			}
			local := make([]time.Duration, 0, capHint)
			errs, body := 0, 0
			var first error
			for i := 0; ctx.Err() == nil; i++ {
				if l.Requests > 0 && i >= l.Requests || l.Requests == 0 && !time.Now().Before(end) {
					break
				}
				t0 := time.Now()
				n, err := c.do(ctx, l)
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				local = append(local, time.Since(t0))
				body = n
			}
			mu.Lock()
			res.Latencies = append(res.Latencies, local...)
			res.Errors += errs
			if body > 0 {
				res.BodyBytes = body
			}
			if first != nil && res.FirstError == "" {
				res.FirstError = first.Error()
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}

// loadConn is one keep-alive connection; it redials after an error or an
// answer that closes the connection.
type loadConn struct {
	addr string
	mu   sync.Mutex // guards nc against interrupt
	nc   net.Conn
	br   *bufio.Reader
	body []byte // the answer body's buffer, reused
}

func dialLoad(ctx context.Context, addr string) (*loadConn, error) {
	c := &loadConn{addr: addr}
	if err := c.dial(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *loadConn) dial(ctx context.Context) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.nc = nc
	c.mu.Unlock()
	if c.br == nil {
		c.br = bufio.NewReaderSize(nc, 32<<10)
	} else {
		c.br.Reset(nc)
	}
	return nil
}

func (c *loadConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		_ = c.nc.Close()
		c.nc = nil
	}
}

// interrupt ends a request in progress (the run's context ended).
func (c *loadConn) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		_ = c.nc.SetDeadline(time.Now())
	}
}

// do sends l.Request and reads its answer, returning the body's size. A
// status other than 200 or a body without l.Expect is an error, as is
// anything wrong on the wire (the connection is then redialled).
func (c *loadConn) do(ctx context.Context, l Load) (int, error) {
	if c.nc == nil {
		if err := c.dial(ctx); err != nil {
			return 0, err
		}
	}
	_ = c.nc.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := c.nc.Write(l.Request); err != nil {
		c.close()
		return 0, err
	}
	a, err := readAnswer(c.br, c.body[:0])
	c.body = a.Body[:0]
	if err != nil {
		c.close()
		return 0, err
	}
	if !a.KeepAlive {
		c.close()
	}
	if a.Status != 200 {
		return 0, fmt.Errorf("status %d: %.200s", a.Status, a.Body)
	}
	for _, want := range l.Expect {
		if !bytes.Contains(a.Body, []byte(want)) {
			return 0, fmt.Errorf("the answer lacks %q: %.200s", want, a.Body)
		}
	}
	return len(a.Body), nil
}

// answer is one HTTP/1.1 response as read off the wire.
type answer struct {
	Status    int
	Body      []byte
	KeepAlive bool // the connection may carry the next request
}

var errMalformed = errors.New("malformed HTTP answer")

// readAnswer reads one response from br, appending its body to buf.
// Interim (1xx) responses are skipped.
func readAnswer(br *bufio.Reader, buf []byte) (answer, error) {
	for {
		a, err := readOne(br, buf)
		if err != nil || a.Status >= 200 || a.Status == 101 {
			return a, err
		}
	}
}

func readOne(br *bufio.Reader, buf []byte) (answer, error) {
	a := answer{Body: buf, KeepAlive: true}
	line, err := readLine(br)
	if err != nil {
		return a, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return a, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	if line[7] == '0' {
		a.KeepAlive = false
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 || (len(line) > 12 && line[12] != ' ') {
		return a, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	a.Status = status
	length, chunked := int64(-1), false
	for {
		line, err := readLine(br)
		if err != nil {
			return a, err
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return a, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case asciiEqualFold(name, "content-length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return a, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			length = n
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case asciiEqualFold(name, "connection"):
			v := bytes.ToLower(value)
			if bytes.Contains(v, []byte("close")) {
				a.KeepAlive = false
			} else if bytes.Contains(v, []byte("keep-alive")) {
				a.KeepAlive = true
			}
		}
	}
	switch {
	case status < 200 || status == 204 || status == 304:
		return a, nil
	case chunked:
		a.Body, err = readChunked(br, a.Body)
	case length >= 0:
		if length > maxAnswerBytes {
			return a, fmt.Errorf("an answer of %d bytes is over the bound of %d", length, maxAnswerBytes)
		}
		a.Body, err = readN(br, a.Body, int(length))
	default: // the body runs to the connection's end
		a.KeepAlive = false
		a.Body, err = readToEOF(br, a.Body)
	}
	return a, err
}

// readChunked reads a chunked body (RFC 9112 §7.1), trailers included.
func readChunked(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		line, err := readLine(br)
		if err != nil {
			return buf, err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 63)
		if err != nil {
			return buf, fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if size == 0 {
			for { // trailers, up to the empty line
				line, err := readLine(br)
				if err != nil {
					return buf, err
				}
				if len(line) == 0 {
					return buf, nil
				}
			}
		}
		if uint64(len(buf))+size > maxAnswerBytes {
			return buf, fmt.Errorf("an answer over the bound of %d bytes", maxAnswerBytes)
		}
		if buf, err = readN(br, buf, int(size)); err != nil {
			return buf, err
		}
		line, err = readLine(br)
		if err != nil {
			return buf, err
		}
		if len(line) != 0 {
			return buf, fmt.Errorf("%w: %q after a chunk", errMalformed, line)
		}
	}
}

func readN(br *bufio.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	buf = grow(buf, n)
	_, err := io.ReadFull(br, buf[start:start+n])
	return buf, err
}

func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		nb := make([]byte, len(buf), 2*cap(buf)+n)
		copy(nb, buf)
		buf = nb
	}
	return buf[:len(buf)+n]
}

func readToEOF(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) > maxAnswerBytes {
			return buf, fmt.Errorf("an answer over the bound of %d bytes", maxAnswerBytes)
		}
		start := len(buf)
		buf = grow(buf, 4096)
		n, err := br.Read(buf[start:])
		buf = buf[:start+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readLine reads one line without its CRLF (or LF). A line longer than the
// reader's buffer is an error.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			err = fmt.Errorf("%w: a line longer than %d bytes", errMalformed, br.Size())
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
