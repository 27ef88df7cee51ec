package oauthpage

import "net/http"

// Content-Security-Policy values. Each answer gets the narrowest one: nothing
// here loads a script, a frame, a font or an image, and "sandbox" makes a
// document that somehow ran one unable to reach anything.
const (
	// cspDocument is for client.json and logo.svg.
	cspDocument = "default-src 'none'; frame-ancestors 'none'; sandbox"
	// cspPageFormat is for the callback's HTML; %s is the hash of its one
	// inline style sheet.
	cspPageFormat = "default-src 'none'; style-src '%s'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox"
)

// setSecurityHeaders sets the headers every answer carries.
func setSecurityHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
}
