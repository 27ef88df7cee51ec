package indeed

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Job is one Indeed job as the tool returns it.
type Job struct {
	URL             string          `json:"url"`
	JobKey          string          `json:"job_key"`
	Title           string          `json:"title"`
	Company         string          `json:"company,omitempty"`
	Location        string          `json:"location,omitempty"`
	Remote          string          `json:"remote,omitempty"` // "Remote", "Hybrid work"
	Salary          *Salary         `json:"salary,omitempty"`
	JobTypes        []string        `json:"job_types,omitempty"`
	Posted          string          `json:"posted,omitempty"`    // as Indeed words it: "8 days ago"
	PostedAt        string          `json:"posted_at,omitempty"` // RFC 3339, UTC
	Snippet         string          `json:"snippet,omitempty"`
	Description     string          `json:"description,omitempty"`      // plain text
	DescriptionHTML string          `json:"description_html,omitempty"` // Indeed's sanitized HTML
	Benefits        []string        `json:"benefits,omitempty"`
	Sponsored       bool            `json:"sponsored,omitempty"`
	Expired         bool            `json:"expired,omitempty"`
	Country         string          `json:"country,omitempty"`
	CompanyDetails  *CompanyDetails `json:"company_details,omitempty"`
	// DetailsError says why the job's page could not be read, when details
	// were asked for.
	DetailsError string `json:"details_error,omitempty"`
	// SearchQuery, SearchLocation and Rank say where a search found the job.
	SearchQuery    string `json:"search_query,omitempty"`
	SearchLocation string `json:"search_location,omitempty"`
	Rank           int    `json:"rank,omitempty"`

	company CompanyDetails // always read; returned when asked for
}

// Salary is a job's pay as Indeed states or estimates it.
type Salary struct {
	Text     string   `json:"text,omitempty"` // "$130,000 - $160,000 a year"
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Period   string   `json:"period,omitempty"` // YEARLY, MONTHLY, HOURLY, …
	Currency string   `json:"currency,omitempty"`
}

// CompanyDetails is what Indeed says about a job's employer.
type CompanyDetails struct {
	Name          string   `json:"name,omitempty"`
	Rating        *float64 `json:"rating,omitempty"`
	ReviewCount   *int64   `json:"review_count,omitempty"`
	URL           string   `json:"url,omitempty"` // the employer's Indeed page
	ReviewsURL    string   `json:"reviews_url,omitempty"`
	Logo          string   `json:"logo,omitempty"`
	ParentCompany string   `json:"parent_company,omitempty"`
}

var (
	errNoJobCards = errors.New("the search page carries no job cards (window.mosaic.providerData[\"mosaic-provider-jobcards\"] missing); Indeed may have changed its pages")
	errNoJobData  = errors.New("the job page carries no job data (window._initialData missing or without jobInfoWrapperModel); Indeed may have changed its pages")
)

// An assignment the pages make: the script text before "=" (after optional
// spaces), and what may come right before it.
type assignment struct {
	keys   []string
	before func(prefix []byte) bool
}

