package client

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/registry"
)

// doctorList is testFirstParty with what the first-party check requires.
func doctorList() *registry.List {
	l := testFirstParty()
	for i := range l.Plugins {
		l.Plugins[i].About = "Finds things for the agent on " + l.Plugins[i].Name + "."
	}
	return l
}

// doctorHost is a fake host serving the first-party list and a registry
// signed with a key made for the test; it returns the trust.
func doctorHost(t *testing.T) (*fakeHost, registry.Trust) {
	t.Helper()
	h := newFakeHost(t, doctorList())
	h.setKey(testKey, "valid")
	fp, _ := json.Marshal(doctorList())
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(key.Public())
	list := []byte(registryJSON("2026-11-30T10:00:00Z"))
	bundle, err := registry.SignBytes(key, list)
	if err != nil {
		t.Fatal(err)
	}
	h.files["/first-party/plugins.json"] = fp
	h.files["/plugins.json"] = list
	h.files["/plugins.json.sigstore.json"] = bundle
	return h, registry.Trust{PublicKey: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})}
}

func TestDoctor(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(h *fakeHost, opts *DoctorOptions)
		ok     bool
		expect []string // lines (substrings) the output must hold
	}{
		{"a healthy host", nil, true, []string{
			"registry       ok    verified: 1 plugins, 0 removed, generated 2026-11-30T10:00:00Z",
			"first-party    ok    the host serves this build's list (3 plugins)",
			"google-search  ok    tools: search",
			"google-maps    ok    tools: reviews, scrape",
			"license        ok    valid, plan team, expires 2027-03-01",
			"result         ok    no problem found",
		}},
		{"no trust given", func(h *fakeHost, o *DoctorOptions) { o.Trust = registry.Trust{} }, true, []string{
			"registry       --    signature not checked",
		}},
		{"an expired license", func(h *fakeHost, o *DoctorOptions) { h.setKey(testKey, "expired") }, false, []string{
			"amazon         FAIL  license expired",
			"license        FAIL  license expired",
		}},
		{"a revoked license", func(h *fakeHost, o *DoctorOptions) { h.setKey(testKey, "revoked") }, false, []string{
			"license        FAIL  license revoked",
		}},
		{"no license", func(h *fakeHost, o *DoctorOptions) { o.License = "" }, false, []string{
			"license        FAIL  needs a license",
		}},
		{"a server missing a listed tool and serving another", func(h *fakeHost, o *DoctorOptions) {
			h.servers["google-maps"].RemoveTools("reviews")
			h.servers["google-maps"].AddTool(readOnlyTool("photos", "Photos."), nil)
		}, false, []string{
			"google-maps    FAIL  missing tools: reviews; tools not in the list: photos",
			"amazon         ok    tools: scrape",
		}},
		{"a tool not annotated read-only", func(h *fakeHost, o *DoctorOptions) {
			h.servers["amazon"].AddTool(&mcp.Tool{Name: "scrape", Description: "Scrapes.", InputSchema: map[string]any{"type": "object"}}, nil)
		}, false, []string{
			"amazon         FAIL  not annotated read-only: scrape",
		}},
		{"a server that fails", func(h *fakeHost, o *DoctorOptions) {
			h.mcpHook = func(id string, w http.ResponseWriter, r *http.Request) bool {
				if id == "amazon" {
					refuse(w, 502, "")
					return true
				}
				return false
			}
		}, false, []string{
			"amazon         FAIL  plugin_unreachable:",
			"google-search  ok",
		}},
		{"no license verdict", func(h *fakeHost, o *DoctorOptions) {
			h.licenseHook = func(w http.ResponseWriter, r *http.Request) bool {
				refuse(w, 503, "license_service_unavailable")
				return true
			}
		}, false, []string{
			"license        FAIL  no verdict:",
		}},
		{"a registry whose signature does not verify", func(h *fakeHost, o *DoctorOptions) {
			h.files["/plugins.json"] = bytes.Replace(h.files["/plugins.json"], []byte("Quill"), []byte("Quail"), 1)
		}, false, []string{
			"registry       FAIL  not verified:",
		}},
		{"another trust", func(h *fakeHost, o *DoctorOptions) {
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			der, _ := x509.MarshalPKIXPublicKey(key.Public())
			o.Trust = registry.Trust{PublicKey: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})}
		}, false, []string{
			"registry       FAIL  not verified:",
		}},
		{"a served first-party list that differs", func(h *fakeHost, o *DoctorOptions) {
			l := doctorList()
			l.Plugins = l.Plugins[:2]
			l.Plugins[1].Tools = []string{"scrape", "details"}
			h.files["/first-party/plugins.json"], _ = json.Marshal(l)
		}, false, []string{
			"first-party    FAIL  the served list differs from this build's: amazon lists other tools; google-maps not served",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, trust := doctorHost(t)
			opts := DoctorOptions{Host: h.URL(), License: testKey, Trust: trust, FirstParty: doctorList(), Lister: quickLister()}
			if tc.setup != nil {
				tc.setup(h, &opts)
			}
			var out bytes.Buffer
			ok, err := Doctor(context.Background(), opts, &out)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			for _, want := range tc.expect {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			if strings.Contains(out.String(), testKey) {
				t.Errorf("the output shows the license key:\n%s", out.String())
			}
			if !tc.ok && !strings.Contains(out.String(), "result         FAIL") {
				t.Errorf("no failing result line:\n%s", out.String())
			}
		})
	}
}

func TestDoctorHostDown(t *testing.T) {
	h, trust := doctorHost(t)
	h.srv.Close()
	var out bytes.Buffer
	ok, err := Doctor(context.Background(), DoctorOptions{Host: h.URL(), License: testKey, Trust: trust, FirstParty: doctorList(), Lister: quickLister()}, &out)
	if err != nil || ok {
		t.Fatalf("ok %v err %v", ok, err)
	}
	if n := strings.Count(out.String(), "FAIL"); n < 6 {
		t.Errorf("%d failures for a host that is down:\n%s", n, out.String())
	}
}

func TestDoctorBadOptions(t *testing.T) {
	for _, opts := range []DoctorOptions{
		{Host: "ftp://x"},
		{Host: "http://127.0.0.1:1", Trust: registry.Trust{PublicKey: []byte("not a key")}},
	} {
		if _, err := Doctor(context.Background(), opts, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v: no error", opts.Host)
		}
	}
}
