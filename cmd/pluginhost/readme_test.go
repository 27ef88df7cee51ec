package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// readmeConfigNames are the variable names in the first column of the
// README's "Configuration" table.
func readmeConfigNames(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Configuration\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	names := map[string]bool{}
	name := regexp.MustCompile("`([A-Z0-9_<>]+)`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			names[m[1]] = true
		}
	}
	if len(names) == 0 {
		t.Fatal("README's Configuration table has no rows")
	}
	return names
}

// TestReadmeConfigTableMatchesTheHost holds the README's table to the host's
// own table (host.Vars), the per-plugin variables and every plugin's declared
// Vars, in both directions.
func TestReadmeConfigTableMatchesTheHost(t *testing.T) {
	want := map[string]bool{}
	for _, v := range host.Vars() {
		want[v.Name] = true
	}
	for _, v := range host.PerPluginVars() {
		want[v.Name] = true
	}
	plugins, err := all.Build(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plugins {
		for _, v := range p.Vars {
			want[v.Name] = true
		}
	}
	got := readmeConfigNames(t)
	var missing, extra []string
	for n := range want {
		if !got[n] {
			missing = append(missing, n)
		}
	}
	for n := range got {
		if !want[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("README's Configuration table lacks %v, which the host or a plugin reads (host/envvars.go, Plugin.Vars)", missing)
	}
	if len(extra) > 0 {
		t.Errorf("README's Configuration table names %v, which nothing reads", extra)
	}
}

// TestReadmeTestCommandIsCIRun: the README's test command is the script CI
// runs, so that a newcomer's green run is the full run, and that script runs
// every package's tests and closes on the skipped tests' line.
func TestReadmeTestCommandIsCIRun(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## The two commands\n")
	if start < 0 {
		t.Fatal(`README.md has no "## The two commands" section`)
	}
	section := text[start+1:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 {
		t.Fatalf("the two commands are %d sh blocks", len(blocks))
	}
	if got := strings.TrimSpace(blocks[1][1]); got != ".ci/run" {
		t.Errorf("the README's test command is %q, not .ci/run (what CI runs)", got)
	}
	script, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go test .*-json \./\.\.\. \| go run \./internal/testsummary$`).Match(script) {
		t.Error(".ci/run does not run every package's tests through internal/testsummary")
	}
}
