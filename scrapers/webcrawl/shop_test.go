package webcrawl

import (
	"fmt"
	"slices"
	"strings"
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

// A folded panel (a tab's or an accordion's, hidden until a click) holds
// the page's own text and is read; other hidden elements are not. (The
// page shows enough text that its hidden elements are not all read.)
func TestFoldedPanelsAreRead(t *testing.T) {
	page := `<html><head><title>Summit 24 fire pit</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Summit 24"}</script>
</head><body>
<main><h1>Summit 24 fire pit</h1><div class="price">$299.00</div>
` + paragraphs("the Summit 24 at a glance", 6) + `
<div class="tabs"><button>Description</button><button>Care</button>
<div class="tab-pane active">` + paragraphs("the Summit 24's description", 2) + `</div>
<div class="tab-pane" style="display: none">` + paragraphs("caring for the Summit 24", 2) + `</div>
<div role="tabpanel" hidden>` + paragraphs("the Summit 24's warranty", 1) + `</div>
<div class="chakra-collapse" style="display:none;opacity:0">` + paragraphs("the Summit 24's dimensions", 1) + `</div>
</div>
<div class="upgrade-notice" style="display:none">` + prose("a hidden notice", 1) + `</div>
</main></body></html>`
	p := extractPage(t, page, "https://shop.example/products/summit-24")
	wantIn(t, p, prose("caring for the Summit 24", 2), prose("the Summit 24's warranty", 1), prose("the Summit 24's dimensions", 1))
	wantOut(t, p, prose("a hidden notice", 1))
}

// A shop's grid of product cards keeps each card's name and price, not the
// label every card repeats ("Quick view", "Compare"). A label repeated as a
// heading or a list item (a feature list) stays.
func TestCardChromeIsDropped(t *testing.T) {
	cards := ""
	for _, name := range []string{"Harbour rolltop dry bag", "Meadow packable rain shell", "Summit Pro winter jacket",
		"Ridge hiking backpack", "Alpine merino base layer"} {
		cards += `<div class="card"><a href="/p/x">` + name + `</a><div class="price">$49.00</div>` +
			`<div class="badge">Top Rated</div><a class="qv" href="#">Quick view</a><ul><li>Waterproof</li></ul></div>`
	}
	page := `<html><head><title>Outdoor gear</title></head><body>
<main><h1>Outdoor gear</h1>` + paragraphs("our outdoor gear", 2) + `<div class="grid">` + cards + `</div></main></body></html>`
	p := extractPage(t, page, "https://shop.example/collections/outdoor-gear")
	wantIn(t, p, "Harbour rolltop dry bag", "Alpine merino base layer", "$49.00", "Waterproof", prose("our outdoor gear", 2))
	wantOut(t, p, "Quick view", "Top Rated")
}

// When everything on a page looks like furniture, the page is taken whole,
// but for its header, navigation and footer: its content is in what their
// class names misname (here a "promo" box, its text in no paragraph, so
// that nothing holds the page's content), never in those.
func TestWholePageWithoutItsLandmarks(t *testing.T) {
	links := func(prefix string, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `<li><a href="/%s/%d">%s link number %d</a></li>`, prefix, i, prefix, i)
		}
		return b.String()
	}
	page := `<html><head><title>Quarter socks</title></head><body>
<header><ul>` + links("Department", 40) + `</ul></header>
<div class="promo-block"><h2>Quarter socks</h2><div>` + prose("the quarter socks", 1) + `</div>
<div>` + prose("the quarter socks", 2) + `</div></div>
<footer><ul>` + links("Company", 40) + `</ul></footer>
</body></html>`
	p := extractPage(t, page, "https://shop.example/quarter-socks")
	if !slices.Contains(p.Notes, noteWhole) {
		t.Fatalf("notes %q: want %q, this page's content all looks like furniture", p.Notes, noteWhole)
	}
	wantIn(t, p, prose("the quarter socks", 1), prose("the quarter socks", 2))
	wantOut(t, p, "Department link number 3", "Company link number 3")
}

// A product's page whose description only its scripts draw gets the
// description its JSON-LD gives; a page showing it does not get it twice.
func TestProductDescriptionFromJSONLD(t *testing.T) {
	desc := "These quarter socks are engineered for comfort and designed to stand out, higher than an ankle sock and lower than a calf sock, just right for a million different shoes."
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Quarter socks","description":"<p>` + desc + `</p>"}</script>`
	shown := `<html><head><title>Quarter socks</title>` + ld + `</head><body>
<main><h1>Quarter socks</h1><div class="price">$17.00</div><div>Size: L</div>%s</main></body></html>`
	p := extractPage(t, fmt.Sprintf(shown, ""), "https://shop.example/products/quarter-socks")
	wantIn(t, p, "$17.00", desc)
	p = extractPage(t, fmt.Sprintf(shown, "<p>"+desc+"</p>"), "https://shop.example/products/quarter-socks")
	if n := strings.Count(p.Markdown, "just right for a million"); n != 1 {
		t.Errorf("the description shows %d times, want once:\n%s", n, p.Markdown)
	}
}
