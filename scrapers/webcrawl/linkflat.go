package webcrawl

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// flattenLinks makes every link's text one line: a card that wraps its
// blocks (image, name, price, rating) in one <a> would otherwise become a
// link whose text spans lines and blank lines, which Markdown cannot hold
// (a blank line ends the link, leaving its brackets and address as text).
// The blocks inside a link become inline runs separated by a space, and
// line breaks become spaces.
func flattenLinks(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.A {
			inlineBlocks(c)
			continue
		}
		flattenLinks(c)
	}
}

func inlineBlocks(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Br:
			c.Type, c.Data, c.DataAtom, c.Attr = html.TextNode, " ", 0, nil
			continue
		case atom.Div, atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Section, atom.Article,
			atom.Header, atom.Footer, atom.Ul, atom.Ol, atom.Li, atom.Dl, atom.Dt, atom.Dd, atom.Figure, atom.Figcaption,
			atom.Blockquote, atom.Table, atom.Tbody, atom.Thead, atom.Tr, atom.Td, atom.Th, atom.Pre, atom.Address:
			c.Data, c.DataAtom, c.Attr = "span", atom.Span, nil
			n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, c)
			if c.NextSibling == nil {
				n.AppendChild(&html.Node{Type: html.TextNode, Data: " "})
			} else {
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, c.NextSibling)
			}
		}
		inlineBlocks(c)
	}
}
