// Package indeed is SurfSense's Indeed plugin: one tool, scrape, that runs job
// searches (the job cards Indeed embeds in window.mosaic.providerData) and
// reads job pages (window._initialData), on any country's Indeed site.
//
// INDEED_BASE_URL points every request, to any Indeed host (www.indeed.com,
// au.indeed.com, …), at another origin, keeping path and query.
package indeed

import (
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "indeed"

// site is Indeed as the fetching layer sees it.
var site = scrapers.Site{
	ID:     ID,
	Name:   "Indeed",
	Origin: "https://www.indeed.com",
	// "indeed." matches indeed.<any tld> and its subdomains (au., uk., …).
	Domains:     []string{"indeed."},
	DetectBlock: detectBlock,
}

const scrapeDescription = `Scrape Indeed jobs: title, company, location, salary, job types, when posted, a snippet, and with include_details the full description and benefits.
Search with queries and/or position plus location on the country's Indeed site (country, default us), or give job URLs (/viewjob?jk=…) or search URLs in urls. max_items caps the jobs per search (default 10); parse_company_details adds the employer's Indeed rating, reviews and page. A call that runs one search returns next_cursor when Indeed has more jobs; pass it back as cursor for the next ones. Every job names its Indeed page in "url".`

// New builds the Indeed plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("indeed: %w", err)
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:   ID,
		Name: "Indeed",
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape Indeed", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.ItemSchema[Job]()).WithCursor(),
		},
	}, nil
}
