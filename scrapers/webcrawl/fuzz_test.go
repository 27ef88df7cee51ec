package webcrawl

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract converts arbitrary bytes with small caps on: whatever comes in,
// the page is answered within the caps, as valid UTF-8 and JSON, without a
// panic.
func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		"<html><head><title>x</title></head><body><a href='/a'>a</a><p>text</p></body></html>",
		"<base href='javascript:alert(1)'><a href='//evil/'>x</a><img src='data:x' data-src='/i.png' alt='i'>",
		"\xff\xfe<p>\xc3\x28</p>",
		"<table><tr><th align=right>a<td>b<tr><td colspan=3>c</table><pre class='lang-go'><code>x\n\ny</code></pre>",
		"<ul><li>a<ul><li>b<ol><li>c</ul></ul><blockquote><blockquote>q</blockquote>",
		strings.Repeat("<div><b><i>", 60) + "text" + strings.Repeat("<p>para", 30),
		"<svg><path/><title>t</title></svg><p hidden>h<p style='display:none'>n<template><p>t</template>",
		"<plaintext><a href=x>not a link",
		"<div id=app></div><noscript><main><h1>T</h1><p>text in noscript, long enough to read</p></main></noscript>",
		"<script type='application/ld+json'>{\"@type\":[\"NewsArticle\"],\"headline\":\"h\\\"q\",\"author\":{\"name\":\"A\"}}</script><article><p>x</p></article>",
		"<div role=dialog class=modal><p>terms</p></div><main><h2>You may also like</h2><ul><li><a href=/p><div>card</div><div>$1</div></a></ul></main>",
		"<div style='visibility:hidden'><p>same text repeated here</p><p>same text repeated here</p></div>",
		// formulas (mathml.go), code languages (codelang.go), headlines (headline.go)
		"<p>a <math display=block alttext='x^2'><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow><annotation encoding='application/x-tex'>x^{2}$</annotation></semantics></math> $5<math><mfrac><mi>a</mi><mrow><mo>-</mo><msqrt><mi>b</mi></msqrt></mrow></mfrac><mfenced open='[' separators=';'><mi>c</mi><mi>d</mi></mfenced><mtable><mtr><mtd><mn>1</mn></mtd></mtr></mtable></math>",
		"<span class=MathJax id=MathJax-Element-1-Frame><math><mi>E</mi></math></span><script type='math/tex; mode=display'>E=mc^2\\</script><div class=MathJax_Display>x</div><math><mrow><mrow><mi>unclosed",
		"<span class=mwe-math-element><span class=mwe-math-mathml-a11y style='display:none'><math alttext='{\\displaystyle a|b}'><mi>a</mi></math></span><img class=mwe-math-fallback-image-inline alt='a|b' aria-hidden=true></span><span class=mwe-math-element><img class=mwe-math-fallback-image-display alt='\\pi'></span>",
		"<table class='ltx_equation ltx_eqn_table'><tr><td><math display=block alttext='\\sum'><mo>∑</mo></math></td><td>(1)</td></tr></table><table><tr><td><math display=block alttext='|x|'></math></td></tr></table>",
		"<div class='highlight highlight-source-go'><pre lang=go><code class='language-C++ hljs'>x</code></pre></div><pre class='brush: sql;'>s</pre><div data-lang=de><pre data-lang='`x'>y</pre></div>",
		"<title>Story | Site</title><meta property=og:site_name content=Site><h1><a href=/>Site</a></h1><h1>Story</h1><h1></h1><nav><h1>Menu</h1></nav>",
	} {
		f.Add([]byte(seed))
	}
	u, _ := url.Parse("https://example.com/dir/page")
	lim := Limits{MaxElements: 500, MaxDepth: 32, MaxTextBytes: 4096, MaxLinks: 20}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Extract(body, u, ExtractOptions{MaxLength: 1000, Limits: lim})
		if err != nil {
			return
		}
		if n := utf8.RuneCountInString(p.Markdown); n > 1000 {
			t.Fatalf("markdown of %d characters passes max_length", n)
		}
		if !utf8.ValidString(p.Markdown) || !utf8.ValidString(p.Title) {
			t.Fatal("invalid UTF-8 in the page")
		}
		if len(p.Links) > lim.MaxLinks || p.LinksTotal < len(p.Links) {
			t.Fatalf("%d links, links_total %d, cap %d", len(p.Links), p.LinksTotal, lim.MaxLinks)
		}
		for _, l := range p.Links {
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
				t.Fatalf("non-http link %q", l)
			}
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	})
}
