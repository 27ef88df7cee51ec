package webcrawl

import (
	"testing"
)

// A dialog titled by an <h1> of its own, after the page's first <h1>, is an
// overlay (a shop's terms of service in a modal) however much of the page's
// text it holds: the product is the page.
func TestPruningPolicyDialogAfterTheTitle(t *testing.T) {
	page := `<html><head><title>Wool Runner</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Wool Runner"}</script>
</head><body>
<main><h1>Wool Runner</h1><div class="price">$98.00</div>
<div class="product-description">` + paragraphs("the Wool Runner", 3) + `</div></main>
<footer><div class="links"><a href="/terms">Terms</a></div>
<div id="modal-terms" class="fixed inset-0" role="dialog"><h1>Terms of Use</h1>` + paragraphs("the terms of use", 12) + `</div>
</footer></body></html>`
	p := extractPage(t, page, "https://shop.example/products/wool-runner")
	wantIn(t, p, prose("the Wool Runner", 1), prose("the Wool Runner", 3))
	wantOut(t, p, prose("the terms of use", 1))
}
