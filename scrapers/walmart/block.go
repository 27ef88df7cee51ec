package walmart

import (
	"bytes"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// Walmart's bot defence (PerimeterX) answers with a "Robot or human?" page
// holding a press-and-hold captcha (div#px-captcha), often after a redirect
// to /blocked?url=….
var robotMarks = [][]byte{
	[]byte("Robot or human?"),
	[]byte(`id="px-captcha"`),
	[]byte("px-captcha"),
}

// detectBlock is the Site.DetectBlock of Walmart.
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := r.URL != nil && strings.HasPrefix(r.URL.Path, "/blocked")
	for _, m := range robotMarks {
		if blocked {
			break
		}
		blocked = bytes.Contains(r.Body, m)
	}
	if !blocked {
		return nil
	}
	u := ""
	if r.Request != nil {
		u = r.Request.URL
	}
	return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRobotCheck, URL: u}
}
