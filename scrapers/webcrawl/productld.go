package webcrawl

import (
	"encoding/json"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A product's page whose description is drawn by its scripts (a React
// shop's __NEXT_DATA__) shows little more than a name and a price without
// them; the page's JSON-LD still describes the product. When what was
// chosen is that small and lacks the description, the description is added.

const (
	// ldDescriptionWords is the length (words) from which a JSON-LD
	// description is a description, not a tagline.
	ldDescriptionWords = 20
	// ldSmallPage is the text (bytes) under which a product's chosen part
	// is small enough to lack its description.
	ldSmallPage = 3000
	// ldCovered is the share of the description's words the chosen part
	// must hold to be taken as holding it.
	ldCovered = 0.6
)

var htmlTag = regexp.MustCompile(`<[^>]{0,512}>`)

// ldProductDescription is the longest description a Product (or
// ProductGroup) of the page's JSON-LD gives, as plain text.
func ldProductDescription(jsonLD string) string {
	best := ""
	eachLDObject(jsonLD, func(v map[string]any) {
		if ldIsProduct(v["@type"]) {
			if d, ok := v["description"].(string); ok && len(d) > len(best) {
				best = d
			}
		}
	})
	return clean(html.UnescapeString(htmlTag.ReplaceAllString(best, " ")))
}

// eachLDObject calls visit with every object of the page's JSON-LD blocks
// (at most 16 values, nested at most 8 deep): the walk the readers of
// JSON-LD (a product's description, an article's text) share.
func eachLDObject(jsonLD string, visit func(map[string]any)) {
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 8 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			visit(v)
			for _, c := range v {
				walk(c, depth+1)
			}
		case []any:
			for _, c := range v {
				walk(c, depth+1)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(jsonLD))
	for range 16 {
		var v any
		if dec.Decode(&v) != nil {
			break
		}
		walk(v, 0)
	}
}

func ldIsProduct(t any) bool {
	switch t := t.(type) {
	case string:
		return productType(schemaType(t))
	case []any:
		for _, x := range t {
			if ldIsProduct(x) {
				return true
			}
		}
	}
	return false
}

// addLDDescription appends to content the product's JSON-LD description
// when content is small and holds too few of its words.
func addLDDescription(content *html.Node, jsonLD string) bool {
	text := nodeText(content, ldSmallPage+1)
	if len(text) > ldSmallPage || !strings.Contains(jsonLD, "escription") {
		return false
	}
	desc := ldProductDescription(jsonLD)
	words := strings.Fields(strings.ToLower(desc))
	if len(words) < ldDescriptionWords {
		return false
	}
	have := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		have[w] = true
	}
	found := 0
	for _, w := range words {
		if have[w] {
			found++
		}
	}
	if float64(found) >= ldCovered*float64(len(words)) {
		return false
	}
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	p.AppendChild(&html.Node{Type: html.TextNode, Data: desc})
	content.AppendChild(p)
	return true
}
