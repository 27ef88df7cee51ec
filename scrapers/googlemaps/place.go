package googlemaps

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Place is one Google Maps place as the tools return it.
type Place struct {
	URL                string        `json:"url"`
	Name               string        `json:"name"`
	PlaceID            string        `json:"place_id,omitempty"`
	DataID             string        `json:"data_id,omitempty"` // 0x…:0x…, the id the reviews endpoint takes
	CID                string        `json:"cid,omitempty"`
	Category           string        `json:"category,omitempty"`
	Categories         []string      `json:"categories,omitempty"`
	Address            string        `json:"address,omitempty"`
	AddressParts       *AddressParts `json:"address_parts,omitempty"`
	Rating             *float64      `json:"rating,omitempty"`
	ReviewCount        *int64        `json:"review_count,omitempty"`
	Phone              string        `json:"phone,omitempty"`
	PhoneInternational string        `json:"phone_international,omitempty"`
	Website            string        `json:"website,omitempty"`
	Location           *LatLng       `json:"location,omitempty"`
	Hours              []DayHours    `json:"hours,omitempty"`
	OpenStatus         string        `json:"open_status,omitempty"`
	PriceLevel         string        `json:"price_level,omitempty"`
	Timezone           string        `json:"timezone,omitempty"`
	Description        string        `json:"description,omitempty"`
	ReviewsURL         string        `json:"reviews_url,omitempty"`
	// SearchQuery and Rank say where a search found the place.
	SearchQuery string `json:"search_query,omitempty"`
	Rank        int    `json:"rank,omitempty"`
}

// AddressParts is a place's address split up, as far as Google gives it.
type AddressParts struct {
	// Borough is the district within the city Google names first in the
	// parts ([183][1][0]: "Latsi" of Latsia, Nicosia), when it does.
	Borough     string `json:"borough,omitempty"`
	Street      string `json:"street,omitempty"`
	City        string `json:"city,omitempty"`
	PostalCode  string `json:"postal_code,omitempty"`
	State       string `json:"state,omitempty"`
	CountryCode string `json:"country_code,omitempty"`
}

// LatLng is a position in degrees.
type LatLng struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// DayHours is one day of opening hours ("Monday": ["12:30–10 pm"]).
type DayHours struct {
	Day   string   `json:"day"`
	Hours []string `json:"hours"`
}

var (
	errNoPlace   = errors.New("the page carries no Google Maps place data (APP_INITIALIZATION_STATE without a place); Google may have changed its pages")
	errNotPlaces = errors.New("the answer is not a Google Maps place list")
)

// placeFrom reads the place array (the [6] of a place answer, or the [14] of
// a search result). fallbackURL is used when the place has no id to build a
// URL from.
func placeFrom(d []any, fallbackURL string) Place {
	p := Place{
		Name:       str(d, 11),
		DataID:     str(d, 10),
		PlaceID:    str(d, 78),
		Categories: strs(d, 13),
		PriceLevel: str(d, 4, 2),
		Timezone:   str(d, 30),
		Description: func() string {
			if s := str(d, 32, 1, 1); s != "" {
				return s
			}
			return str(d, 32, 0, 1)
		}(),
		ReviewsURL: str(d, 4, 3, 0),
		OpenStatus: str(d, 34, 4, 4),
		Phone:      str(d, 178, 0, 0),
		Website:    unwrapRedirect(str(d, 7, 0)),
	}
	if len(p.Categories) > 0 {
		p.Category = p.Categories[0]
	}
	if p.PlaceID == "" && p.ReviewsURL != "" {
		if u, err := url.Parse(p.ReviewsURL); err == nil {
			p.PlaceID = u.Query().Get("placeid")
		}
	}
	p.CID = cidOf(p.DataID)
	p.Address = strings.TrimSpace(strings.TrimPrefix(str(d, 18), p.Name+","))
	if p.Address == "" {
		p.Address = strings.Join(strs(d, 2), ", ")
	}
	if parts := arr(d, 183, 1); parts != nil {
		ap := AddressParts{Borough: str(parts, 0), Street: str(parts, 1), City: str(parts, 3), PostalCode: str(parts, 4), State: str(parts, 5), CountryCode: str(parts, 6)}
		if ap != (AddressParts{}) {
			p.AddressParts = &ap
		}
	}
	if r, ok := num(d, 4, 7); ok {
		p.Rating = &r
	}
	if n, ok := integer(d, 4, 8); ok {
		p.ReviewCount = &n
	}
	lat, ok1 := num(d, 9, 2)
	lng, ok2 := num(d, 9, 3)
	if ok1 && ok2 && lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180 {
		p.Location = &LatLng{Lat: lat, Lng: lng}
	}
	for _, v := range arr(d, 178, 0, 1) {
		if kind, _ := integer(v, 1); kind == 2 {
			p.PhoneInternational = str(v, 0)
		}
	}
	if p.PhoneInternational == "" {
		if s := str(d, 178, 0, 3); strings.HasPrefix(s, "+") {
			p.PhoneInternational = s
		}
	}
	for _, day := range arr(d, 34, 1) {
		name := str(day, 0)
		if name == "" {
			continue
		}
		p.Hours = append(p.Hours, DayHours{Day: name, Hours: nonNil(strs(day, 1))})
	}
	p.URL = placeURL(p, fallbackURL)
	return p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// placeURL is a stable link to the place: Google's documented Maps URL with
// the place id, else the cid link, else where it was read from.
func placeURL(p Place, fallback string) string {
	switch {
	case p.PlaceID != "":
		return "https://www.google.com/maps/search/?" + url.Values{"api": {"1"}, "query": {p.Name}, "query_place_id": {p.PlaceID}}.Encode()
	case p.CID != "":
		return "https://www.google.com/maps?cid=" + p.CID
	}
	return fallback
}

// cidOf turns a data id (0x…:0xHEX) into the decimal cid Google links use.
func cidOf(dataID string) string {
	_, h, ok := strings.Cut(dataID, ":")
	if !ok {
		return ""
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(h), "0x"), 16, 64)
	if err != nil || n == 0 {
		return ""
	}
	return strconv.FormatUint(n, 10)
}

