// Package scrapers holds what SurfSense's scraper plugins share: the shape of a
// plugin and its tools ([Plugin], [Tool], [NewTool]), the per-call collector
// of items ([Call]), the errors a tool reports ([ArgError], [BlockedError],
// [SiteError]) and the fetching layer every site uses ([Fetcher]).
//
// A site is one package under scrapers/ (scrapers/webcrawl, scrapers/amazon,
// …) exporting New, a [Constructor]. Sites never import each other, and
// nothing under scrapers/ imports the host: scrapers/all lists the sites,
// cmd/pluginhost hands that list to the host, and the host mounts each at
// /<id>/mcp. Adding a site is one package and one line in scrapers/all.
//
// A site's tools add items to their [Call] as they go, so that a deadline or a
// cancel still returns what was gathered; a tool's item type is published as
// its output schema ([Tool.ItemSchema]). Every request to the site goes
// through a [Fetcher], so that <ID>_BASE_URL, proxies, retries, politeness,
// size caps, block detection and the address guard (internal/netguard) hold
// for all of them, and every attempt is reported ([Env.Upstream]). Every page
// in flight, a fetcher's or web-crawl's, takes a place in the process's
// [PageBudget] ([Env.Pages]): a count and the bytes its body holds while read
// and parsed, so that a replica fetches as many pages at once as its memory
// allows, beside each site's own politeness.
//
// A file per idea: plugin.go (plugins, tools, Env), call.go (Call), args.go
// (strict argument decoding), errors.go, schema.go (schema helpers), job.go
// and serial.go (running sources concurrently or one by one), fetch.go,
// fetch_colly.go, retry.go, proxy.go, headers.go, politeness.go, pagebudget.go,
// guard.go and upstream.go (the fetching layer).
package scrapers
