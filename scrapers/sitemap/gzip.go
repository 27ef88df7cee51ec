package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// IsGzip says whether b starts as a gzip stream does.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// Gunzip decompresses b, a gzip stream, keeping at most max bytes: a stream
// that inflates past max (a gzip bomb, or a sitemap beyond the protocol's
// 50 MB) is cut there, with cut set, and only max+1 bytes are ever
// inflated. A stream broken part way gives what came before the break and an
// error saying so.
func Gunzip(b []byte, max int64) (out []byte, cut bool, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false, fmt.Errorf("not a gzip stream: %w", err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(zr, max+1))
	if n > max {
		return buf.Bytes()[:max], true, nil
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("the gzip stream ends early")
		}
		return buf.Bytes(), false, err
	}
	return buf.Bytes(), false, nil
}
