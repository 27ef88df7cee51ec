package webcrawl

import (
	"slices"
	"strings"
	"testing"
)

// Small pages in the shapes real pages write their formulas in (made for
// these tests, not copied): MathJax 2 after it ran, MathJax 3 after it ran,
// Wikipedia's MathML with its fallback image, arXiv's LaTeXML, KaTeX, and
// MathML with no TeX at all.
const (
	mathJax2Page = `<p>The energy of a body at rest is <span class="MathJax_Preview" style="color: inherit;"></span>` +
		`<span class="MathJax" id="MathJax-Element-1-Frame" tabindex="0" role="presentation" style="position: relative;">` +
		`<nobr aria-hidden="true"><span class="math" id="MathJax-Span-1"><span class="mrow"><span class="mi" style="font-family: MathJax_Math-italic;">E</span>` +
		`<span class="mo">=</span><span class="mi">m</span><span class="msubsup"><span class="mi">c</span><span class="mn">2</span></span></span></span></nobr>` +
		`<span class="MJX_Assistive_MathML" role="presentation"><math xmlns="http://www.w3.org/1998/Math/MathML"><mi>E</mi><mo>=</mo><mi>m</mi>` +
		`<msup><mi>c</mi><mn>2</mn></msup></math></span></span><script type="math/tex" id="MathJax-Element-1">E = mc^2</script>, as Einstein wrote in 1905, and the area under the parabola is</p>` +
		`<div class="MathJax_Display" style="text-align: center;"><span class="MathJax" id="MathJax-Element-2-Frame"><nobr aria-hidden="true"><span class="math">` +
		`<span class="mo">∫</span><span class="mn">1</span></span></nobr><span class="MJX_Assistive_MathML MJX_Assistive_MathML_Block"><math display="block">` +
		`<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup><msup><mi>x</mi><mn>2</mn></msup><mi>d</mi><mi>x</mi></math></span></span></div>` +
		`<script type="math/tex; mode=display" id="MathJax-Element-2">\int_0^1 x^2\,dx = \frac{1}{3}</script>` +
		`<p>which is a third of the unit square, as the figure shows.</p>`

	mathJax3Page = `<p>For every real number the square <mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML" tabindex="0" ctxtmenu_counter="0" style="font-size: 119.5%; position: relative;">` +
		`<mjx-math class="MJX-TEX" aria-hidden="true"><mjx-msup><mjx-mi class="mjx-i"><mjx-c class="mjx-c1D465 TEX-I"></mjx-c></mjx-mi><mjx-script style="vertical-align: 0.363em;">` +
		`<mjx-mn class="mjx-n" size="s"><mjx-c class="mjx-c32"></mjx-c></mjx-mn></mjx-script></mjx-msup></mjx-math>` +
		`<mjx-assistive-mml unselectable="on" display="inline"><math xmlns="http://www.w3.org/1998/Math/MathML"><msup><mi>x</mi><mn>2</mn></msup></math></mjx-assistive-mml></mjx-container>` +
		` is never negative, and the roots of a quadratic are</p>` +
		`<mjx-container class="MathJax" jax="CHTML" display="true"><mjx-math display="true" class="MJX-TEX" aria-hidden="true"><mjx-mfrac><mjx-c class="mjx-c2212"></mjx-c></mjx-mfrac></mjx-math>` +
		`<mjx-assistive-mml unselectable="on" display="block"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo>` +
		`<msqrt><msup><mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></math></mjx-assistive-mml></mjx-container>` +
		`<p>when the leading coefficient is not zero, as any textbook shows.</p>`

	wikipediaPage = `<p>In a right triangle, <span class="mwe-math-element mwe-math-element-inline"><span class="mwe-math-mathml-inline mwe-math-mathml-a11y" style="display: none;">` +
		`<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\displaystyle a^{2}+b^{2}=c^{2}}"><semantics><mrow class="MJX-TeXAtom-ORD"><mstyle displaystyle="true" scriptlevel="0">` +
		`<msup><mi>a</mi><mn>2</mn></msup><mo>+</mo><msup><mi>b</mi><mn>2</mn></msup><mo>=</mo><msup><mi>c</mi><mn>2</mn></msup></mstyle></mrow>` +
		`<annotation encoding="application/x-tex">{\displaystyle a^{2}+b^{2}=c^{2}}</annotation></semantics></math></span>` +
		`<img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/1a2b" class="mwe-math-fallback-image-inline mw-invert skin-invert" aria-hidden="true" style="vertical-align: -0.505ex; width:14.717ex; height:2.843ex;" alt="{\displaystyle a^{2}+b^{2}=c^{2}}"></span>` +
		` where c is the hypotenuse. The distance between two points follows:</p>` +
		`<dl><dd><span class="mwe-math-element mwe-math-element-block"><span class="mwe-math-mathml-display mwe-math-mathml-a11y" style="display: none;">` +
		`<math xmlns="http://www.w3.org/1998/Math/MathML" display="block" alttext="{\displaystyle d={\sqrt {(x_{2}-x_{1})^{2}+(y_{2}-y_{1})^{2}}}.}"><semantics><mrow><mi>d</mi><mo>=</mo><msqrt><mi>…</mi></msqrt></mrow>` +
		`<annotation encoding="application/x-tex">{\displaystyle d={\sqrt {(x_{2}-x_{1})^{2}+(y_{2}-y_{1})^{2}}}.}</annotation></semantics></math></span>` +
		`<img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/3c4d" class="mwe-math-fallback-image-display mw-invert skin-invert" aria-hidden="true" alt="{\displaystyle d={\sqrt {(x_{2}-x_{1})^{2}+(y_{2}-y_{1})^{2}}}.}"></span></dd></dl>` +
		`<p>An older copy shows only a picture: <span class="mwe-math-element"><img class="mwe-math-fallback-image-inline" src="/math/5e6f.png" alt="\pi r^2"></span> is a disc's area.</p>`

	latexmlPage = `<div class="ltx_para" id="S1.p1"><p class="ltx_p">Let <math id="S1.p1.m1" class="ltx_Math" alttext="f:X\to Y" display="inline"><semantics><mrow><mi>f</mi><mo lspace="0.278em" rspace="0.278em">:</mo>` +
		`<mrow><mi>X</mi><mo stretchy="false">→</mo><mi>Y</mi></mrow></mrow><annotation-xml encoding="MathML-Content"><apply><ci>f</ci></apply></annotation-xml>` +
		`<annotation encoding="application/x-tex">f:X\to Y</annotation><annotation encoding="application/x-llamapun">italic_f : italic_X → italic_Y</annotation></semantics></math> be a continuous map between compact spaces; then the sum of the first integers is</p></div>` +
		`<table id="S1.E1" class="ltx_equation ltx_eqn_table"><tbody><tr class="ltx_equation ltx_eqn_row ltx_align_baseline"><td class="ltx_eqn_cell ltx_eqn_center_padleft"></td>` +
		`<td class="ltx_eqn_cell ltx_align_center"><math id="S1.E1.m1" class="ltx_Math" alttext="\sum_{i=1}^{n}i=\frac{n(n+1)}{2}" display="block"><semantics><mrow><mo>∑</mo></mrow>` +
		`<annotation encoding="application/x-tex">\sum_{i=1}^{n}i=\frac{n(n+1)}{2}</annotation></semantics></math></td><td class="ltx_eqn_cell ltx_eqn_center_padright"></td>` +
		`<td rowspan="1" class="ltx_eqn_cell ltx_eqn_eqno ltx_align_middle ltx_align_right"><span class="ltx_tag ltx_tag_equation ltx_align_right">(1)</span></td></tr></tbody></table>` +
		`<p class="ltx_p">which Gauss found as a schoolboy, and the price of <math alttext="x" display="inline"><mi>x</mi></math> apples is $5 each.</p>`

	katexPage = `<p>The Gaussian integral is <span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msqrt><mi>π</mi></msqrt></mrow>` +
		`<annotation encoding="application/x-tex">\sqrt{\pi}</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="mord sqrt">√π</span></span></span></span>, a classic result of analysis.</p>`

	plainMathMLPage = `<p>Without TeX the formula <math><mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac><mo>≥</mo><msqrt><mi>a</mi><mi>b</mi></msqrt></math> still reads, ` +
		`and so do <math><msub><mi>x</mi><mi>i</mi></msub><mo>*</mo><msup><mi>y</mi><mrow><mi>n</mi><mo>-</mo><mn>1</mn></mrow></msup></math> and ` +
		`<math><mfenced><mi>a</mi><mi>b</mi></mfenced><mo>=</mo><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable></math>.</p>`
)