// unwrapRedirect returns the target of a Google /url?q= redirect link.
func unwrapRedirect(s string) string {
	if !strings.HasPrefix(s, "/url?") && !strings.Contains(s, ".google.com/url?") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if q := u.Query().Get("q"); q != "" {
		return q
	}
	if q := u.Query().Get("url"); q != "" {
		return q
	}
	return s
}

// parsePlace reads a place from what a place URL answers: either the JSON
// place array itself (after Google's )]}' prefix) or an HTML page that
// carries it as a string inside window.APP_INITIALIZATION_STATE.
func parsePlace(body []byte, sourceURL string) (Place, error) {
	trimmed := bytes.TrimSpace(body)
	if bytes.HasPrefix(trimmed, []byte(xssiPrefix)) || bytes.HasPrefix(trimmed, []byte("[")) {
		return placeFromJSON(stripXSSI(trimmed), sourceURL)
	}
	for _, payload := range embeddedPayloads(body) {
		if p, err := placeFromJSON(payload, sourceURL); err == nil {
			return p, nil
		}
	}
	return Place{}, errNoPlace
}

// placeFromJSON reads a place answer: an array whose [6] is the place.
func placeFromJSON(b []byte, sourceURL string) (Place, error) {
	v, err := jsonval.Decode(b)
	if err != nil {
		return Place{}, fmt.Errorf("the place data is not valid JSON: %w", err)
	}
	d := arr(v, 6)
	if d == nil || str(d, 11) == "" {
		return Place{}, errNoPlace
	}
	return placeFrom(d, sourceURL), nil
}

// maxPayloads bounds how many embedded )]}' strings a page is searched for.
const maxPayloads = 16

// embeddedPayloads finds the JSON strings a Maps page embeds in its scripts
// (APP_INITIALIZATION_STATE holds the place as ")]}'\n[…]") and returns them
// without the prefix, the ones after APP_INITIALIZATION_STATE first.
func embeddedPayloads(body []byte) [][]byte {
	start := bytes.Index(body, []byte("APP_INITIALIZATION_STATE"))
	if start < 0 {
		start = 0
	}
	var out [][]byte
	for _, region := range [][]byte{body[start:], body[:start]} {
		for len(region) > 0 && len(out) < maxPayloads {
			i := bytes.Index(region, []byte(`"`+xssiPrefix))
			if i < 0 {
				break
			}
			s, ok := jsStringAt(region[i:])
			region = region[i+1:]
			if !ok {
				continue
			}
			out = append(out, stripXSSI([]byte(s)))
		}
	}
	return out
}
