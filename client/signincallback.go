package client

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// callbackWait bounds how long the callback page waits for the sign-in to
// finish (the code exchange, the listing and storing) before it answers.
const callbackWait = 60 * time.Second

// CallbackHandler is the app's GET /plugins/oauth/callback, where the
// browser comes back from the provider, directly or forwarded by the plugin
// host's /oauth/callback page. It answers only a state this client issued,
// <CallbackPort>.<nonce>, once; a provider's error ends the sign-in
// (access_denied as declined). Otherwise it hands the code to the sign-in,
// waits for it to list the tools and store the plugin, and says in the page
// that the user is signed in, or why not. Nothing of the query is ever
// logged or shown.
func (c *Client) CallbackHandler() http.Handler {
	return http.HandlerFunc(c.serveCallback)
}

func (c *Client) serveCallback(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		callbackPage(w, http.StatusMethodNotAllowed, "Not a sign-in", "This address only takes the browser back from a sign-in.")
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(q["state"]) != 1 || len(r.URL.RawQuery) > 16<<10 {
		callbackPage(w, http.StatusBadRequest, "This sign-in link is broken", "Go back to SurfSense and start the sign-in again.")
		return
	}
	portText, nonce, ok := strings.Cut(q.Get("state"), ".")
	port, perr := strconv.Atoi(portText)
	if !ok || perr != nil || port != c.CallbackPort || c.CallbackPort == 0 || nonce == "" {
		callbackPage(w, http.StatusBadRequest, "This sign-in link is not SurfSense's", "Go back to SurfSense and start the sign-in again.")
		return
	}
	c.signs.mu.Lock()
	s := c.signs.byNonce[nonce]
	if s != nil {
		delete(c.signs.byNonce, nonce) // a state answers once
	}
	c.signs.mu.Unlock()
	if s == nil {
		callbackPage(w, http.StatusBadRequest, "This sign-in has ended", "It was finished, cancelled or replaced, or ten minutes passed. Go back to SurfSense and start the sign-in again.")
		return
	}
	res := callbackResult{code: q.Get("code"), iss: q.Get("iss"), errCode: q.Get("error"), errDescr: q.Get("error_description")}
	if res.errCode == "" && res.code == "" {
		res.errCode = "invalid_request"
		res.errDescr = "the provider sent no code"
	}
	select {
	case s.callback <- res:
	default:
	}
	ctx, cancel := context.WithTimeout(r.Context(), callbackWait)
	defer cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		callbackPage(w, http.StatusAccepted, "Finishing the sign-in…", "SurfSense is still finishing the sign-in to "+s.target.name+". Go back to SurfSense to see how it ends.")
		return
	}
	c.signs.mu.Lock()
	pub := s.pub
	c.signs.mu.Unlock()
	if pub.Status == SignInConnected {
		callbackPage(w, http.StatusOK, "Signed in to "+pub.Name, "You can close this tab and go back to SurfSense.")
		return
	}
	callbackPage(w, http.StatusOK, "Couldn’t sign in to "+pub.Name, pub.Message+" Go back to SurfSense to try again.")
}

var callbackTemplate = template.Must(template.New("callback").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Heading}} · SurfSense</title></head>
<body><main><h1>{{.Heading}}</h1><p>{{.Text}}</p></main></body></html>
`))

// callbackPage answers the browser with a small page saying heading and
// text, which never hold the query.
func callbackPage(w http.ResponseWriter, status int, heading, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if err := callbackTemplate.Execute(w, struct{ Heading, Text string }{heading, text}); err != nil {
		fmt.Fprintln(w, heading)
	}
}
