package indeed

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
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
	// A cursor of the one search the seed names, and one past Indeed's pages.
	one := search{host: "www.indeed.com", q: "baker"}
	for _, tok := range []string{"20", "-10", "7", "99999"} {
		f.Add([]byte(`{"queries":["baker"],"cursor":"` + scrapers.Cursor{Listing: one.key(), Token: tok, Skip: 3}.String() + `"}`))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, ok := scrapertest.DecodeArgs[scrapeArgs](t, raw)
		if !ok {
			return
		}
		if a.maxItems < 1 || a.maxItems > maxMaxItems || len(a.searches)+len(a.jobURLs) == 0 || !isIndeedHost(a.host) {
			t.Fatalf("accepted out of bounds: %+v", a)
		}
		if c := a.cursor; c.Token != "" {
			n, err := strconv.Atoi(c.Token)
			if len(a.searches) != 1 || len(a.jobURLs) != 0 || err != nil || n < 0 || n%searchPageStep != 0 || n > 100*searchPageStep {
				t.Fatalf("accepted cursor %+v for %d searches", c, len(a.searches))
			}
		}
		for _, raw := range a.jobURLs {
			u, err := url.Parse(raw)
			if err != nil || !isIndeedHost(u.Hostname()) || u.Query().Get("jk") == "" {
				t.Fatalf("job URL %q", raw)
			}
		}
	})
}
