package instagram

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// errNoProfilePage is a logged-out profile page that names no account.
var errNoProfilePage = errors.New("the logged-out profile page names no account in its meta tags (og:title, description); the account may not exist, or Instagram changed the page")

var (
	// countsRE reads "48.2K Followers, 312 Following, 731 Posts" at the
	// start of a profile page's description.
	countsRE = regexp.MustCompile(`(?i)^\s*([0-9][0-9.,]*\s*[KMB]?)\s+Followers?\s*,\s*([0-9][0-9.,]*\s*[KMB]?)\s+Following\s*,\s*([0-9][0-9.,]*\s*[KMB]?)\s+Posts?\b`)
	// bioRE reads the biography the description quotes: … on Instagram: "…"
	bioRE = regexp.MustCompile(`(?s)on Instagram:\s*"(.*)"\s*$`)
	// profileIDRE finds the account's id in the page's scripts.
	profileIDRE = regexp.MustCompile(`"(?:profile_id|profilePage_[0-9]+|page_id)"\s*:\s*"(?:profilePage_)?([0-9]{1,30})"`)
)

// parseProfilePage reads the logged-out profile page (/<username>/) Instagram
// serves to anonymous readers when its profile API asks for a login: the
// account's name, counts (rounded as written), biography and picture from
// the meta tags, and its id from the page's scripts when present.
func parseProfilePage(body []byte, username string) (*Profile, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, errNoProfilePage
	}
	meta := func(sel string) string {
		v, _ := doc.Find(sel).First().Attr("content")
		return strings.TrimSpace(v)
	}
	title := meta(`meta[property="og:title"]`)
	desc := meta(`meta[name="description"]`)
	ogDesc := meta(`meta[property="og:description"]`)
	handle := "(@" + strings.ToLower(username) + ")"
	if !strings.Contains(strings.ToLower(title+" "+desc+" "+ogDesc), handle) {
		return nil, errNoProfilePage
	}
	p := &Profile{Type: "profile", Username: username, URL: origin + "/" + username + "/", ReadFrom: "profile page"}
	if i := strings.Index(strings.ToLower(title), handle); i > 0 {
		p.FullName = strings.TrimSpace(title[:i])
	}
	for _, d := range []string{desc, ogDesc} {
		if m := countsRE.FindStringSubmatch(d); m != nil {
			var r1, r2, r3 bool
			p.Followers, r1 = pageCount(m[1])
			p.Following, r2 = pageCount(m[2])
			p.PostCount, r3 = pageCount(m[3])
			p.CountsRounded = r1 || r2 || r3
			break
		}
	}
	if m := bioRE.FindStringSubmatch(desc); m != nil {
		p.Biography = strings.TrimSpace(m[1])
	}
	p.ProfilePic = webURL(meta(`meta[property="og:image"]`))
	if m := profileIDRE.FindSubmatch(body); m != nil {
		p.ID = string(m[1])
	}
	return p, nil
}

// pageCount reads a count as a profile page writes it: 731, 4,317, 48.2K,
// 1.2M. rounded is set for the abbreviated forms.
func pageCount(s string) (n *int64, rounded bool) {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		mult = 1e3
	case strings.HasSuffix(s, "M"):
		mult = 1e6
	case strings.HasSuffix(s, "B"):
		mult = 1e9
	}
	if mult > 1 {
		f, err := strconv.ParseFloat(strings.ReplaceAll(s[:len(s)-1], ",", "."), 64)
		if err != nil || f < 0 || f > 1e6 {
			return nil, false
		}
		v := int64(math.Round(f * mult))
		return &v, true
	}
	v, err := strconv.ParseInt(strings.NewReplacer(",", "", ".", "").Replace(s), 10, 64)
	if err != nil || v < 0 {
		return nil, false
	}
	return &v, false
}
