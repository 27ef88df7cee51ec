package indeed

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// searchPage wraps job cards JSON in a page the way Indeed serves it.
func searchPage(cards []byte) []byte {
	return []byte(`<!DOCTYPE html><html><head><title>Jobs | Indeed</title></head><body><div id="mosaic-provider-jobcards"></div>` +
		`<script>window.mosaic = window.mosaic || {}; window.mosaic.providerData["mosaic-provider-jobcards"]=` + string(cards) +
		`;window.mosaic.providerData["mosaic-provider-other"]={};</script></body></html>`)
}

func TestParseJobPageRealFixture(t *testing.T) {
	j, err := parseJobPage(scrapertest.Fixture(t, "indeed/viewjob-page.html"), "www.indeed.com")
	if err != nil {
		t.Fatal(err)
	}
	if j.Title != "Senior DevOps Engineer" || j.Company != "PaperCut Software" || j.Location != "Camberwell VIC 3124" {
		t.Errorf("title %q company %q location %q", j.Title, j.Company, j.Location)
	}
	if j.URL != "https://au.indeed.com/viewjob?jk=54f1f8af68d722d2" || j.JobKey != "54f1f8af68d722d2" || j.Country != "AU" {
		t.Errorf("url %q key %q country %q", j.URL, j.JobKey, j.Country)
	}
	if j.Salary == nil || j.Salary.Text != "$130,000 - $160,000 a year" || *j.Salary.Min != 130000 || *j.Salary.Max != 160000 || j.Salary.Currency != "AUD" || j.Salary.Period != "YEARLY" {
		t.Errorf("salary = %+v", j.Salary)
	}
	if !reflect.DeepEqual(j.JobTypes, []string{"Full-time"}) || j.Posted != "8 days ago" || j.Remote != "Hybrid work" || !reflect.DeepEqual(j.Benefits, []string{"Parental leave"}) {
		t.Errorf("types %v posted %q remote %q benefits %v", j.JobTypes, j.Posted, j.Remote, j.Benefits)
	}
	if !strings.HasPrefix(j.Description, "Company Description\n\nAt PaperCut, we believe two things") || strings.Contains(j.Description, "<") {
		t.Errorf("description starts %q", j.Description[:80])
	}
	if !strings.Contains(j.Description, "\n• Build the Foundation:") || !strings.HasPrefix(j.DescriptionHTML, "<div>") {
		t.Error("description lost its list or the HTML")
	}
	c := j.withCompanyDetails().CompanyDetails
	if c == nil || *c.Rating != 4 || *c.ReviewCount != 2 || c.URL != "https://au.indeed.com/cmp/Papercut-Software" {
		t.Errorf("company = %+v", c)
	}
	if j.CompanyDetails != nil {
		t.Error("company details shown without being asked for")
	}
}

func TestParseSearchPageRealFixture(t *testing.T) {
	jobs, err := parseSearchPage(searchPage(scrapertest.Fixture(t, "indeed/mosaic-jobcards.json")), "www.indeed.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Fatalf("jobs = %d, want 3", len(jobs))
	}
	j := jobs[0]
	if j.JobKey != "7b993d015f4b257a" || j.Title != "Software Developer" || j.Company != "TherapyNotes.com" || j.Location != "Philadelphia, PA" {
		t.Errorf("first = %+v", j)
	}
	if j.URL != "https://www.indeed.com/viewjob?jk=7b993d015f4b257a" || j.Posted != "30+ days ago" || j.PostedAt != "2026-03-23T05:00:00Z" {
		t.Errorf("url %q posted %q %q", j.URL, j.Posted, j.PostedAt)
	}
	if j.Salary == nil || j.Salary.Text != "$65,000 - $115,000 a year" || *j.Salary.Min != 65000 || *j.Salary.Max != 115000 {
		t.Errorf("salary = %+v", j.Salary)
	}
	if !strings.HasPrefix(j.Snippet, "• We are looking for a passionate engineer") || strings.Contains(j.Snippet, "<") {
		t.Errorf("snippet = %q", j.Snippet)
	}
	if up := jobs[2].Salary; up == nil || up.Min != nil || *up.Max != 100 || up.Period != "HOURLY" {
		t.Errorf("'up to' salary = %+v", up)
	}
	for _, j := range jobs {
		if j.JobKey == "" || j.Title == "" || j.Company == "" || !strings.HasPrefix(j.URL, "https://www.indeed.com/viewjob?jk=") {
			t.Errorf("incomplete job %+v", j)
		}
	}
}

