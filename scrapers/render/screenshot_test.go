package render

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"
	"time"
)

// TestScreenshot: real Chromium takes a PNG of the page at 1280 px wide,
// laid out for that width, the whole page when it is short; a tall page is
// cut at MaxHeight and a picture past MaxBytes is cut shorter, each said in
// the notes; the guard still refuses what it refused.
func TestScreenshot(t *testing.T) {
	s := newSite(t)
	s.page("/", `<!doctype html><html><head><style>body,h1{margin:0} #w{height:1500px;background:#3060c0}</style></head>
		<body><div id="w"><h1 id="t">Screenshot me</h1></div><script>document.getElementById("t").textContent = "width " + innerWidth</script></body></html>`)
	s.page("/tall", `<!doctype html><html><body style="margin:0"><div style="height:20000px;background:linear-gradient(#fff,#000)">tall</div></body></html>`)
	// Noise does not compress: a picture of 1280×1200 px of it is some MB.
	s.page("/noisy", `<!doctype html><html><body style="margin:0"><canvas id="c" width="1280" height="1200"></canvas><script>
		const c = document.getElementById("c").getContext("2d"), d = c.createImageData(1280, 1200);
		for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 == 3) ? 255 : Math.random() * 256;
		c.putImageData(d, 0, 0);</script></body></html>`)
	r := newRenderer(t, Config{PageTimeout: 15 * time.Second, Quiet: 200 * time.Millisecond}, s.addr())
	ctx := context.Background()

	p, err := r.RenderWith(ctx, s.URL+"/", Options{Shot: &Shot{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, "width 1280") {
		t.Errorf("the page was not laid out 1280 px wide: %.300s", p.HTML)
	}
	sh := p.Screenshot
	if sh == nil {
		t.Fatalf("no screenshot: %s", p.ShotErr)
	}
	img, err := png.Decode(bytes.NewReader(sh.PNG))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 1500 || sh.Width != 1280 || sh.Height != 1500 || sh.PageHeight != 1500 || len(sh.Notes) > 0 {
		t.Errorf("picture %v, screenshot %d×%d of a page %d high, notes %q", b, sh.Width, sh.Height, sh.PageHeight, sh.Notes)
	}
	if r, g, b, _ := img.At(640, 1400).RGBA(); r>>8 != 0x30 || g>>8 != 0x60 || b>>8 != 0xc0 {
		t.Errorf("the page's colour below the first screen is %x %x %x, want 30 60 c0", r>>8, g>>8, b>>8)
	}

	p, err = r.RenderWith(ctx, s.URL+"/tall", Options{Shot: &Shot{MaxHeight: 4000}})
	if err != nil || p.Screenshot == nil {
		t.Fatalf("tall: %v %s", err, p.ShotErr)
	}
	if sh := p.Screenshot; sh.Height != 4000 || sh.PageHeight != 20000 || len(sh.Notes) != 1 || !strings.Contains(sh.Notes[0], "the page is 20000 px high; the screenshot shows its first 4000 px") {
		t.Errorf("tall: %d of %d, notes %q", sh.Height, sh.PageHeight, sh.Notes)
	}

	p, err = r.RenderWith(ctx, s.URL+"/noisy", Options{Shot: &Shot{MaxBytes: 1_000_000}})
	if err != nil || p.Screenshot == nil {
		t.Fatalf("noisy: %v %s", err, p.ShotErr)
	}
	if sh := p.Screenshot; len(sh.PNG) > 1_000_000 || sh.Height >= 1200 || len(sh.Notes) == 0 || !strings.Contains(sh.Notes[0], "more than 1.0 MB; it was cut to") {
		t.Errorf("noisy: %d bytes, %d px high, notes %q", len(sh.PNG), sh.Height, sh.Notes)
	} else {
		t.Logf("noisy: %d bytes, %d px high, notes %q", len(sh.PNG), sh.Height, sh.Notes)
	}

	// Without Shot, nothing is taken.
	if p, err = r.Render(ctx, s.URL+"/"); err != nil || p.Screenshot != nil {
		t.Fatalf("a render without Shot: %v, screenshot %v", err, p.Screenshot != nil)
	}
}