func mathMarkdown(t *testing.T, body string) string {
	t.Helper()
	return extractString(t, article(body)).Markdown
}

func TestFormulas(t *testing.T) {
	for _, c := range []struct {
		name, page string
		want       []string // in the Markdown
		once       []string // there exactly once
		not        []string // nowhere
	}{
		{"MathJax 2", mathJax2Page,
			[]string{"at rest is $E = mc^2$, as Einstein", "\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n"},
			[]string{"mc^2", "\\int"}, []string{"c2", "∫"}},
		{"MathJax 3", mathJax3Page,
			[]string{"the square x^2 is never negative", "x = (−b ± √(b^2 − 4ac))/(2a)"},
			[]string{"x^2 is"}, nil},
		{"Wikipedia", wikipediaPage,
			[]string{"triangle, $a^{2}+b^{2}=c^{2}$ where", "\n\n$$\nd={\\sqrt {(x_{2}-x_{1})^{2}+(y_{2}-y_{1})^{2}}}.\n$$", "picture: $\\pi r^2$ is a disc's area"},
			[]string{"a^{2}+b^{2}", "\\sqrt"}, []string{"displaystyle", "wikimedia.org", "5e6f.png"}},
		{"arXiv LaTeXML", latexmlPage,
			[]string{"Let $f:X\\to Y$ be a continuous", "\n\n$$\n\\sum_{i=1}^{n}i=\\frac{n(n+1)}{2}\n$$\n\n(1)\n\n", "price of $x$ apples is \\$5 each"},
			[]string{"f:X\\to Y"}, []string{"italic_f", "MathML-Content"}},
		{"KaTeX", katexPage, []string{"integral is $\\sqrt{\\pi}$, a classic"}, []string{"\\sqrt"}, []string{"√π"}},
		{"MathML without TeX", plainMathMLPage,
			[]string{"formula (a + b)/2 ≥ √(ab) still", "x\\_i\\*y^(n - 1)", "(a, b) = \\[1, 0; 0, 1]"}, nil, []string{"$"}},
	} {
		md := mathMarkdown(t, c.page)
		for _, w := range c.want {
			if !strings.Contains(md, w) {
				t.Errorf("%s: missing %q in:\n%s", c.name, w, md)
			}
		}
		for _, w := range c.once {
			if n := strings.Count(md, w); n != 1 {
				t.Errorf("%s: %q %d times, want once, in:\n%s", c.name, w, n, md)
			}
		}
		for _, w := range c.not {
			if strings.Contains(md, w) {
				t.Errorf("%s: %q should not be in:\n%s", c.name, w, md)
			}
		}
	}
}