func TestParseOwnPages(t *testing.T) {
	jobs, err := parseSearchPage(scrapertest.Testdata(t, "search-page.html"), "uk.indeed.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("jobs = %+v", jobs)
	}
	a, b := jobs[0], jobs[1]
	if a.Company != "Crumb & Co" || a.Snippet != "• Lead a team of four bakers.\n• Early starts & weekends." || !reflect.DeepEqual(a.JobTypes, []string{"Full-time", "Permanent"}) {
		t.Errorf("first = %+v", a)
	}
	if c := a.withCompanyDetails().CompanyDetails; c == nil || c.URL != "https://uk.indeed.com/cmp/Crumb-Co" || *c.Rating != 4.4 {
		t.Errorf("company = %+v", c)
	}
	if b.Remote != "Remote" || !reflect.DeepEqual(b.JobTypes, []string{"Part-time"}) || b.Salary != nil || b.withCompanyDetails().CompanyDetails.Rating != nil {
		t.Errorf("second = %+v", b)
	}

	j, err := parseJobPage(scrapertest.Testdata(t, "job-page.html"), "www.indeed.com")
	if err != nil {
		t.Fatal(err)
	}
	if j.URL != "https://uk.indeed.com/viewjob?jk=aaaa111122223333" || j.PostedAt != "2026-01-01T00:00:00Z" || !reflect.DeepEqual(j.Benefits, []string{"Free bread", "Pension"}) {
		t.Errorf("job = %+v", j)
	}
	wantDesc := "We bake everything by hand.\n\nYou will\n\n• Run the ovens\n• Order flour\n\nPay: £28k–£32k\nHours: 5am–1pm"
	if j.Description != wantDesc {
		t.Errorf("description = %q\nwant          %q", j.Description, wantDesc)
	}
	if j.Salary == nil || *j.Salary.Min != 28000 || j.Salary.Currency != "GBP" || !reflect.DeepEqual(j.JobTypes, []string{"Full-time", "Permanent"}) {
		t.Errorf("salary %+v types %v", j.Salary, j.JobTypes)
	}
	if c := j.withCompanyDetails().CompanyDetails; c.URL != "https://uk.indeed.com/cmp/Crumb-Co" || c.Logo == "" {
		t.Errorf("company = %+v (tracking parameters should be gone)", c)
	}
	// A card completed by its page.
	a.merge(j)
	if a.Description != wantDesc || a.Salary.Min == nil || *a.Salary.Min != 28000 || a.Title != "Head Baker" || len(a.Benefits) != 2 {
		t.Errorf("merged = %+v", a)
	}
}

func TestParseBrokenPages(t *testing.T) {
	for name, body := range map[string]string{
		"no cards":   `<html><body>nothing</body></html>`,
		"bad json":   `<script>window.mosaic.providerData["mosaic-provider-jobcards"]={"metaData":</script>`,
		"no results": `<script>window.mosaic.providerData['mosaic-provider-jobcards'] = {"metaData":{"mosaicProviderJobCardsModel":{}}};</script>`,
	} {
		if jobs, err := parseSearchPage([]byte(body), "www.indeed.com"); err == nil {
			t.Errorf("search %s: jobs %v, want an error", name, jobs)
		}
	}
	for name, body := range map[string]string{
		"no data":    `<html></html>`,
		"bad json":   `<script>window._initialData={"jobInfoWrapperModel":</script>`,
		"no wrapper": `<script>window._initialData={"jobKey":"x"};</script>`,
		"no title":   `<script>window._initialData={"jobInfoWrapperModel":{"jobInfoModel":{"jobInfoHeaderModel":{}}}};</script>`,
	} {
		if j, err := parseJobPage([]byte(body), "www.indeed.com"); err == nil {
			t.Errorf("job %s: %+v, want an error", name, j)
		}
	}
	// Odd types give zero values.
	odd := `<script>window._initialData={"jobKey":5,"baseUrl":"https://evil.example","salaryInfoModel":{"salaryMin":"x","salaryText":{"a":7}},"benefitsModel":{"benefits":"many"},
		"jobInfoWrapperModel":{"jobInfoModel":{"jobInfoHeaderModel":{"jobTitle":"T","companyReviewModel":[]},"sanitizedJobDescription":["x"],"jobMetadataHeaderModel":{"jobType":[3]}}}};</script>`
	j, err := parseJobPage([]byte(odd), "www.indeed.com")
	if err != nil {
		t.Fatal(err)
	}
	if j.URL != "https://www.indeed.com/viewjob?jk=5" || j.Salary != nil || j.Description != "" || j.Benefits != nil || j.JobTypes != nil {
		t.Errorf("job = %+v", j)
	}
}

