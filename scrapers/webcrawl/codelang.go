package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A code block's language, for its Markdown fence (```go). Pages name it in
// many ways, on the <pre>, its <code> or a wrapper around them:
//   - class="language-go", "lang-js" (Prism, highlight.js, Markdown
//     renderers, Google's prettify), also on a wrapper (Rouge's
//     "language-ruby highlighter-rouge", MkDocs, Docusaurus);
//   - "highlight-python" on a wrapper (Sphinx: "highlight-python
//     notranslate"), GitHub's "highlight-source-go" and
//     "highlight-text-html-basic";
//   - "brush: sql" (SyntaxHighlighter, MDN);
//   - data-lang or data-language (Hugo's Chroma, many themes);
//   - a bare language name beside "hljs", "sourceCode" (pandoc),
//     "prettyprint", "highlight" or "code", or alone on the <pre> or
//     <code>, and GitHub's <pre lang="go">: only names in codeLanguages.
// The language is the first one found from the <pre> outwards: the <pre>,
// the <code> elements in it, then up to codeWrapperLevels wrappers, each
// with at most codeWrapperKids elements in it (a wrapper of the whole page
// names no one block's language). It is written lowercase, as a safe
// token (letters, digits and + # . _ -, at most 32 characters); "none",
// "nohighlight", "default" and the like name none.

const (
	codeWrapperLevels = 3
	codeWrapperKids   = 4
	maxLangLen        = 32
)

// codeLanguages are names taken for a language even when the page does not
// mark them as one (class="python", "hljs go", <pre lang="go">): the
// languages highlighters name most. The value is the name written on the
// fence ("" keeps the name itself).
var codeLanguages = map[string]string{
	"bash": "", "sh": "", "shell": "", "zsh": "", "console": "", "powershell": "", "ps1": "", "bat": "", "cmd": "",
	"c": "", "cpp": "", "c++": "cpp", "cxx": "cpp", "hpp": "cpp", "csharp": "", "c#": "csharp", "objc": "", "objectivec": "",
	"go": "", "golang": "go", "rust": "", "rs": "rust", "java": "", "kotlin": "", "kt": "kotlin", "scala": "", "groovy": "", "swift": "", "dart": "",
	"python": "", "py": "python", "python3": "python", "ipython": "", "ipython3": "ipython", "pycon": "", "jinja": "", "django": "", "ruby": "", "rb": "ruby", "perl": "", "php": "", "lua": "", "r": "", "julia": "",
	"javascript": "", "js": "", "jsx": "", "typescript": "", "ts": "", "tsx": "", "coffeescript": "",
	"html": "", "xml": "", "xhtml": "", "svg": "", "css": "", "scss": "", "sass": "", "less": "", "vue": "", "svelte": "",
	"json": "", "jsonc": "", "json5": "", "yaml": "", "yml": "yaml", "toml": "", "ini": "", "csv": "", "graphql": "",
	"sql": "", "mysql": "", "postgresql": "", "pgsql": "", "plsql": "", "tsql": "",
	"markdown": "", "md": "markdown", "rst": "", "tex": "", "latex": "", "diff": "", "patch": "", "dockerfile": "", "docker": "dockerfile",
	"makefile": "", "make": "makefile", "cmake": "", "nginx": "", "apache": "", "http": "", "protobuf": "", "proto": "",
	"haskell": "", "hs": "haskell", "elixir": "", "erlang": "", "clojure": "", "lisp": "", "scheme": "", "ocaml": "", "fsharp": "", "f#": "fsharp",
	"matlab": "", "fortran": "", "vb": "", "vbnet": "", "asm": "", "nasm": "", "wasm": "", "solidity": "", "zig": "", "nim": "",
	"terraform": "", "hcl": "", "text": "", "plaintext": "text", "txt": "text",
}

// noLanguage are names that say a block has no language.
var noLanguage = map[string]bool{"none": true, "nohighlight": true, "no-highlight": true, "default": true,
	"plain": true, "auto": true, "undefined": true, "null": true, "code": true, "highlight": true, "source": true}

