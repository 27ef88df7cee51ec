package googlemaps

import (
	"net/http"
	"testing"
)

// NewStandIn gives the external tests (which run the plugin through the
// host, and so cannot live in this package) the package's own stand-in:
// searches finding places places, and places with reviews reviews, as
// Google's tbm=map and listugcposts answers.
func NewStandIn(t testing.TB, places, reviews int) http.Handler {
	return &mapsStandIn{t: t, places: places, reviews: reviews}
}
