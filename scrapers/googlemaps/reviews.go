package googlemaps

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Review is one Google Maps review as the reviews tool returns it.
type Review struct {
	URL         string       `json:"url"` // the review's own link, else its place's
	PlaceURL    string       `json:"place_url"`
	PlaceName   string       `json:"place_name,omitempty"`
	ReviewID    string       `json:"review_id"`
	Author      ReviewAuthor `json:"author"`
	Rating      *float64     `json:"rating,omitempty"`
	RatingScale int64        `json:"rating_scale,omitempty"` // 5 for Google's own reviews
	Text        string       `json:"text,omitempty"`
	Language    string       `json:"language,omitempty"`
	Translation *Translation `json:"translation,omitempty"`
	PublishedAt string       `json:"published_at,omitempty"` // RFC 3339, UTC
	Published   string       `json:"published,omitempty"`    // as Google words it: "2 months ago"
	UpdatedAt   string       `json:"updated_at,omitempty"`
	OwnerReply  *OwnerReply  `json:"owner_reply,omitempty"`
	Source      string       `json:"source,omitempty"` // Google, or the site a review was imported from
}

// ReviewAuthor is who wrote a review.
type ReviewAuthor struct {
	Name        string `json:"name"`
	ID          string `json:"id,omitempty"`
	URL         string `json:"url,omitempty"`
	Photo       string `json:"photo,omitempty"`
	ReviewCount *int64 `json:"review_count,omitempty"`
}

// Translation is Google's translation of a review or a reply.
type Translation struct {
	Language string `json:"language,omitempty"`
	Text     string `json:"text"`
}

// OwnerReply is the place owner's answer to a review.
type OwnerReply struct {
	Text        string       `json:"text"`
	Language    string       `json:"language,omitempty"`
	Translation *Translation `json:"translation,omitempty"`
	PublishedAt string       `json:"published_at,omitempty"`
	Published   string       `json:"published,omitempty"`
}

// reviewsPage is one listugcposts answer: `)]}'` then [null, next token,
// [item…]], each item's [0] being a review.
type reviewsPage struct {
	Reviews []Review
	Next    string
}

// Sort orders of the listugcposts endpoint.
var sortCodes = map[string]int{"most_relevant": 1, "newest": 2, "highest": 3, "lowest": 4}

// reviewsPageSize is how many reviews one listugcposts request asks for.
const reviewsPageSize = 20

// reviewsURL is the listugcposts request for a place's reviews: dataID is
// the place's 0x…:0x… id, token the page token ("" for the first page),
// session an id kept across the pages of one listing.
func reviewsURL(dataID, token, session, sortBy, hl, gl string) string {
	// pbEscape escapes the whole value once; ids and tokens carry no "!".
	pb := "!1m6!1s" + dataID + "!6m4!4m1!1e1!4m1!1e3" +
		"!2m2!1i" + strconv.Itoa(reviewsPageSize) + "!2s" + token +
		"!5m2!1s" + session + "!7e81" +
		"!8m9!2b1!3b1!5b1!7b1!12m4!1b1!2b1!4m1!1e1!11m0" +
		"!13m1!1e" + strconv.Itoa(sortCodes[sortBy])
	v := url.Values{"authuser": {"0"}, "hl": {hl}}
	if gl != "" {
		v.Set("gl", gl)
	}
	return "https://www.google.com/maps/rpc/listugcposts?" + v.Encode() + "&pb=" + pbEscape(pb)
}

// newSession returns a random listing session id like the web app's.
func newSession() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:21]
}

// parseReviewsPage reads one listugcposts answer.
func parseReviewsPage(body []byte, placeURL, placeName string) (*reviewsPage, error) {
	v, err := jsonval.Decode(stripXSSI(body))
	if err != nil {
		return nil, fmt.Errorf("the reviews answer is not JSON: %w", err)
	}
	root, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("the reviews answer is not a Google Maps review list")
	}
	pg := &reviewsPage{Next: str(root, 1)}
	for _, item := range arr(root, 2) {
		if r, ok := reviewFrom(arr(item, 0), placeURL, placeName); ok {
			pg.Reviews = append(pg.Reviews, r)
		}
	}
	return pg, nil
}

// reviewFrom reads one review array: [0] id, [1] metadata (times, author,
// source), [2] content (rating, language, text and translation), [3] the
// owner's reply, [4] links.
func reviewFrom(el []any, placeURL, placeName string) (Review, bool) {
	r := Review{
		PlaceURL:  placeURL,
		PlaceName: placeName,
		ReviewID:  str(el, 0),
		Author: ReviewAuthor{
			Name:  str(el, 1, 4, 5, 0),
			Photo: str(el, 1, 4, 5, 1),
			ID:    str(el, 1, 4, 5, 3),
			URL:   firstNonEmpty(str(el, 1, 4, 2, 0), str(el, 1, 4, 5, 2, 0)),
		},
		Published: str(el, 1, 6),
		Source:    str(el, 1, 13, 0),
		Language:  str(el, 2, 14, 0),
		Text:      str(el, 2, 15, 0, 0),
	}
	if r.ReviewID == "" {
		return Review{}, false
	}
	if n, ok := integer(el, 1, 4, 5, 5); ok {
		r.Author.ReviewCount = &n
	}
	if f, ok := num(el, 2, 0, 0); ok {
		r.Rating = &f
	}
	r.RatingScale, _ = integer(el, 1, 13, 4)
	r.PublishedAt = microsToTime(el, 1, 2)
	if up := microsToTime(el, 1, 3); up != r.PublishedAt {
		r.UpdatedAt = up
	}
	if t := str(el, 2, 15, 1, 0); t != "" {
		r.Translation = &Translation{Language: str(el, 2, 14, 1), Text: t}
	}
	if text := str(el, 3, 14, 0, 0); text != "" {
		reply := &OwnerReply{
			Text:        text,
			Language:    str(el, 3, 13, 0),
			PublishedAt: microsToTime(el, 3, 1),
			Published:   str(el, 3, 3),
		}
		if t := str(el, 3, 14, 1, 0); t != "" {
			reply.Translation = &Translation{Language: str(el, 3, 13, 1), Text: t}
		}
		r.OwnerReply = reply
	}
	r.URL = firstNonEmpty(str(el, 4, 3, 0), placeURL)
	return r, true
}

func microsToTime(v any, idx ...int) string {
	n, ok := integer(v, idx...)
	if !ok || n <= 0 || n > 1<<60 {
		return ""
	}
	return time.UnixMicro(n).UTC().Format(time.RFC3339)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// dataIDInURL finds a place's 0x…:0x… id in a Maps URL (the !1s… of its
// data= part, or an ftid= parameter).
var dataIDInURL = regexp.MustCompile(`(?i)(?:!1s|ftid=|%211s)(0x[0-9a-f]{1,16}(?::|%3A)0x[0-9a-f]{1,16})`)

// dataIDRE is a bare data id.
var dataIDRE = regexp.MustCompile(`(?i)^0x[0-9a-f]{1,16}:0x[0-9a-f]{1,16}$`)

func dataIDFromURL(raw string) string {
	m := dataIDInURL.FindStringSubmatch(raw)
	if m == nil {
		return ""
	}
	id, err := url.QueryUnescape(m[1])
	if err != nil || !dataIDRE.MatchString(id) {
		return ""
	}
	return id
}