// TestFormulasShown prints the Markdown of the formula pages (go test -v -run TestFormulasShown).
func TestFormulasShown(t *testing.T) {
	for _, c := range []struct{ name, page string }{{"MathJax 2", mathJax2Page}, {"MathJax 3", mathJax3Page}, {"Wikipedia", wikipediaPage}, {"arXiv", latexmlPage}, {"KaTeX", katexPage}, {"MathML", plainMathMLPage}} {
		t.Logf("%s:\n%s\n", c.name, mathMarkdown(t, c.page))
	}
}

func TestFormulaEdges(t *testing.T) {
	for _, c := range []struct{ name, page, want, not string }{
		{"a pipe in a table cell", `<table><tr><th>Norm</th><th>Value</th></tr><tr><td><math alttext="|x|"><mi>x</mi></math></td><td>1</td></tr></table>`,
			`| $\|x\|$ | 1 |`, ""},
		{"a displayed formula in a cell", `<table><tr><th>Law</th></tr><tr><td><math display="block" alttext="F=ma"><mi>F</mi></math></td></tr></table>`,
			`| $$F=ma$$ |`, ""},
		{"dollars of text on a page without TeX", `<p>It costs $5 and $10 with <math><mi>x</mi></math> apples.</p>`, `costs $5 and $10 with x apples`, `\$`},
		{"dollars inside a formula and in code", `<p>Cost <math alttext="\$5 + $3"><mi>x</mi></math> and <code>echo $HOME</code>.</p>`, "Cost $\\$5 + \\$3$ and `echo $HOME`", ""},
		{"a lone backslash at the end", `<p>Odd <math alttext="x\"><mi>x</mi></math> formula.</p>`, "Odd $x$ formula", ""},
		{"alttext in words is not TeX", `<p>Read <math alttext="x squared plus one"><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn></math> here.</p>`, "Read x^2 + 1 here", "squared"},
		{"a formula hidden from readers", `<p>Seen <span aria-hidden="true"><math alttext="y"><mi>y</mi></math></span>text.</p>`, "Seen text.", "$y$"},
		{"a page's own private-use dollar", "<p>A  sign and <math alttext=\"z\"><mi>z</mi></math>.</p>", "A � sign and $z$.", "\\$"},
		{"a self-closing formula holds nothing", `<p>Empty <math/> and then the text.</p>`, "Empty and then the text.", ""},
		{"a formula never closed", `<p>Open <math alttext="a+b"><mi>a</mi>`, "Open $a+b$", ""},
	} {
		md := mathMarkdown(t, c.page)
		if !strings.Contains(md, c.want) || c.not != "" && strings.Contains(md, c.not) {
			t.Errorf("%s: want %q (and not %q) in:\n%s", c.name, c.want, c.not, md)
		}
	}
}

