package indeed

import (
	"net/url"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// FuzzScrapeArgs: any arguments are refused naming the argument, or
// accepted within the bounds.
func FuzzScrapeArgs(f *testing.F) {
	for _, s := range []string{
		`{"queries":["devops engineer"],"location":"Leeds","country":"uk","max_items":100,"include_details":true,"parse_company_details":true}`,
		`{"urls":["https://au.indeed.com/viewjob?jk=54f1f8af68d722d2","https://www.indeed.com/jobs?q=baker&l=Austin"]}`,
		`{"position":"baker"}`, `{"country":"zz","queries":["x"]}`, `{"urls":["https://evil.example/viewjob?jk=1"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, ok := scrapertest.DecodeArgs[scrapeArgs](t, raw)
		if !ok {
			return
		}
		if a.maxItems < 1 || a.maxItems > maxMaxItems || len(a.searches)+len(a.jobURLs) == 0 || !isIndeedHost(a.host) {
			t.Fatalf("accepted out of bounds: %+v", a)
		}
		for _, raw := range a.jobURLs {
			u, err := url.Parse(raw)
			if err != nil || !isIndeedHost(u.Hostname()) || u.Query().Get("jk") == "" {
				t.Fatalf("job URL %q", raw)
			}
		}
	})
}
