package googlemaps

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// searchPageSize is how many places one tbm=map request asks for (Google's
// own page size).
const searchPageSize = 20

// viewport is the map area a search is made in. The zero value is the whole
// world, where Google places the results by what the query names ("coffee in
// Athens").
type viewport struct {
	Lat, Lng float64
	Zoom     float64 // 0 when unknown
}

// altitude is the camera distance in meters the pb parameter takes, from a
// zoom level (zoom 13 ≈ 4 km across).
func (v viewport) altitude() float64 {
	if v.Zoom <= 0 {
		return 20_000_000
	}
	alt := 40_000_000 / float64(uint64(1)<<min(uint(v.Zoom), 21))
	return max(alt, 100)
}

// searchURL is Google's tbm=map search for q, asking for searchPageSize
// places from offset on. pb carries the viewport (!4m…), the page size (!7i)
// and the offset (!8i), then the usual request options of the Maps web app.
func searchURL(q, hl, gl string, vp viewport, offset int) string {
	pb := fmt.Sprintf("!4m12!1m3!1d%.1f!2d%.6f!3d%.6f!2m3!1f0!2f0!3f0!3m2!1i1024!2i768!4f13.1"+
		"!7i%d!8i%d!10b1"+
		"!12m22!1m3!18b1!30b1!34e1!2m3!5m1!6e2!20e3!4b0!10b1!12b1!13b1!16b1!17m1!3e1!20m3!5e2!6b1!14b1!46m1!1b0"+
		"!96b1!19m4!2m3!1i360!2i120!4i8",
		vp.altitude(), vp.Lng, vp.Lat, searchPageSize, offset)
	v := url.Values{"tbm": {"map"}, "authuser": {"0"}, "hl": {hl}, "q": {q}}
	if gl != "" {
		v.Set("gl", gl)
	}
	return "https://www.google.com/search?" + v.Encode() + "&pb=" + pbEscape(pb)
}

// pbEscape escapes a pb value for a query string, keeping its ! separators
// readable as the Maps web app sends them.
func pbEscape(pb string) string {
	return strings.ReplaceAll(url.QueryEscape(pb), "%21", "!")
}

// parseSearch reads a tbm=map answer: the places of data[0][1][i][14]
// (i ≥ 1; [0] echoes the query), in Google's order.
func parseSearch(body []byte) ([]Place, error) {
	v, err := jsonval.Decode(stripXSSI(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotPlaces, err)
	}
	root, ok := v.([]any)
	if !ok {
		return nil, errNotPlaces
	}
	results := arr(root, 0, 1)
	var places []Place
	for i := 1; i < len(results); i++ {
		d := arr(results[i], 14)
		if d == nil || str(d, 11) == "" {
			continue
		}
		places = append(places, placeFrom(d, ""))
	}
	return places, nil
}

// viewportFromPath reads the "@lat,lng,zoomz" part of a Maps URL path.
func viewportFromPath(path string) (viewport, bool) {
	i := strings.Index(path, "/@")
	if i < 0 {
		return viewport{}, false
	}
	part := path[i+2:]
	if j := strings.IndexByte(part, '/'); j >= 0 {
		part = part[:j]
	}
	f := strings.Split(part, ",")
	if len(f) < 2 {
		return viewport{}, false
	}
	lat, err1 := strconv.ParseFloat(f[0], 64)
	lng, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lng < -180 || lng > 180 {
		return viewport{}, false
	}
	vp := viewport{Lat: lat, Lng: lng}
	if len(f) > 2 && strings.HasSuffix(f[2], "z") {
		if z, err := strconv.ParseFloat(strings.TrimSuffix(f[2], "z"), 64); err == nil && z > 0 && z <= 21 {
			vp.Zoom = z
		}
	}
	return vp, true
}
