package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/surfsense/pluginhost"

// TestDependenciesPointOneWay holds the layout's rules (README, "Layout"):
// the host mounts what it is given and knows no site; no site knows the host;
// the registry knows no scraper; sites never import each other.
func TestDependenciesPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Skipf("go list is not usable here: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && strings.HasPrefix(f[0], module) {
			imports[f[0]] = f[1:]
		}
	}
	// deps is every package of the module pkg reaches (test files aside).
	deps := func(pkg string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for _, d := range imports[p] {
				if strings.HasPrefix(d, module) && !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(pkg)
		return seen
	}
	site := func(p string) bool {
		rest, ok := strings.CutPrefix(p, module+"/scrapers/")
		return ok && !strings.Contains(rest, "/") && rest != "all" && rest != "jsonval" && rest != "scrapertest" && rest != "render" && rest != "document" && rest != "sitemap" && rest != "robots"
	}
	for d := range deps(module + "/host") {
		if d == module+"/scrapers/all" || site(d) {
			t.Errorf("host imports %s: the host must mount the plugins it is given", d)
		}
	}
	for p := range imports {
		if !strings.HasPrefix(p, module+"/scrapers") {
			continue
		}
		for d := range deps(p) {
			if strings.HasPrefix(d, module+"/host") {
				t.Errorf("%s imports %s: nothing under scrapers/ may import the host", p, d)
			}
			if site(p) && site(d) {
				t.Errorf("%s imports %s: sites never import each other", p, d)
			}
		}
	}
	for d := range deps(module + "/registry") {
		if strings.HasPrefix(d, module+"/scrapers") {
			t.Errorf("registry imports %s", d)
		}
	}
	if len(imports) < 10 {
		t.Fatalf("go list named only %d packages of the module", len(imports))
	}
}
