package webcrawl

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// lineTextCases are lines of every kind the rules read: furniture in its
// languages, white space of every width, upper case outside ASCII, colons
// full-width and spaced, invalid UTF-8.
var lineTextCases = []string{
	"", "   ", "Foto :  Reuters", "Quelle：dpa", "  LESEN  SIE\tAUCH:\n", "Ünïcödé ÇAPS Ω",
	"a\u00a0b\u2003c\u3000d", "bad \xff\xfe bytes \xc3", "(Credit: AP)", "x :: y ： z", "© 2024 Ｆｕｌｌ",
	strings.Repeat("word ", 100), strings.Repeat(" ：", 300), strings.Repeat("：", 150),
}

// A lineText gives lineForm's line when it is at most its bound long,
// and says a longer one is too long.
func TestLineTextIsLineForm(t *testing.T) {
	for _, s := range lineTextCases {
		for _, max := range []int{0, 10, 100, 400} {
			checkLineText(t, s, max)
		}
	}
}

func checkLineText(t *testing.T, s string, max int) {
	t.Helper()
	var l lineText
	l.reset(max)
	l.text(s)
	got, ok := l.form()
	want := lineForm(s)
	if len(want) > max {
		if ok {
			t.Errorf("lineText(%q, %d) = %q, want too long (%q)", s, max, got, want)
		}
		return
	}
	if !ok || got != want {
		t.Errorf("lineText(%q, %d) = %q, %v, want %q", s, max, got, ok, want)
	}
	// plain: asideHeading's form, colons as written.
	l.reset(max)
	l.text(s)
	plain := strings.ToLower(clean(s))
	if p, ok := l.plain(); len(plain) <= max && (!ok || p != plain) || len(plain) > max && ok {
		t.Errorf("plain(%q, %d) = %q, %v, want %q", s, max, p, ok, plain)
	}
}

// readText gives a block's text nodes in order, cut where nodeText cuts
// them: the line of its first k bytes is lineForm(nodeText(n, k)).
func TestReadTextIsNodeText(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<p id=x>  Foto<b>GRAFIK </b> :<i>  dpa / <a href=/>Mehr</a>–Ünï</i>  </p>`))
	if err != nil {
		t.Fatal(err)
	}
	p := findByID(doc, "x")
	var l lineText
	l.reset(noticeMax)
	readText(p, -1, &l)
	if got, ok := l.form(); !ok || got != "fotografik: dpa / mehr–ünï" {
		t.Errorf("line of <p> = %q, %v", got, ok)
	}
	for k := 0; k <= len(nodeText(p, 1000))+1; k++ {
		l.reset(noticeMax)
		readText(p, k, &l)
		if got, _ := l.form(); got != lineForm(nodeText(p, k)) {
			t.Errorf("the line of the first %d bytes = %q, lineForm(nodeText) = %q", k, got, lineForm(nodeText(p, k)))
		}
	}
}

func findByID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attrOf(n, "id") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findByID(c, id); f != nil {
			return f
		}
	}
	return nil
}

// A labelText gives ctaLabel's label when it is at most its bound long.
func TestLabelTextIsCtaLabel(t *testing.T) {
	for _, s := range append(lineTextCases, "Read more →", "» Weiterlesen «", "PRINT / SHARE", "Lire la suite...") {
		checkLabelText(t, s, furniturePhrases.labelMax)
	}
}

func checkLabelText(t *testing.T, s string, max int) {
	t.Helper()
	var l labelText
	l.reset(max)
	l.text(s)
	want := ctaLabel(s)
	if len(want) > max {
		if !l.over {
			t.Errorf("labelText(%q, %d) = %q, want too long (%q)", s, max, l.b, want)
		}
		return
	}
	if l.over || string(l.b) != want {
		t.Errorf("labelText(%q, %d) = %q (over %v), want %q", s, max, l.b, l.over, want)
	}
}

func FuzzLineText(f *testing.F) {
	for _, s := range lineTextCases {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max & 0x1ff
		checkLineText(t, s, max)
		checkLabelText(t, s, max)
	})
}

// The prefix set finds what hasPrefixAny finds in the whole list.
func TestPrefixSetIsHasPrefixAny(t *testing.T) {
	ps := []string{"werbung", "mehr zum thema", "相关阅读", "comments", "©", "(foto", "w"}
	set := newPrefixSet(ps)
	for _, s := range []string{"", "werbung", "werbungskosten", "mehr zum thema: x", "相关阅读文章", "comments (3)", "© dpa", "wx", "w x", "(foto: x)", "zzz"} {
		if got, want := set.has(s), hasPrefixAny(s, ps); got != want {
			t.Errorf("prefixSet.has(%q) = %v, hasPrefixAny = %v", s, got, want)
		}
	}
}
