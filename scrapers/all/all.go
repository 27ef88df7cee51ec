// Package all lists every plugin the host can mount. Adding a plugin is one
// package under scrapers/ and one line here.
package all

import (
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/amazon"
	"github.com/surfsense/pluginhost/scrapers/googlemaps"
	"github.com/surfsense/pluginhost/scrapers/googlesearch"
	"github.com/surfsense/pluginhost/scrapers/indeed"
	"github.com/surfsense/pluginhost/scrapers/instagram"
	"github.com/surfsense/pluginhost/scrapers/reddit"
	"github.com/surfsense/pluginhost/scrapers/tiktok"
	"github.com/surfsense/pluginhost/scrapers/walmart"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
	"github.com/surfsense/pluginhost/scrapers/youtube"
)

// Plugins is every plugin, listed ones and unlisted ones alike; the host
// mounts a plugin whose Unlisted is true only when UNLISTED_PLUGINS names it.
var Plugins = []scrapers.Constructor{
	amazon.New,
	googlemaps.New,
	googlesearch.New,
	indeed.New,
	instagram.New,
	reddit.New,
	tiktok.New,
	walmart.New,
	webcrawl.New,
	youtube.New,
}

// Build builds every plugin of Plugins from env, for what reads the plugins
// without mounting them (their variables, tools and schemas in checks).
func Build(env scrapers.Env) ([]scrapers.Plugin, error) {
	out := make([]scrapers.Plugin, 0, len(Plugins))
	for _, ctor := range Plugins {
		p, err := ctor(env)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
