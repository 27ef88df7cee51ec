package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page whose text its scripts draw (a React page with its article in
// data-react-props) shows nothing but icons and empty links without them;
// its JSON-LD often still carries the text: an article's articleBody, a
// how-to's description and steps, a recipe's instructions. When what was
// chosen holds almost no words, that text is taken.

const (
	// ldBodyEmpty is the text (bytes, runs of space counted once) under
	// which the chosen part holds no content of its own.
	ldBodyEmpty = 100
	// ldBodyMin is the text (bytes) the JSON-LD must hold to be taken.
	ldBodyMin = 200
	// ldBodyMax bounds the text taken from JSON-LD (bytes).
	ldBodyMax = 200_000
)

// ldBodyFields are the JSON-LD fields that hold a page's text, in the order
// they are read: the body or description first, then each step.
var ldBodyFields = []string{"articleBody", "text", "description", "recipeInstructions", "step", "itemListElement"}

// ldBodyTexts is the text of the page's JSON-LD articles, how-tos and
// recipes, paragraph by paragraph (their HTML made plain), at most
// ldBodyMax bytes: the largest object's.
func ldBodyTexts(jsonLD string) []string {
	var best []string
	bestLen := 0
	var collect func(v any, depth int, out *[]string, n *int)
	collect = func(v any, depth int, out *[]string, n *int) {
		if depth > 8 || *n > ldBodyMax {
			return
		}
		switch v := v.(type) {
		case string:
			for _, para := range strings.Split(htmlParas.Replace(v), "\n") {
				if t := clean(html.UnescapeString(htmlTag.ReplaceAllString(para, " "))); t != "" {
					*out = append(*out, t)
					*n += len(t)
				}
			}
		case map[string]any:
			for _, f := range ldBodyFields {
				collect(v[f], depth+1, out, n)
			}
		case []any:
			for _, c := range v {
				collect(c, depth+1, out, n)
			}
		}
	}
	eachLDObject(jsonLD, func(v map[string]any) {
		if ldHasBody(v["@type"]) {
			var out []string
			n := 0
			collect(v, 0, &out, &n)
			if n > bestLen {
				best, bestLen = out, n
			}
		}
	})
	if bestLen < ldBodyMin {
		return nil
	}
	return best
}

// htmlParas turns the block ends of HTML held in a JSON string into line
// breaks, so that its paragraphs stay paragraphs.
var htmlParas = strings.NewReplacer("</p>", "\n", "</P>", "\n", "<br>", "\n", "<br/>", "\n", "<br />", "\n", "</li>", "\n", "</h2>", "\n", "</h3>", "\n")

// ldHasBody says whether a JSON-LD @type is one whose fields hold the
// page's text.
func ldHasBody(t any) bool {
	switch t := t.(type) {
	case string:
		s := schemaType(t)
		return articleTypes[s] || s == "howto" || s == "recipe"
	case []any:
		for _, x := range t {
			if ldHasBody(x) {
				return true
			}
		}
	}
	return false
}

// addLDBody appends to content, when it holds almost no text, the text of
// the page's JSON-LD article, how-to or recipe; it says whether it did.
func addLDBody(content *html.Node, jsonLD string) bool {
	if measureText(content, nil) > ldBodyEmpty || !strings.Contains(jsonLD, "@type") {
		return false
	}
	paras := ldBodyTexts(jsonLD)
	if paras == nil {
		return false
	}
	for _, t := range paras {
		p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		p.AppendChild(&html.Node{Type: html.TextNode, Data: t})
		content.AppendChild(p)
	}
	return true
}
