// Package pdftest writes small PDFs for tests: pages of text at given places,
// sizes and weights, the document's info, and the standard security handler
// (RC4, 40 bits) with a user and an owner password. What it writes is valid
// PDF 1.4 with a correct cross-reference table, so a test can also cut,
// damage or inflate it on purpose.
package pdftest

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
)

// Text is one run of text on a page: its baseline starts at X, Y (points
// from the bottom left; a page is 612×792), in Helvetica, or Helvetica-Bold.
type Text struct {
	X, Y float64
	Size float64 // default 11
	Bold bool
	S    string // Latin-1 characters
	// Rotate turns the run counterclockwise by this many degrees about its
	// start (90: reading upwards, as arXiv's margin stamp).
	Rotate float64
	// Parts follow S on the same line, each where the one before ends, at
	// its own size and rise above the baseline (a superscript: "Ada
	// Lovelace", then "1" raised, then ", Charles Babbage").
	Parts []Part
}

// Part is a piece of a line of text set after the one before it.
type Part struct {
	S          string
	Size, Rise float64 // default: the line's size; 0
}

// Page is one page's text, in the content stream's order; Shapes adds a
// filled rectangle (a page that has only it has no text layer, as a scan).
type Page struct {
	Texts  []Text
	Shapes bool
}

// Options are the document's info and security.
type Options struct {
	Title, Author, Subject, Lang string
	// Encrypt uses the standard security handler with these passwords; an
	// empty UserPassword opens without one (an owner password only).
	Encrypt                     bool
	UserPassword, OwnerPassword string
}

// Lines lays out lines of text from the top of a page down, one every
// 1.3 × size points, at x.
func Lines(x, top, size float64, lines ...string) []Text {
	out := make([]Text, len(lines))
	for i, l := range lines {
		out[i] = Text{X: x, Y: top - float64(i)*size*1.3, Size: size, S: l}
	}
	return out
}

var padding = []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}

func pad(pw string) []byte { return append([]byte(pw), padding...)[:32] }

func rc4Bytes(key, data []byte) []byte {
	c, _ := rc4.NewCipher(key)
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

type writer struct {
	buf     bytes.Buffer
	offsets []int
	key     []byte // the file key when encrypting
}

func (w *writer) objKey(num int) []byte {
	h := md5.Sum(append(append([]byte{}, w.key...), byte(num), byte(num>>8), byte(num>>16), 0, 0))
	return h[:min(len(w.key)+5, 16)]
}

// str writes a string object, encrypted for object num when encrypting.
func (w *writer) str(num int, s string) string {
	b := latin1(s)
	if w.key != nil {
		return "<" + hex.EncodeToString(rc4Bytes(w.objKey(num), b)) + ">"
	}
	return "<" + hex.EncodeToString(b) + ">"
}

func (w *writer) obj(num int, body string) {
	for len(w.offsets) <= num {
		w.offsets = append(w.offsets, 0)
	}
	w.offsets[num] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", num, body)
}

func (w *writer) stream(num int, data []byte, dict string) {
	if w.key != nil {
		data = rc4Bytes(w.objKey(num), data)
	}
	for len(w.offsets) <= num {
		w.offsets = append(w.offsets, 0)
	}
	w.offsets[num] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< /Length %d %s>>\nstream\n", num, len(data), dict)
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

// winAnsi has a few characters beyond Latin-1 that tests use.
var winAnsi = map[rune]byte{'•': 0x95, '–': 0x96, '—': 0x97, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '€': 0x80, '…': 0x85}

// latin1 encodes s for WinAnsiEncoding ('?' for what it lacks).
func latin1(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if b, ok := winAnsi[r]; ok {
			out = append(out, b)
			continue
		}
		if r > 0xff {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}

// PDF writes the document.
func PDF(pages []Page, o Options) []byte {
	w := &writer{}
	w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	id := md5.Sum([]byte(fmt.Sprint(len(pages), o.Title, o.UserPassword, o.OwnerPassword)))
	var encRef string
	var oEntry, uEntry []byte
	const perms = -44
	if o.Encrypt {
		owner := o.OwnerPassword
		if owner == "" {
			owner = o.UserPassword
		}
		ok := md5.Sum(pad(owner))
		oEntry = rc4Bytes(ok[:5], pad(o.UserPassword))
		h := md5.New()
		h.Write(pad(o.UserPassword))
		h.Write(oEntry)
		h.Write([]byte{byte(perms & 0xff), byte(perms >> 8 & 0xff), byte(perms >> 16 & 0xff), byte(perms >> 24 & 0xff)})
		h.Write(id[:])
		w.key = h.Sum(nil)[:5]
		uEntry = rc4Bytes(w.key, padding)
	}
	// 1 catalog, 2 pages, 3 font, 4 bold font, 5 info, 6 encrypt, then a
	// page and its content per page.
	n := len(pages)
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 7+2*i)
	}
	lang := ""
	if o.Lang != "" {
		lang = " /Lang " + w.str(1, o.Lang)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R"+lang+" >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", n, strings.Join(kids, " ")))
	w.obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	w.obj(4, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	info := "<< /Producer " + w.str(5, "pdftest")
	if o.Title != "" {
		info += " /Title " + w.str(5, o.Title)
	}
	if o.Author != "" {
		info += " /Author " + w.str(5, o.Author)
	}
	if o.Subject != "" {
		info += " /Subject " + w.str(5, o.Subject)
	}
	w.obj(5, info+" >>")
	if o.Encrypt {
		w.obj(6, fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P %d >>", oEntry, uEntry, perms))
		encRef = " /Encrypt 6 0 R"
	} else {
		w.obj(6, "null")
	}
	for i, p := range pages {
		var c bytes.Buffer
		if p.Shapes {
			c.WriteString("0.5 g 72 72 468 648 re f\n")
		}
		for _, t := range p.Texts {
			size, font := t.Size, "F1"
			if size == 0 {
				size = 11
			}
			if t.Bold {
				font = "F2"
			}
			if t.Rotate != 0 {
				sin, cos := math.Sincos(t.Rotate * math.Pi / 180)
				fmt.Fprintf(&c, "BT /%s %g Tf %.4f %.4f %.4f %.4f %g %g Tm (%s) Tj ET\n", font, size, cos, sin, -sin, cos, t.X, t.Y, escapeString(latin1(t.S)))
				continue
			}
			fmt.Fprintf(&c, "BT /%s %g Tf %g %g Td (%s) Tj", font, size, t.X, t.Y, escapeString(latin1(t.S)))
			for _, p := range t.Parts {
				ps := p.Size
				if ps == 0 {
					ps = size
				}
				fmt.Fprintf(&c, " /%s %g Tf %g Ts (%s) Tj", font, ps, p.Rise, escapeString(latin1(p.S)))
			}
			c.WriteString(" ET\n")
		}
		w.obj(7+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", 8+2*i))
		w.stream(8+2*i, c.Bytes(), "")
	}
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets))
	for _, off := range w.offsets[1:] {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R /ID [<%x> <%x>]%s >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets), id, id, encRef, xref)
	return w.buf.Bytes()
}

func escapeString(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch c {
		case '(', ')', '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&s, "\\%03o", c)
			} else {
				s.WriteByte(c)
			}
		}
	}
	return s.String()
}