var (
	// window.mosaic.providerData["mosaic-provider-jobcards"]={…}
	mosaicJobCards = assignment{
		keys:   []string{`["mosaic-provider-jobcards"]`, `['mosaic-provider-jobcards']`},
		before: func(p []byte) bool { return bytes.HasSuffix(p, []byte("providerData")) },
	}
	// window._initialData={…}
	initialData = assignment{
		keys: []string{"_initialData"},
		before: func(p []byte) bool {
			if len(p) == 0 {
				return true
			}
			c := p[len(p)-1]
			return !(c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
		},
	}
)

// find returns where the assigned value starts in body.
func (a assignment) find(body []byte) (int, bool) {
	for _, key := range a.keys {
		k := []byte(key)
		for off := 0; off < len(body); {
			i := bytes.Index(body[off:], k)
			if i < 0 {
				break
			}
			i += off
			off = i + len(k)
			if !a.before(body[:i]) {
				continue
			}
			j := skipSpaces(body, off)
			if j < len(body) && body[j] == '=' && (j+1 == len(body) || body[j+1] != '=') {
				return skipSpaces(body, j+1), true
			}
		}
	}
	return 0, false
}

// match reports whether body makes the assignment.
func (a assignment) match(body []byte) bool {
	_, ok := a.find(body)
	return ok
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonAfter decodes the JSON value the page assigns.
func jsonAfter(body []byte, a assignment) (any, bool, error) {
	at, ok := a.find(body)
	if !ok {
		return nil, false, nil
	}
	v, err := jsonval.Decode(body[at:])
	if err != nil {
		return nil, true, err
	}
	return v, true, nil
}

// parseSearchPage reads the job cards of an Indeed search page; host is the
// Indeed host the page is for (www.indeed.com, au.indeed.com, …).
func parseSearchPage(body []byte, host string) ([]Job, error) {
	v, found, err := jsonAfter(body, mosaicJobCards)
	switch {
	case !found:
		return nil, errNoJobCards
	case err != nil:
		return nil, fmt.Errorf("the search page's job cards are not valid JSON: %w", err)
	}
	results, ok := jsonval.Get(v, "metaData", "mosaicProviderJobCardsModel", "results").([]any)
	if !ok {
		return nil, errNoJobCards
	}
	jobs := make([]Job, 0, len(results))
	for _, r := range results {
		if m := jsonval.Object(r); m != nil {
			if j, ok := jobFromCard(m, host); ok {
				jobs = append(jobs, j)
			}
		}
	}
	return jobs, nil
}

// jobFromCard reads one result of mosaicProviderJobCardsModel.
func jobFromCard(m map[string]any, host string) (Job, bool) {
	j := Job{
		JobKey:    jsonval.String(m["jobkey"]),
		Title:     jsonval.FirstString(m["displayTitle"], m["title"]),
		Company:   jsonval.FirstString(m["company"], m["truncatedCompany"]),
		Location:  jsonval.String(m["formattedLocation"]),
		Remote:    jsonval.String(jsonval.Get(m, "remoteWorkModel", "text")),
		Posted:    jsonval.String(m["formattedRelativeTime"]),
		Snippet:   htmlToText(jsonval.String(m["snippet"])),
		Sponsored: jsonval.Bool(m["sponsored"]),
		Expired:   jsonval.Bool(m["expired"]),
		Country:   jsonval.String(m["country"]),
	}
	if j.JobKey == "" || j.Title == "" {
		return Job{}, false
	}
	j.URL = jobURL(host, j.JobKey)
	if ms, ok := jsonval.FirstInt(m["pubDate"], m["createDate"]); ok && ms > 0 {
		j.PostedAt = time.UnixMilli(ms).UTC().Format(time.RFC3339)
	}
	sal := Salary{
		Text:     jsonval.String(jsonval.Get(m, "salarySnippet", "text")),
		Currency: jsonval.String(jsonval.Get(m, "salarySnippet", "currency")),
		Period:   jsonval.String(jsonval.Get(m, "extractedSalary", "type")),
	}
	sal.Min = salaryBound(jsonval.Get(m, "extractedSalary", "min"))
	sal.Max = salaryBound(jsonval.Get(m, "extractedSalary", "max"))
	if sal.Min != nil && *sal.Min == 0 && sal.Max != nil && *sal.Max > 0 {
		sal.Min = nil // "Up to $100 an hour"
	}
	j.Salary = salaryOrNil(sal)
	for _, t := range jsonval.List(m["jobTypes"]) {
		j.JobTypes = appendNew(j.JobTypes, jsonval.String(t))
	}
	for _, group := range jsonval.List(m["taxonomyAttributes"]) {
		if jsonval.String(jsonval.Get(group, "label")) == "job-types" {
			for _, a := range jsonval.List(jsonval.Get(group, "attributes")) {
				j.JobTypes = appendNew(j.JobTypes, jsonval.String(jsonval.Get(a, "label")))
			}
		}
	}
	j.company = CompanyDetails{
		Name:        j.Company,
		Rating:      numberPtr(m["companyRating"]),
		URL:         absURL(host, jsonval.String(m["companyOverviewLink"])),
		ReviewsURL:  absURL(host, jsonval.String(m["companyReviewLink"])),
		Logo:        jsonval.String(jsonval.Get(m, "companyBrandingAttributes", "logoUrl")),
		ReviewCount: intPtr(m["companyReviewCount"]),
	}
	if j.company.Rating != nil && *j.company.Rating == 0 && j.company.ReviewCount == nil {
		j.company.Rating = nil // 0 means "no rating" on cards
	}
	return j, true
}

// parseJobPage reads an Indeed job page (/viewjob?jk=…). host is the page's
// Indeed host, used when the page does not name its own.
func parseJobPage(body []byte, host string) (Job, error) {
	d, found, err := jsonAfter(body, initialData)
	switch {
	case !found:
		return Job{}, errNoJobData
	case err != nil:
		return Job{}, fmt.Errorf("the job page's data is not valid JSON: %w", err)
	}
	ji := jsonval.Object(jsonval.Get(d, "jobInfoWrapperModel", "jobInfoModel"))
	if ji == nil {
		return Job{}, errNoJobData
	}
	h := jsonval.Object(ji["jobInfoHeaderModel"])
	j := Job{
		JobKey:   jsonval.String(jsonval.Get(d, "jobKey")),
		Title:    jsonval.FirstString(h["jobTitle"], jsonval.Get(d, "jobTitle")),
		Company:  jsonval.FirstString(h["companyName"], jsonval.Get(h, "companyReviewModel", "companyName")),
		Location: jsonval.FirstString(h["formattedLocation"], jsonval.Get(d, "jobLocation")),
		Remote:   jsonval.String(jsonval.Get(h, "remoteWorkModel", "text")),
		Posted:   jsonval.FirstString(jsonval.Get(d, "hiringInsightsModel", "age"), jsonval.Get(d, "jobMetadataFooterModel", "age")),
		Country:  jsonval.String(jsonval.Get(d, "country")),
		Expired:  jsonval.Bool(ji["showExpiredHeader"]) || ji["expiredJobMetadataModel"] != nil,
	}
	if j.Title == "" {
		return Job{}, errNoJobData
	}
	if base := jsonval.String(jsonval.Get(d, "baseUrl")); base != "" {
		if u, err := url.Parse(base); err == nil && u.Host != "" && isIndeedHost(u.Hostname()) {
			host = u.Host
		}
	}
	if j.JobKey != "" {
		j.URL = jobURL(host, j.JobKey)
	}
	if ms, ok := jsonval.FirstInt(jsonval.Get(d, "datePublished")); ok && ms > 0 {
		j.PostedAt = time.UnixMilli(ms).UTC().Format(time.RFC3339)
	}
	desc := ji["sanitizedJobDescription"]
	if m := jsonval.Object(desc); m != nil { // older pages: {"content": "<div>…", "contentKind": "HTML"}
		desc = m["content"]
	}
	j.DescriptionHTML = strings.TrimSpace(jsonval.String(desc))
	j.Description = htmlToText(j.DescriptionHTML)
	for _, t := range strings.Split(jsonval.String(jsonval.Get(ji, "jobMetadataHeaderModel", "jobType")), ",") {
		j.JobTypes = appendNew(j.JobTypes, strings.TrimSpace(t))
	}
	si := jsonval.Object(jsonval.Get(d, "salaryInfoModel"))
	sal := Salary{
		Text:     jsonval.String(si["salaryText"]),
		Min:      salaryBound(si["salaryMin"]),
		Max:      salaryBound(si["salaryMax"]),
		Period:   jsonval.String(si["salaryType"]),
		Currency: jsonval.String(si["salaryCurrency"]),
	}
	if sal.Min == nil && sal.Max == nil {
		sal.Min, sal.Max = salaryBound(h["salaryMin"]), salaryBound(h["salaryMax"])
		sal.Period, sal.Currency = jsonval.FirstString(sal.Period, h["salaryType"]), jsonval.FirstString(sal.Currency, h["salaryCurrency"])
	}
	j.Salary = salaryOrNil(sal)
	for _, b := range jsonval.List(jsonval.Get(d, "benefitsModel", "benefits")) {
		j.Benefits = appendNew(j.Benefits, jsonval.String(jsonval.Get(b, "label")))
	}
	ratings := jsonval.Get(h, "companyReviewModel", "ratingsModel")
	j.company = CompanyDetails{
		Name:          j.Company,
		Rating:        numberPtr(jsonval.Get(ratings, "rating")),
		ReviewCount:   intPtr(jsonval.Get(ratings, "count")),
		URL:           stripTracking(jsonval.String(h["companyOverviewLink"])),
		ReviewsURL:    stripTracking(jsonval.String(h["companyReviewLink"])),
		Logo:          jsonval.String(jsonval.Get(h, "companyImagesModel", "logoUrl")),
		ParentCompany: jsonval.String(h["parentCompanyName"]),
	}
	return j, nil
}

// merge completes a search card with what the job page says.
func (j *Job) merge(page Job) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&j.Title, page.Title)
	set(&j.Company, page.Company)
	set(&j.Location, page.Location)
	set(&j.Remote, page.Remote)
	set(&j.Posted, page.Posted)
	set(&j.PostedAt, page.PostedAt)
	set(&j.Description, page.Description)
	set(&j.DescriptionHTML, page.DescriptionHTML)
	set(&j.Country, page.Country)
	if page.Salary != nil {
		j.Salary = page.Salary
	}
	for _, t := range page.JobTypes {
		j.JobTypes = appendNew(j.JobTypes, t)
	}
	if len(page.Benefits) > 0 {
		j.Benefits = page.Benefits
	}
	j.Expired = j.Expired || page.Expired
	c := &j.company
	set(&c.Name, page.company.Name)
	set(&c.URL, page.company.URL)
	set(&c.ReviewsURL, page.company.ReviewsURL)
	set(&c.Logo, page.company.Logo)
	set(&c.ParentCompany, page.company.ParentCompany)
	if page.company.Rating != nil {
		c.Rating = page.company.Rating
	}
	if page.company.ReviewCount != nil {
		c.ReviewCount = page.company.ReviewCount
	}
}

