package client

import (
	"slices"

	"github.com/surfsense/pluginhost/registry"
)

// rewriteList returns a copy of list with every URL and host on
// plugins.surfsense.com moved to h (SURFSENSE_LOCAL_PLUGIN_HOST_URL); a
// production h returns a plain copy.
func rewriteList(h PluginHost, list *registry.List) *registry.List {
	if list == nil {
		return nil
	}
	out := *list
	out.Plugins = make([]registry.Entry, len(list.Plugins))
	for i, e := range list.Plugins {
		e.URL = h.Rewrite(e.URL)
		e.Hosts = slices.Clone(e.Hosts)
		for j, host := range e.Hosts {
			e.Hosts[j] = h.RewriteHost(host)
		}
		e.Tools = slices.Clone(e.Tools)
		out.Plugins[i] = e
	}
	out.Removed = slices.Clone(list.Removed)
	return &out
}

// entryHosts returns an entry's hosts with its URL's host among them.
func entryHosts(e *registry.Entry) []string {
	hosts := []string{}
	add := func(h string) {
		h = normHost(h)
		if h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	add(urlHost(e.URL))
	for _, h := range e.Hosts {
		add(h)
	}
	return hosts
}
