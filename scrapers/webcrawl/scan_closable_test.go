package webcrawl

import (
	"net/url"
	"strings"
	"testing"
)

// A start tag closes what the scanner's implicitCloses says it closes (a
// <div> an open <p>, an <li> the <li> before it, a <td> the cell before it,
// an <a> an open <a>; a new row closes the cell, and the parser that reads
// the scanner's output closes the row), and only that: the scanner walks
// its stack for them only while one is open (closableOpen), which does not
// change what it writes (these are the outputs of the scanner that walked
// it for every start tag). What is left open at the end the parser closes.
func TestScanImplicitCloses(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	for _, c := range []struct{ in, want string }{
		{`<div><p>one<div>two</div></div>`, `<div><p>one</p><div>two</div></div>`},
		{`<p>one<p>two`, `<p>one</p><p>two`},
		{`<ul><li>a<li>b<ul><li>c<li>d</ul><li>e</ul>`, `<ul><li>a</li><li>b<ul><li>c</li><li>d</li></ul></li><li>e</li></ul>`},
		{`<dl><dt>t<dd>d<dt>u</dl>`, `<dl><dt>t</dt><dd>d</dd><dt>u</dt></dl>`},
		{`<table><tr><td>1<td>2<tr><td>3</table>`, `<table><tr><td>1</td><td>2</td><tr><td>3</td></tr></tr></table>`},
		{`<table><thead><tr><th>h<tbody><tr><td>1<tfoot><tr><td>f</table>`, `<table><thead><tr><th>h</th><tbody></tbody></tr><tr><td>1</td><tfoot></tfoot></tr><tr><td>f</td></tr></thead></table>`},
		{`<a href="/x">one<a href="/y">two</a>`, `<a href="/x">one</a><a href="/y">two</a>`},
		{`<table><tr><td><p>in cell<table><tr><td>inner</table>after</table>`, `<table><tr><td><p>in cell</p><table><tr><td>inner</td></tr></table>after</td></tr></table>`},
		{`<div><span>no p open</span><div>x</div></div><p>last`, `<div><span>no p open</span><div>x</div></div><p>last`},
	} {
		doc := string(scan([]byte(c.in), u, Limits{}).doc)
		got := strings.TrimPrefix(doc, "<!DOCTYPE html><html><body>")
		got = strings.TrimSuffix(got, "</body></html>")
		if got != c.want {
			t.Errorf("scan(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