// markCodeLanguages finds each <pre>'s language under root and writes it
// as its class ("language-go"), or no class when it has none, and takes
// the class off the <code> elements in it: the converter reads the fence's
// language from there, and reads it as written (any class word holding
// "lang-"), which is not always a language nor a safe one.
func markCodeLanguages(root *html.Node) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Pre {
				setCodeLanguage(c, blockLanguage(c))
				continue
			}
			walk(c)
		}
	}
	walk(root)
}

func setCodeLanguage(pre *html.Node, lang string) {
	removeAttr(pre, "class")
	if lang != "" {
		pre.Attr = append(pre.Attr, html.Attribute{Key: "class", Val: "language-" + lang})
	}
	unlinkWhere(pre, func(*html.Node) bool { return false }, func(c *html.Node) bool {
		if c.DataAtom == atom.Code {
			removeAttr(c, "class")
		}
		return true
	})
}

func removeAttr(n *html.Node, key string) {
	for i := 0; i < len(n.Attr); {
		if n.Attr[i].Key == key {
			n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			continue
		}
		i++
	}
}

// blockLanguage is the language a <pre>, its <code> or its wrappers name.
func blockLanguage(pre *html.Node) string {
	if l := elementLanguage(pre, true); l != "" {
		return l
	}
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Code {
			if l := elementLanguage(c, true); l != "" {
				return l
			}
		}
	}
	n := pre
	for range codeWrapperLevels {
		n = n.Parent
		if n == nil || n.Type != html.ElementNode || elementKids(n) > codeWrapperKids {
			return ""
		}
		if l := elementLanguage(n, false); l != "" {
			return l
		}
	}
	return ""
}

func elementKids(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			k++
		}
	}
	return k
}

// elementLanguage is the language an element's attributes name; block
// says it is the <pre> or <code> itself, where a bare known name counts.
//
// On a wrapper, only names in codeLanguages count: a wrapper's data-lang or
// "lang-en" may name the page's human language.
func elementLanguage(n *html.Node, block bool) string {
	if l := normLanguage(attrOf(n, "data-lang"), !block); l != "" {
		return l
	}
	words := strings.Fields(strings.ToLower(attrOf(n, "class")))
	marked := false // a highlighter's own class is there: a bare name beside it is a language
	for i, w := range words {
		for _, prefix := range []string{"language-", "lang-", "highlight-source-", "highlight-text-", "highlight-"} {
			rest, ok := strings.CutPrefix(w, prefix)
			if !ok {
				continue
			}
			if prefix == "highlight-text-" || prefix == "highlight-source-" {
				rest, _, _ = strings.Cut(rest, "-") // text-html-basic: html
			}
			if l := normLanguage(rest, !block || prefix == "highlight-"); l != "" {
				return l
			}
			break
		}
		if rest, ok := strings.CutPrefix(w, "brush:"); ok {
			if rest == "" && i+1 < len(words) {
				rest = words[i+1]
			}
			if l := normLanguage(strings.TrimRight(rest, ";"), !block); l != "" {
				return l
			}
		}
		switch w {
		case "hljs", "sourcecode", "prettyprint", "highlight", "code", "codehilite", "chroma", "syntax":
			marked = true
		}
	}
	if block || marked {
		for _, w := range words {
			if l := normLanguage(w, true); l != "" {
				return l
			}
		}
	}
	if block && n.DataAtom == atom.Pre {
		return normLanguage(attrOf(n, "lang"), true)
	}
	return ""
}

// normLanguage is a language name as a fence carries it: lowercase, a safe
// token, "" for none. known says the name must be one of codeLanguages.
func normLanguage(s string, known bool) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimRight(s, ";:,")
	if s == "" || len(s) > maxLangLen || noLanguage[s] {
		return ""
	}
	if name, ok := codeLanguages[s]; ok {
		if name != "" {
			return name
		}
		return s
	}
	if known {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '#' || c == '.' || c == '_' || c == '-') {
			return ""
		}
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
		return ""
	}
	return s
}
