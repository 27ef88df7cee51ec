package webcrawl

import "fmt"

// Limits bound what one page may cost before and during extraction. A page
// past a limit is cut there, and the item says so in its truncated reasons.
type Limits struct {
	MaxElements  int // elements kept (default 40,000); the rest of the page is dropped
	MaxDepth     int // nesting depth kept (default 256); deeper elements are dropped with their content
	MaxTextBytes int // bytes of text kept in all (default 2 MiB)
	MaxLinks     int // links returned per page (default 1,000); links_total still counts them all
}

// DefaultLimits are the per-page limits New uses.
func DefaultLimits() Limits {
	return Limits{MaxElements: 40_000, MaxDepth: 256, MaxTextBytes: 2 << 20, MaxLinks: 1000}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxElements <= 0 {
		l.MaxElements = d.MaxElements
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = d.MaxTextBytes
	}
	if l.MaxLinks <= 0 {
		l.MaxLinks = d.MaxLinks
	}
	return l
}

// firstPageGuess is what a page holds of the page budget (Settings.Pages)
// before its body says more: a typical page. Reading the body grows it to
// the buffer's size, and extraction to parseCost of the body.
const firstPageGuess = 64 << 10

// parseCost is what a page being extracted holds: its body and the parsed
// tree, text and Markdown made from it. BenchmarkExtract allocates 9 to 21
// times a real page's bytes over a whole extraction (lemonde, medium,
// wikipedia), not all of it live at once: eight times is the estimate.
func parseCost(bodyBytes int) int64 { return 8 * int64(bodyBytes) }

// Truncation reasons, as an item's truncated field lists them: a code, a
// colon, and what was cut.
func cutPageBytes(n int) string {
	return fmt.Sprintf("page_bytes: the page is larger than %d bytes; the rest was not read", n)
}
func cutElements(n int) string {
	return fmt.Sprintf("elements: the page has more than %d elements; the rest was dropped", n)
}
func cutDepth(n int) string {
	return fmt.Sprintf("depth: elements nested deeper than %d were dropped with their content", n)
}
func cutText(n int) string {
	return fmt.Sprintf("text: the page has more than %d bytes of text; the rest was dropped", n)
}
func cutLinks(kept, total int) string {
	return fmt.Sprintf("links: %d of %d links returned (links_total counts them all)", kept, total)
}
func cutMaxLength(n int) string {
	return fmt.Sprintf("max_length: the Markdown was cut at %d characters", n)
}
