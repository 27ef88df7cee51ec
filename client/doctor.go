package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/registry"
)

// DoctorOptions configures [Doctor].
type DoctorOptions struct {
	// Host is the plugin host's URL, such as http://127.0.0.1:8000; ""
	// means production, https://plugins.surfsense.com.
	Host string
	// License is the license key every request carries. It is never
	// printed.
	License string
	// Trust says whose signature /plugins.json must carry. When it is zero
	// and Verifier is nil, the registry's signature is not checked (a line
	// says so).
	Trust registry.Trust
	// Verifier, when set, verifies /plugins.json instead of one built from
	// Trust.
	Verifier Verifier
	// FirstParty is the first-party list to compare the host with; nil
	// means the list this build packages (registry.FirstPartyList).
	FirstParty *registry.List
	// HTTPClient and Lister make the requests; nil means the defaults.
	HTTPClient *http.Client
	Lister     *Lister
}

// failureWords are the check failures in the words doctor prints.
var failureWords = map[CheckFailure]string{
	CheckNeedsLicense:   "needs a license (missing_license)",
	CheckLicenseExpired: "license expired",
	CheckLicenseRevoked: "license revoked",
	CheckLicenseInvalid: "license not recognized (invalid)",
	CheckSignIn:         "refused the license (401/403 without a license reason)",
	CheckUnreachable:    "unreachable",
}

// Doctor checks a running plugin host the way the app would, and prints
// one line per finding to stdout: the registry's signature (when trust is
// given), whether the host serves the first-party list this build packages,
// each first-party plugin connected with the license (its check, and its
// tools against the list's, leaving out get_result), the license
// verdict from GET /license, and today's usage from GET /usage. It never prints the key. ok is false when
// anything is wrong (an expired license says "license expired"); err is
// only for options it cannot use.
func Doctor(ctx context.Context, opts DoctorOptions, stdout io.Writer) (ok bool, err error) {
	host, err := NewPluginHost(opts.Host)
	if err != nil {
		return false, err
	}
	if opts.Host == "" {
		host = PluginHost{}
	}
	fp := opts.FirstParty
	if fp == nil {
		if fp, err = registry.FirstPartyList(); err != nil {
			return false, fmt.Errorf("the first-party list this build packages: %w", err)
		}
	}
	verifier := opts.Verifier
	if verifier == nil && !opts.Trust.IsZero() {
		v, err := registry.NewVerifier(opts.Trust)
		if err != nil {
			return false, err
		}
		verifier = v
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = defaultOtherClient
	}

	d := &doctor{w: bufio.NewWriter(stdout), key: opts.License}
	d.line("plugin host", "--", host.URL())

	// The registry.
	if verifier == nil {
		d.line("registry", "--", "signature not checked: give a trust (public key, or issuer and identity) to verify /plugins.json")
	} else {
		r := &Registry{Host: host, Verifier: verifier, HTTPClient: hc}
		list, _, err := r.Fetch(ctx)
		if err != nil || list == nil {
			d.fail("registry", fmt.Sprintf("not verified: %v", err))
		} else {
			d.line("registry", "ok", fmt.Sprintf("verified: %d plugins, %d removed, generated %s",
				len(list.Plugins), len(list.Removed), list.GeneratedAt.Format(time.RFC3339)))
		}
	}

	// The first-party list the host serves.
	d.firstPartyServed(ctx, hc, host, fp)

	// Each first-party plugin, connected as the app does.
	c := &Client{
		Store: &MemoryStore{}, Host: host, License: StaticLicense{Key: opts.License},
		FirstParty: fp, Lister: opts.Lister, HTTPClient: hc,
	}
	for _, e := range c.firstParty().Plugins {
		d.plugin(ctx, c, e)
	}

	// The verdict.
	lv, err := c.CheckLicense(ctx, false)
	switch {
	case err != nil:
		d.fail("license", err.Error())
	case !lv.Asked:
		d.fail("license", "not asked: "+lv.Skipped+" (no first-party plugin connected with the license)")
	case !lv.Answered:
		d.fail("license", fmt.Sprintf("no verdict: %v", lv.Err))
	case lv.Failure != CheckOK:
		d.fail("license", failureWords[lv.Failure])
	default:
		var parts []string
		parts = append(parts, "valid")
		if lv.Plan != "" {
			parts = append(parts, "plan "+lv.Plan)
		}
		if !lv.ExpiresAt.IsZero() {
			parts = append(parts, "expires "+lv.ExpiresAt.Format("2006-01-02"))
		}
		d.line("license", "ok", strings.Join(parts, ", "))
	}
	d.usage(ctx, c)

	if d.problems == 0 {
		d.line("result", "ok", "no problem found")
	} else {
		d.line("result", "FAIL", fmt.Sprintf("%d problem(s)", d.problems))
	}
	if err := d.w.Flush(); err != nil {
		return false, err
	}
	return d.problems == 0, nil
}