// withCompanyDetails returns j with its company details shown.
func (j Job) withCompanyDetails() Job {
	if j.company != (CompanyDetails{}) {
		c := j.company
		j.CompanyDetails = &c
	}
	return j
}

func jobURL(host, key string) string {
	return "https://" + host + "/viewjob?" + url.Values{"jk": {key}}.Encode()
}

// absURL makes an Indeed-relative link absolute.
func absURL(host, ref string) string {
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		u = (&url.URL{Scheme: "https", Host: host}).ResolveReference(u)
	}
	return u.String()
}

// stripTracking drops Indeed's click-tracking parameters from a link.
func stripTracking(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.RawQuery == "" {
		return s
	}
	q := u.Query()
	for _, k := range []string{"campaignid", "from", "tk", "fromjk", "cmpratingc", "jt"} {
		q.Del(k)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func salaryOrNil(s Salary) *Salary {
	if s.Text == "" && s.Min == nil && s.Max == nil {
		return nil
	}
	return &s
}

// salaryBound is one end of a salary range. Indeed says -1 for an end it
// has not got ("From $25 an hour" has min 25, max -1): a negative amount is
// no bound, left out rather than passed on as a maximum of -1.
func salaryBound(v any) *float64 {
	if f := numberPtr(v); f != nil && *f >= 0 {
		return f
	}
	return nil
}

func numberPtr(v any) *float64 {
	if f, ok := jsonval.Float(v); ok {
		return &f
	}
	return nil
}

func intPtr(v any) *int64 {
	if n, ok := jsonval.Int(v); ok {
		return &n
	}
	return nil
}

func appendNew(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// isIndeedHost reports whether host is one of Indeed's: indeed.com and its
// country subdomains, and the older indeed.<tld> sites.
func isIndeedHost(host string) bool {
	return indeedHost.MatchString(strings.ToLower(strings.TrimSuffix(host, ".")))
}

var indeedHost = regexp.MustCompile(`^(?:[a-z0-9-]+\.)*indeed\.(?:com|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$`)