// A formula is read within its bounds: nesting past maxMathDepth and
// elements past maxMathNodes are not followed, and its text is cut at
// maxMathText, however the page writes it.
func TestFormulaBounds(t *testing.T) {
	deep := "<p>Deep <math>" + strings.Repeat("<mrow><mi>a</mi>", 200) + strings.Repeat("</mrow>", 200) + "</math> end.</p>"
	md := mathMarkdown(t, deep)
	if n := strings.Count(md, "a"); n < maxMathDepth-5 || n > maxMathDepth+60 {
		t.Errorf("deep formula: %d a's, want about %d (the depth bound) in:\n%.300s", n, maxMathDepth, md)
	}
	if !strings.Contains(md, " end.") {
		t.Errorf("text after a deep formula lost:\n%.300s", md)
	}
	wide := "<p>Wide <math>" + strings.Repeat("<mi>b</mi>", 3*maxMathNodes) + "</math> end.</p>"
	md = mathMarkdown(t, wide)
	if n := strings.Count(md, "b"); n >= maxMathNodes || n < maxMathNodes/2 {
		t.Errorf("wide formula: %d b's, want under the node bound %d", n, maxMathNodes)
	}
	long := "<p>Long <script type=\"math/tex\">" + strings.Repeat("x+", maxMathText) + "</script> end.</p>"
	p := extractString(t, article(long))
	md = p.Markdown
	if !slices.Contains(p.Truncated, cutFormula()) {
		t.Errorf("a formula cut at its bound is not said in truncated: %q", p.Truncated)
	}
	if p := extractString(t, article(mathJax2Page)); len(p.Truncated) != 0 {
		t.Errorf("a page of small formulas says %q in truncated", p.Truncated)
	}
	if i, j := strings.Index(md, "$x+"), strings.LastIndex(md, "x+"); i < 0 || j-i > maxMathText+2 || !strings.Contains(md, " end.") {
		t.Errorf("long formula: %d bytes between dollars, bound %d", j-i, maxMathText)
	}
}