type doctor struct {
	w        *bufio.Writer
	key      string
	problems int
}

func (d *doctor) line(what, status, msg string) {
	if d.key != "" {
		msg = strings.ReplaceAll(msg, d.key, "[license key]")
	}
	msg = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, msg)
	fmt.Fprintf(d.w, "%-14s %-4s  %s\n", what, status, msg)
}

func (d *doctor) fail(what, msg string) {
	d.problems++
	d.line(what, "FAIL", msg)
}

// firstPartyServed compares GET /first-party/plugins.json with this build's
// list: the same ids, each with the same tools.
func (d *doctor) firstPartyServed(ctx context.Context, hc *http.Client, host PluginHost, fp *registry.List) {
	data, err := getBytes(ctx, hc, host.Endpoint("/first-party/plugins.json"), registry.MaxListBytes)
	if err != nil {
		d.fail("first-party", err.Error())
		return
	}
	served, ps := registry.Check(registry.FirstParty, data, nil)
	if len(ps) > 0 {
		d.fail("first-party", fmt.Sprintf("the served list breaks its rules: %s", ps[0]))
		return
	}
	var diffs []string
	for _, e := range fp.Plugins {
		s := served.Lookup(e.ID)
		if s == nil {
			diffs = append(diffs, e.ID+" not served")
			continue
		}
		if m, x := registry.ToolsMatch(e.Tools, s.Tools); len(m)+len(x) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s lists other tools", e.ID))
		}
	}
	for _, id := range served.IDs() {
		if fp.Lookup(id) == nil {
			diffs = append(diffs, id+" not in this build's list")
		}
	}
	if len(diffs) > 0 {
		d.fail("first-party", "the served list differs from this build's: "+strings.Join(diffs, "; "))
		return
	}
	d.line("first-party", "ok", fmt.Sprintf("the host serves this build's list (%d plugins)", len(fp.Plugins)))
}

// plugin connects one first-party plugin and prints what it found.
func (d *doctor) plugin(ctx context.Context, c *Client, e registry.Entry) {
	p, err := c.ConnectFirstParty(ctx, e.ID)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.Err != nil {
			d.fail(e.ID, fmt.Sprintf("%s: %v", ae.Code, ae.Err))
		} else {
			d.fail(e.ID, err.Error())
		}
		return
	}
	if p.CheckFailure != CheckOK {
		d.fail(e.ID, failureWords[p.CheckFailure])
		return
	}
	tools, err := c.Store.Tools(ctx, p.ID)
	if err != nil {
		d.fail(e.ID, err.Error())
		return
	}
	var names []string
	var notReadOnly []string
	for _, t := range tools {
		names = append(names, t.Name)
		if slices.Contains(e.Tools, t.Name) && !t.Annotations.ReadOnly() {
			notReadOnly = append(notReadOnly, t.Name)
		}
	}
	missing, extra := registry.ToolsMatch(e.Tools, names)
	var msgs []string
	if len(missing) > 0 {
		msgs = append(msgs, "missing tools: "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		msgs = append(msgs, "tools not in the list: "+strings.Join(extra, ", "))
	}
	if len(notReadOnly) > 0 {
		msgs = append(msgs, "not annotated read-only: "+strings.Join(notReadOnly, ", "))
	}
	if len(msgs) > 0 {
		d.fail(e.ID, strings.Join(msgs, "; "))
		return
	}
	listed := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == registry.ResultTool })
	slices.Sort(listed)
	d.line(e.ID, "ok", "tools: "+strings.Join(listed, ", "))
}