func TestHTMLToText(t *testing.T) {
	for in, want := range map[string]string{
		"plain   text\n\n\n\nmore":                        "plain text\n\nmore",
		"a&amp;b &lt;c&gt;":                               "a&b <c>",
		"<div>one</div><div>two</div>":                    "one\n\ntwo",
		"x<br>y<br/>z":                                    "x\ny\nz",
		"<ul><li>a</li><li><b>b</b> c</li></ul>tail":      "• a\n• b c\n\ntail",
		"<style>p{}</style><p>kept</p><script>x</script>": "kept",
		"<table><tr><td>a</td><td>b</td></tr></table>":    "a b",
		"<p>unclosed <b>bold":                             "unclosed bold",
		"":                                                "",
	} {
		if got := htmlToText(in); got != want {
			t.Errorf("htmlToText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(status int, final string, hdr http.Header, body []byte) *scrapers.Response {
		u, _ := url.Parse(final)
		if hdr == nil {
			hdr = http.Header{}
		}
		return &scrapers.Response{Request: &scrapers.Request{URL: "https://www.indeed.com/jobs?q=x"}, URL: u, StatusCode: status, Body: body, Header: hdr}
	}
	cf := scrapertest.Testdata(t, "cloudflare.html")
	if b, err := scrapertest.ReadFixture("webpages/cloudflare-challenge-2025.html"); err == nil {
		cf = b
	}
	cases := []struct {
		name string
		r    *scrapers.Response
		kind string
	}{
		{"cloudflare challenge", resp(403, "https://www.indeed.com/jobs?q=x", nil, cf), scrapers.BlockRobotCheck},
		{"cf-mitigated header", resp(403, "https://www.indeed.com/jobs?q=x", http.Header{"Cf-Mitigated": {"challenge"}}, nil), scrapers.BlockRobotCheck},
		{"hcaptcha", resp(200, "https://www.indeed.com/jobs?q=x", nil, scrapertest.Testdata(t, "hcaptcha.html")), scrapers.BlockCaptcha},
		{"sign-in wall", resp(200, "https://secure.indeed.com/auth?continue=x", nil, []byte("<html>Sign in</html>")), scrapers.BlockLoginWall},
		{"search page", resp(200, "https://www.indeed.com/jobs?q=x", nil, scrapertest.Testdata(t, "search-page.html")), ""},
		{"job page", resp(200, "https://www.indeed.com/viewjob?jk=x", nil, scrapertest.Testdata(t, "job-page.html")), ""},
		{"404", resp(404, "https://www.indeed.com/viewjob?jk=x", nil, []byte("gone")), ""},
	}
	if real, err := scrapertest.ReadFixture("indeed/viewjob-page.html"); err == nil {
		// The real job page loads Cloudflare's challenge-platform script.
		cases = append(cases, struct {
			name string
			r    *scrapers.Response
			kind string
		}{"real job page", resp(200, "https://au.indeed.com/viewjob?jk=54f1f8af68d722d2", nil, real), ""})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { scrapertest.CheckBlock(t, detectBlock(c.r), c.kind, "Indeed") })
	}
}

// TestSalaryWithoutAnUpperBound: Indeed's extractedSalary says -1 for the
// end of a range it has not got ("From £25 an hour"); that end is absent,
// never a maximum of -1.
func TestSalaryWithoutAnUpperBound(t *testing.T) {
	page := `<script>window.mosaic.providerData["mosaic-provider-jobcards"]={"metaData":{"mosaicProviderJobCardsModel":{"results":[` +
		`{"jobkey":"aaaa000000000001","title":"Baker","salarySnippet":{"currency":"GBP","text":"From £25 an hour"},"extractedSalary":{"max":-1,"min":25,"type":"HOURLY"}},` +
		`{"jobkey":"aaaa000000000002","title":"Cook","salarySnippet":{"currency":"GBP","text":"Up to £30,000 a year"},"extractedSalary":{"max":30000,"min":-1,"type":"YEARLY"}},` +
		`{"jobkey":"aaaa000000000003","title":"Porter","extractedSalary":{"max":-1,"min":-1,"type":"YEARLY"}}` +
		`]}}};</script>`
	jobs, err := parseSearchPage([]byte(page), "uk.indeed.com")
	if err != nil || len(jobs) != 3 {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	if s := jobs[0].Salary; s == nil || s.Min == nil || *s.Min != 25 || s.Max != nil || s.Period != "HOURLY" {
		t.Errorf("from £25: salary %+v", s)
	}
	if s := jobs[1].Salary; s == nil || s.Min != nil || s.Max == nil || *s.Max != 30000 {
		t.Errorf("up to £30,000: salary %+v", s)
	}
	if s := jobs[2].Salary; s != nil {
		t.Errorf("no bounds and no text: salary %+v, want none", s)
	}
	b, _ := json.Marshal(jobs[0])
	if strings.Contains(string(b), `"max"`) || strings.Contains(string(b), "-1") {
		t.Errorf("job as JSON carries the missing bound: %s", b)
	}
	// The job page's salaryInfoModel says the same.
	j, err := parseJobPage([]byte(`<script>window._initialData={"jobKey":"aaaa000000000004","salaryInfoModel":{"salaryMin":40000,"salaryMax":-1,"salaryType":"YEARLY","salaryText":"From $40,000 a year"},
		"jobInfoWrapperModel":{"jobInfoModel":{"jobInfoHeaderModel":{"jobTitle":"Chef"}}}};</script>`), "www.indeed.com")
	if err != nil || j.Salary == nil || j.Salary.Max != nil || *j.Salary.Min != 40000 {
		t.Errorf("job page: salary %+v, %v", j.Salary, err)
	}
}
