package webcrawl

import (
	"strings"
	"testing"
)

// Code blocks in the shapes highlighters and site generators write them
// (made for these tests): the fence carries the language the page names.
func TestCodeBlockLanguage(t *testing.T) {
	const code = "x := compute(1, 2)\nreturn x"
	for _, c := range []struct{ name, block, lang string }{
		{"Prism", `<pre class="language-go"><code class="language-go">` + code + `</code></pre>`, "go"},
		{"highlight.js", `<pre><code class="hljs language-python">` + code + `</code></pre>`, "python"},
		{"highlight.js 9", `<pre><code class="hljs javascript">` + code + `</code></pre>`, "javascript"},
		{"prettify", `<pre class="prettyprint lang-js">` + code + `</pre>`, "js"},
		{"Sphinx", `<div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span class="n">` + code + `</span></pre></div></div>`, "python"},
		{"GitHub", `<div class="highlight highlight-source-go notranslate position-relative overflow-auto" dir="auto"><pre>` + code + `</pre><div class="zeroclipboard-container"><span>Copy</span></div></div>`, "go"},
		{"GitHub HTML", `<div class="highlight highlight-text-html-basic notranslate position-relative overflow-auto"><pre>` + code + `</pre></div>`, "html"},
		{"GitHub pre lang", `<pre lang="go"><code>` + code + `</code></pre>`, "go"},
		{"SyntaxHighlighter", `<pre class="brush: sql; gutter: true">` + code + `</pre>`, "sql"},
		{"MDN", `<pre class="brush: js notranslate">` + code + `</pre>`, "js"},
		{"Hugo", `<div class="highlight"><pre tabindex="0" class="chroma"><code class="language-Go" data-lang="Go">` + code + `</code></pre></div>`, "go"},
		{"data-lang", `<pre data-lang="Rust">` + code + `</pre>`, "rust"},
		{"Rouge", `<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>` + code + `</code></pre></div></div>`, "ruby"},
		{"pandoc", `<div class="sourceCode" id="cb1"><pre class="sourceCode python"><code class="sourceCode python">` + code + `</code></pre></div>`, "python"},
		{"Docusaurus", `<div class="language-tsx codeBlockContainer_Ckt0 theme-code-block"><div class="codeBlockContent_biex"><pre tabindex="0" class="prism-code language-tsx codeBlock_bY9V thin-scrollbar"><code class="codeBlockLines_e6Vv">` + code + `</code></pre></div></div>`, "tsx"},
		{"C++ named so", `<pre><code class="language-C++">` + code + `</code></pre>`, "cpp"},
		{"no language", `<pre><code class="language-none">` + code + `</code></pre>`, ""},
		{"not a safe token", "<pre class=\"language-go`\u200b\"><code>" + code + `</code></pre>`, ""},
		{"a wrapper naming a human language", `<div class="lang-en"><pre>` + code + `</pre></div>`, ""},
		{"a wrapper's data-lang", `<div data-lang="de"><pre>` + code + `</pre></div>`, ""},
		{"a wrapper of many blocks", `<div class="language-python"><p>One.</p><p>Two.</p><p>Three.</p><p>Four.</p><pre>` + code + `</pre></div>`, ""},
	} {
		md := extractString(t, article(c.block)).Markdown
		want := "```" + c.lang + "\nx := compute(1, 2)\nreturn x\n```"
		if !strings.Contains(md, want) {
			t.Errorf("%s: want the block fenced as ```%s in:\n%s", c.name, c.lang, md)
		}
	}
}

// TestCodeBlockShown prints a code block's Markdown (go test -v -run TestCodeBlockShown).
func TestCodeBlockShown(t *testing.T) {
	t.Logf("\n%s", extractString(t, article(`<div class="highlight highlight-source-go notranslate position-relative overflow-auto" dir="auto"><pre>func main() {
	fmt.Println("hi")
}</pre></div><div class="highlight-python notranslate"><div class="highlight"><pre><span></span>print("hi")</pre></div></div>`)).Markdown)
}
