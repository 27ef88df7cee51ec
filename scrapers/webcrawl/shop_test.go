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

// On a product's page a carousel holds other products, and is dropped;
// elsewhere a carousel may hold the content and stays.
func TestPruningCarouselOnAProductPage(t *testing.T) {
	cards := ""
	for _, name := range []string{"Harbour rolltop dry bag twenty litres", "Meadow lightweight packable rain shell",
		"Summit Pro insulated winter jacket", "Ridge forty litre hiking backpack", "Alpine merino long sleeve base layer",
		"Canyon carbon folding trekking poles", "Glacier down mummy sleeping bag", "Basecamp two person dome tent"} {
		cards += `<li class="carousel__item"><a href="/p/x">` + name + `</a> <span>$49.00</span></li>`
	}
	page := `<html><head><title>Trail Runner 3</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 3"}</script>
</head><body>
<main><h1>Trail Runner 3</h1><div class="price">$129.00</div>
<div class="product-description">` + paragraphs("the Trail Runner 3", 3) + `</div>
<div class="carousel carousel--slides"><ul class="carousel__list">` + cards + `</ul></div>
</main></body></html>`
	p := extractPage(t, page, "https://shop.example/products/trail-runner-3")
	wantIn(t, p, prose("the Trail Runner 3", 1), prose("the Trail Runner 3", 3))
	wantOut(t, p, "Harbour rolltop dry bag")
}
