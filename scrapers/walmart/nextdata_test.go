package walmart

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestScriptJSON(t *testing.T) {
	for _, tc := range []struct {
		name, page, want string
		ok               bool
	}{
		{"next", `<html><script>var a=1</script><script id="__NEXT_DATA__" type="application/json" nonce="x">{"a":1}</script></html>`, `{"a":1}`, true},
		{"single quotes, other order", `<script type='application/json' id='__NEXT_DATA__'>{"b":2}</script>`, `{"b":2}`, true},
		{"no quotes, upper case", `<SCRIPT ID=__NEXT_DATA__ TYPE=application/json> {"c":3} </SCRIPT>`, `{"c":3}`, true},
		{"id in another attribute's value", `<script data-x='id="__NEXT_DATA__"'>{"no":1}</script><script id="__NEXT_DATA__">{"yes":1}</script>`, `{"yes":1}`, true},
		{"a longer id", `<script id="__NEXT_DATA__2">{}</script>`, "", false},
		{"unclosed", `<script id="__NEXT_DATA__">{"d":4}`, `{"d":4}`, true},
		{"unterminated tag", `<script id="__NEXT_DATA__"`, "", false},
		{"none", `<html><body>nothing</body></html>`, "", false},
		{"empty", ``, "", false},
		{"a script named in text", `<p>see <script</p><script id="__NEXT_DATA__">{"e":5}</script>`, "", false},
	} {
		got, ok := scriptJSON([]byte(tc.page), "__NEXT_DATA__")
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestScriptJSONRealPage(t *testing.T) {
	raw, ok := scriptJSON(scrapertest.Fixture(t, "walmart/product-page.html"), "__NEXT_DATA__")
	if !ok || !json.Valid(raw) {
		t.Fatalf("found %v, valid %v", ok, json.Valid(raw))
	}
}

func TestPageData(t *testing.T) {
	if _, err := pageData([]byte(`<script id="__NEXT_DATA__">{"a":</script>`)); err == nil {
		t.Error("broken JSON was accepted")
	}
	if _, err := pageData([]byte(`<html></html>`)); err != errNoData {
		t.Errorf("err = %v, want errNoData", err)
	}
	v, err := pageData([]byte(`<script id="__APP_DATA__">{"n":12345678901234567890}</script>`))
	if err != nil || str(jsonval.Get(v, "n")) != "12345678901234567890" {
		t.Errorf("__APP_DATA__: %v, %v; want the number's digits intact", v, err)
	}
}

func TestJSONHelpers(t *testing.T) {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"a":{"b":[1,"$1,299.00",null,true,{"c":"x"}]},"p":"2.9 ¢/fl oz","n":-3}`)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	l := jsonval.List(jsonval.Get(v, "a", "b"))
	if len(l) != 5 {
		t.Fatalf("list %v", l)
	}
	if f, ok := num(l[0]); !ok || f != 1 {
		t.Error("num of a number")
	}
	if f, ok := num(l[1]); !ok || f != 1299 {
		t.Errorf("num of a price text = %v", f)
	}
	if _, ok := num(l[2]); ok {
		t.Error("num of null")
	}
	if find(v, "c", 5) != "x" || find(v, "c", 2) != nil {
		t.Error("find with depth")
	}
	if intPtr(jsonval.Get(v, "n")) != nil {
		t.Error("a negative count")
	}
	if str(jsonval.Get(v, "missing", "deeper")) != "" {
		t.Error("get through non-objects")
	}
	if f, ok := num(jsonval.Get(v, "p")); !ok || f != 2.9 {
		t.Errorf("unit price %v", f)
	}
}

// FuzzScriptJSON: the finder never panics, and what it finds lies in the
// page.
func FuzzScriptJSON(f *testing.F) {
	if b, err := scrapertest.ReadFixture("walmart/product-page.html"); err == nil {
		f.Add(b)
	}
	f.Add(scrapertest.Testdata(f, "search.html"))
	f.Add(scrapertest.Testdata(f, "search-appdata.html"))
	f.Add([]byte(`<script id=__NEXT_DATA__ x='`))
	f.Add([]byte(`<script id="__NEXT_DATA__"></script><script id="__NEXT_DATA__">{}</script>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		got, ok := scriptJSON(page, "__NEXT_DATA__")
		if ok && !bytes.Contains(page, got) {
			t.Fatalf("found %q, which the page does not hold", got)
		}
		// the whole page readers must not panic either
		_, _ = parseSearch(page)
		_, _ = parseProduct(page, "https://www.walmart.com/ip/1")
		_, _ = parseReviews(page, "1", "https://www.walmart.com/reviews/product/1")
	})
}
