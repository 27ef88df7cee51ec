package oauthpage

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
)

// pageCSS is the pages' only style sheet, inline and allowed by its hash.
const pageCSS = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f5f7fa;color:#1b2430}
main{max-width:34rem;margin:2rem;padding:2rem 2.25rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.5rem;margin:0 0 1rem}
p{margin:0 0 .9rem}
.why{color:#5a6472;font-size:.9rem;margin:1.25rem 0 0}
@media (prefers-color-scheme:dark){body{background:#12161c;color:#e6e9ee}main{background:#1c222b;box-shadow:none}.why{color:#9aa4b2}}
`

// pageCSPHash is the CSP source of pageCSS: 'sha256-<base64>'.
var pageCSPHash = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// cspPage is the callback's Content-Security-Policy.
var cspPage = fmt.Sprintf(cspPageFormat, pageCSPHash)

// The page's head. The style sheet is template text, not data, so it is
// written exactly as hashed.
const pageHead = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{{.Title}} · SurfSense</title>
<style>` + pageCSS + `</style>
</head>
<body>
<main>
`

const pageFoot = `</main>
</body>
</html>
`

// brokenTemplate is the 400 page. Why is one of the fixed sentences in
// whyText, never input; it still goes through html/template.
var brokenTemplate = template.Must(template.New("broken").Parse(pageHead + `<h1>This sign-in link is broken</h1>
<p>SurfSense could not finish signing you in: the link that brought you to this page is incomplete, was changed on the way, or was already used.</p>
<p><strong>What to do:</strong> go back to SurfSense and start the sign-in again. You can close this tab.</p>
<p class="why">{{.Why}}</p>
` + pageFoot))

// forwardTemplate is the body of the 303 answer. Browsers follow the
// Location header without showing it; a client that does not gets a link.
// The link is escaped by html/template.
var forwardTemplate = template.Must(template.New("forward").Parse(pageHead + `<h1>Returning to SurfSense…</h1>
<p>If nothing happens, <a href="{{.Target}}">continue to SurfSense</a>.</p>
` + pageFoot))

type brokenData struct {
	Title string
	Why   string
}

type forwardData struct {
	Title  string
	Target string
}

// render executes t. It fails only on a bug in the templates, which the
// tests would find; callers then answer without a body.
func render(t *template.Template, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("oauthpage: rendering the %s page: %w", t.Name(), err)
	}
	return b.Bytes(), nil
}
