package googlemaps

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// placePage wraps a place answer (the JSON array) the way a Maps page embeds
// it: as a ")]}'\n…" string inside window.APP_INITIALIZATION_STATE.
func placePage(t testing.TB, placeJSON []byte) []byte {
	t.Helper()
	lit, err := json.Marshal(")]}'\n" + strings.TrimSpace(string(placeJSON)))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`<!DOCTYPE html><html><head><title>Google Maps</title></head><body><script nonce="x">window.APP_INITIALIZATION_STATE=` +
		`[[[0,0,1000],[0,0,0],[1024,768],13.1],null,["en","us"],[["k"],null,null,null,null,null,` + string(lit) + `]];window.APP_FLAGS=[];</script></body></html>`)
}

// sparse builds an array of n entries, nil but for the given indices.
func sparse(n int, kv map[int]any) []any {
	a := make([]any, n)
	for i, v := range kv {
		a[i] = v
	}
	return a
}

// ownPlace is a small place array (the [6] of a place answer).
func ownPlace(i int) []any {
	name := "Test Cafe " + string(rune('A'+i%26)) + strings.Repeat("x", i/26)
	hex := func(n int) string { return "0x" + strings.Repeat("0", 15-len(itoa(n))) + itoa(n) }
	return sparse(200, map[int]any{
		2:   []any{itoa(i) + " Main St", "Springfield"},
		4:   sparse(9, map[int]any{7: 4.5, 8: float64(10 + i)}),
		9:   []any{nil, nil, 40.0 + float64(i)/1000, -70.0},
		10:  "0x89c25a1111111111:" + hex(i+1),
		11:  name,
		13:  []any{"Cafe"},
		18:  name + ", " + itoa(i) + " Main St, Springfield",
		78:  "ChIJown" + strings.Repeat("0", 10) + itoa(i),
		178: []any{[]any{"555-01" + itoa(i), []any{[]any{"555-01" + itoa(i), 1.0}, []any{"+1 555-01" + itoa(i), 2.0}}}},
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestParsePlaceRealFixture(t *testing.T) {
	raw := scrapertest.Fixture(t, "googlemaps/place-raw.json")
	for name, body := range map[string][]byte{
		"answer":           raw,
		"answer with xssi": append([]byte(")]}'\n"), raw...),
		"page":             placePage(t, raw),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := parsePlace(body, "https://www.google.com/maps/place/Kipriakon")
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != "Kipriakon" || p.Address != "Old port, Limassol 3042" || p.Phone != "25 101555" {
				t.Errorf("title %q address %q phone %q", p.Name, p.Address, p.Phone)
			}
			if p.Rating == nil || *p.Rating != 4.2 || p.ReviewCount == nil || *p.ReviewCount != 396 {
				t.Errorf("rating %v count %v", p.Rating, p.ReviewCount)
			}
			if p.PlaceID != "ChIJDdnwdv0y5xQRRytw1ihZQeU" || p.DataID != "0x14e732fd76f0d90d:0xe5415928d6702b47" || p.CID != "16519582940102929223" {
				t.Errorf("ids %q %q %q", p.PlaceID, p.DataID, p.CID)
			}
			if p.Category != "Restaurant" || p.PhoneInternational != "+357 25 101555" || p.Timezone != "Asia/Nicosia" || p.PriceLevel != "€€" {
				t.Errorf("place = %+v", p)
			}
			if p.Location == nil || p.Location.Lat < 34.67 || p.Location.Lat > 34.68 || p.Location.Lng < 33.04 || p.Location.Lng > 33.05 {
				t.Errorf("location = %+v", p.Location)
			}
			if len(p.Hours) != 7 || p.Hours[0].Day != "Monday" || len(p.Hours[0].Hours) != 1 {
				t.Errorf("hours = %+v", p.Hours)
			}
			if p.AddressParts == nil || p.AddressParts.City != "Limassol" || p.AddressParts.CountryCode != "CY" {
				t.Errorf("address parts = %+v", p.AddressParts)
			}
			if !strings.Contains(p.URL, "query_place_id=ChIJDdnwdv0y5xQRRytw1ihZQeU") {
				t.Errorf("url = %q", p.URL)
			}
		})
	}
}

func TestParseSearchRealFixture(t *testing.T) {
	places, err := parseSearch(scrapertest.Fixture(t, "googlemaps/search-output.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(places) != 20 {
		t.Fatalf("places = %d, want 20", len(places))
	}
	first := places[0]
	if first.Name != "Dream Coffee" || first.Address != "Eakou 74, Ilion 131 22, Greece" || first.Category != "Coffee shop" {
		t.Errorf("first = %+v", first)
	}
	if *first.Rating != 4.8 || *first.ReviewCount != 48 || first.Website != "https://www.vrisko.gr/details/ag2e4fci67301a_44_3i4a4c_f341701" {
		t.Errorf("first = %+v", first)
	}
	ids := map[string]bool{}
	for _, p := range places {
		if p.Name == "" || p.URL == "" || p.DataID == "" || p.Location == nil {
			t.Errorf("incomplete place %+v", p)
		}
		ids[p.DataID] = true
	}
	if len(ids) != 20 {
		t.Errorf("distinct data ids = %d", len(ids))
	}
	// The same answer in the {"c":0,"d":")]}'…"} wrapper older endpoints use.
	wrapped, _ := json.Marshal(map[string]any{"c": 0, "d": ")]}'\n" + string(scrapertest.Fixture(t, "googlemaps/search-output.json"))})
	again, err := parseSearch(append(wrapped, []byte(`/*""*/`)...))
	if err != nil || len(again) != 20 {
		t.Errorf("wrapped: %d places, %v", len(again), err)
	}
}

func TestParseReviewsRealFixture(t *testing.T) {
	items := scrapertest.Fixture(t, "googlemaps/review-native-with-reply.json")
	body := []byte(")]}'\n[null,\"CAESBkVnSUlDZw\"," + string(items) + "]")
	pg, err := parseReviewsPage(body, "https://www.google.com/maps?cid=1", "Praxis")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Next != "CAESBkVnSUlDZw" || len(pg.Reviews) != 1 {
		t.Fatalf("page = %+v", pg)
	}
	r := pg.Reviews[0]
	if r.ReviewID != "Ci9DQUlRQUNvZENodHljRjlvT2xGMmRraFdhSFowWW0xWVNURTBObEptU3pWWVgxRRAB" || r.Author.Name != "E. Ö." || r.Source != "Google" {
		t.Errorf("review = %+v", r)
	}
	if r.Rating == nil || *r.Rating != 1 || r.RatingScale != 5 {
		t.Errorf("rating %v scale %d", r.Rating, r.RatingScale)
	}
	if r.Author.URL != "https://www.google.com/maps/contrib/116111130377271376564/reviews?hl=en" || r.Author.ReviewCount == nil || *r.Author.ReviewCount != 2 {
		t.Errorf("author = %+v", r.Author)
	}
	if r.Language != "de" || !strings.HasPrefix(r.Text, "Ich bin sehr enttäuscht") || r.Translation == nil || r.Translation.Language != "en" || !strings.HasPrefix(r.Translation.Text, "I am very disappointed") {
		t.Errorf("text %q lang %q translation %+v", r.Text[:20], r.Language, r.Translation)
	}
	if r.PublishedAt != "2026-02-27T10:02:02Z" || r.Published != "2 months ago" || r.UpdatedAt != "" {
		t.Errorf("published %q %q updated %q", r.PublishedAt, r.Published, r.UpdatedAt)
	}
	o := r.OwnerReply
	if o == nil || !strings.HasPrefix(o.Text, "Es tut uns sehr leid") || o.Language != "de" || o.Translation == nil || !strings.HasPrefix(o.Translation.Text, "We are very sorry") || o.PublishedAt != "2026-02-28T08:22:27Z" {
		t.Errorf("reply = %+v", o)
	}
	if !strings.HasPrefix(r.URL, "https://www.google.com/maps/reviews/data=") || r.PlaceURL != "https://www.google.com/maps?cid=1" || r.PlaceName != "Praxis" {
		t.Errorf("url %q place %q %q", r.URL, r.PlaceURL, r.PlaceName)
	}
}

func TestParsePlaceOwnPage(t *testing.T) {
	p, err := parsePlace(scrapertest.Testdata(t, "place-page.html"), "https://www.google.com/maps/place/Harbour+Bakery")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Harbour Bakery" || p.Address != "12 Harbour Road, Portside 1001" || p.Website != "https://harbour-bakery.example.test/" {
		t.Errorf("place = %+v", p)
	}
	if p.PlaceID != "ChIJtestTestTest0123456789" || len(p.Categories) != 2 || *p.Rating != 4.6 || *p.ReviewCount != 57 || p.OpenStatus != "Open ⋅ Closes 3 pm" {
		t.Errorf("place = %+v", p)
	}
	if len(p.Hours) != 2 || p.Hours[1].Hours[0] != "Closed" {
		t.Errorf("hours = %+v", p.Hours)
	}
	if p.Phone != "" || p.AddressParts != nil {
		t.Errorf("absent fields filled: %+v", p)
	}
}

func TestParsePlaceBrokenInput(t *testing.T) {
	for name, body := range map[string]string{
		"empty":            ``,
		"html no state":    `<html><body>Maps</body></html>`,
		"state no payload": `<script>window.APP_INITIALIZATION_STATE=[[1],null];</script>`,
		"bad literal":      `<script>window.APP_INITIALIZATION_STATE=[")]}'\n[1,2`,
		"payload no place": `<script>window.APP_INITIALIZATION_STATE=[")]}'\n[null,null]"]</script>`,
		"place no title":   `)]}'` + "\n" + `[0,1,2,3,4,5,[null,null,null]]`,
		"not an array":     `)]}'` + "\n" + `{"a":1}`,
		"bad json":         `)]}'` + "\n" + `[1,`,
		"short":            `[1]`,
	} {
		t.Run(name, func(t *testing.T) {
			if p, err := parsePlace([]byte(body), "u"); err == nil {
				t.Errorf("parsed %+v, want an error", p)
			}
		})
	}
	// Odd types at known positions give zero values.
	oddPlace := sparse(40, map[int]any{2: "x", 4: "y", 7: 7, 9: []any{1}, 10: map[string]any{"a": 1}, 11: "Odd", 13: []any{1, nil, "Cat"}, 18: 5,
		34: []any{nil, []any{[]any{nil}, []any{"Mon", []any{1, "9–5"}}, "x"}}})
	oddJSON, _ := json.Marshal(sparse(7, map[int]any{6: oddPlace}))
	odd := ")]}'\n" + string(oddJSON)
	p, err := parsePlace([]byte(odd), "https://src")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Odd" || p.Rating != nil || p.Location != nil || p.DataID != "" || p.Address != "" || p.URL != "https://src" || len(p.Categories) != 1 {
		t.Errorf("place = %+v", p)
	}
	if len(p.Hours) != 1 || p.Hours[0].Day != "Mon" || len(p.Hours[0].Hours) != 1 {
		t.Errorf("hours = %+v", p.Hours)
	}
}

func TestParseSearchAndReviewsBrokenInput(t *testing.T) {
	for _, body := range []string{``, `<html>`, `{"a":1}`, `)]}'`, `)]}'` + "\n" + `[[1,[null,[0,1,2]]]]`} {
		places, err := parseSearch([]byte(body))
		if err == nil && len(places) != 0 {
			t.Errorf("%q: places %v", body, places)
		}
	}
	for _, body := range []string{``, `<html>`, `)]}'` + "\n" + `{"a":1}`} {
		if _, err := parseReviewsPage([]byte(body), "p", ""); err == nil {
			t.Errorf("%q: no error", body)
		}
	}
	pg, err := parseReviewsPage([]byte(`)]}'`+"\n"+`[null,7,[[["id1",null,[[6]]]],[[null]],"x",[[""]]]]`), "p", "")
	if err != nil || len(pg.Reviews) != 1 || pg.Next != "" || pg.Reviews[0].URL != "p" || *pg.Reviews[0].Rating != 6 {
		t.Errorf("page %+v, %v", pg, err)
	}
}

func TestNestedHelpers(t *testing.T) {
	v, err := jsonval.Decode([]byte(`[1e999]`))
	if _, ok := num(v, 0); err != nil || ok {
		t.Errorf("1e999: %v %v", err, ok)
	}
	v, _ = jsonval.Decode([]byte(`[1,[2,[3,"x"]],null,"s",12345678901234567]`))
	if str(v, 1, 1, 1) != "x" || str(v, 1, 1, 2) != "" || str(v, 9) != "" || str(v, -1) != "" || at(v, 2, 0) != nil || at(v, 3, 0) != nil {
		t.Error("at/str")
	}
	if n, ok := integer(v, 4); !ok || n != 12345678901234567 {
		t.Errorf("integer = %d %v", n, ok)
	}
	if _, ok := num(v, 3); ok {
		t.Error("num of a string")
	}
	for lit, want := range map[string]string{`"a\x3db"`: "a=b", `"q\"\\x"`: `q"\x`, `"\u00e9\'"`: "é'"} {
		if got, ok := jsStringAt([]byte(lit + `,rest`)); !ok || got != want {
			t.Errorf("jsStringAt(%s) = %q %v, want %q", lit, got, ok, want)
		}
	}
	for _, bad := range []string{`"open`, `"a\`, "\"line\nbreak\"", `x"`, `"\q"`} {
		if got, ok := jsStringAt([]byte(bad)); ok {
			t.Errorf("jsStringAt(%q) = %q", bad, got)
		}
	}
	if cidOf("0x1:0x10") != "16" || cidOf("nope") != "" || cidOf("0x1:0xzz") != "" {
		t.Error("cidOf")
	}
	if unwrapRedirect("/url?q=https://a.test/&opi=1") != "https://a.test/" || unwrapRedirect("https://b.test/") != "https://b.test/" {
		t.Error("unwrapRedirect")
	}
}

func TestURLHelpers(t *testing.T) {
	for raw, want := range map[string]string{
		"https://www.google.com/maps/place/Joe/@40.7,-73.9,17z/data=!4m7!3m6!1s0x89c259ab3c1ef289:0x3b67a41175949f55!8m2": "0x89c259ab3c1ef289:0x3b67a41175949f55",
		"https://www.google.com/maps?ftid=0x1:0x2":                  "0x1:0x2",
		"https://www.google.com/maps/place/Joe/data=%211s0x1%3A0x2": "0x1:0x2",
		"https://www.google.com/maps/place/?q=place_id:ChIJabc":     "",
	} {
		if got := dataIDFromURL(raw); got != want {
			t.Errorf("dataIDFromURL(%s) = %q, want %q", raw, got, want)
		}
	}
	u, _ := url.Parse("https://www.google.com/maps/search/coffee+near+port/@34.67,33.04,15z?hl=en")
	if !isSearchURL(u) || searchQueryOf(u) != "coffee near port" {
		t.Errorf("search URL: %v %q", isSearchURL(u), searchQueryOf(u))
	}
	vp, ok := viewportFromPath(u.Path)
	if !ok || vp.Lat != 34.67 || vp.Lng != 33.04 || vp.Zoom != 15 || vp.altitude() >= 2000 {
		t.Errorf("viewport = %+v %v alt %f", vp, ok, vp.altitude())
	}
	if _, ok := viewportFromPath("/maps/search/x/@999,1,3z"); ok {
		t.Error("latitude 999 accepted")
	}
	for raw, want := range map[string]bool{
		"https://www.google.com/maps/place/x": true, "https://maps.google.co.uk/?cid=1": true, "https://google.de/maps": true,
		"https://maps.app.goo.gl/abc": true, "https://www.google.com/search?q=x": false, "https://google.evil.com/maps": false,
		"https://notgoogle.com/maps": false, "https://goo.gl/other": false,
	} {
		u, _ := url.Parse(raw)
		if isMapsURL(u) != want {
			t.Errorf("isMapsURL(%s) = %v", raw, !want)
		}
	}
	s := searchURL("coffee & cake", "en", "gr", viewport{}, 40)
	su, _ := url.Parse(s)
	if su.Query().Get("q") != "coffee & cake" || su.Query().Get("tbm") != "map" || su.Query().Get("gl") != "gr" || !strings.Contains(su.Query().Get("pb"), "!7i20!8i40!") {
		t.Errorf("search url = %s", s)
	}
	r := reviewsURL("0x1:0x2", "tok/+", "sess", "newest", "de", "")
	ru, _ := url.Parse(r)
	if pb := ru.Query().Get("pb"); !strings.Contains(pb, "!1s0x1:0x2!") || !strings.Contains(pb, "!2stok/+!") || !strings.HasSuffix(pb, "!13m1!1e2") || ru.Query().Get("hl") != "de" {
		t.Errorf("reviews url = %s (pb %q)", r, ru.Query().Get("pb"))
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(status int, final, body string) *scrapers.Response {
		u, _ := url.Parse(final)
		return &scrapers.Response{Request: &scrapers.Request{URL: "https://www.google.com/maps/place/x"}, URL: u, StatusCode: status, Body: []byte(body), Header: http.Header{}}
	}
	sorry := string(scrapertest.Testdata(t, "sorry.html"))
	if b, err := scrapertest.ReadFixture("google/recaptcha.html"); err == nil {
		sorry = string(b) // the real "unusual traffic" page when present
	}
	cases := []struct {
		name string
		r    *scrapers.Response
		kind string
	}{
		{"sorry redirect", resp(429, "https://www.google.com/sorry/index?continue=x", sorry), scrapers.BlockCaptcha},
		{"sorry page in place", resp(200, "https://www.google.com/maps/place/x", sorry), scrapers.BlockCaptcha},
		{"consent redirect", resp(200, "https://consent.google.com/ml?continue=x", "<html></html>"), scrapers.BlockConsentWall},
		{"consent page", resp(200, "https://www.google.com/maps/place/x", string(scrapertest.Testdata(t, "consent.html"))), scrapers.BlockConsentWall},
		{"429 is left to the fetcher's retries", resp(429, "https://www.google.com/maps/rpc/listugcposts", "busy"), ""},
		{"place page", resp(200, "https://www.google.com/maps/place/x", string(scrapertest.Testdata(t, "place-page.html"))), ""},
		{"json answer mentioning sorry", resp(200, "https://www.google.com/search", ")]}'\n[\"detected unusual traffic\"]"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { scrapertest.CheckBlock(t, detectBlock(c.r), c.kind, "Google Maps") })
	}
}

// TestAddressPartsKeepTheBorough reads [183][1] the way Google gives it for a
// place in a district of a city: the borough first, then street, street
// again, city, postal code, state and country code.
func TestAddressPartsKeepTheBorough(t *testing.T) {
	d := ownPlace(0)
	d[183] = []any{nil, []any{"Latsi", "Archiepiskopou Makariou III 12", "Archiepiskopou Makariou III 12", "Nicosia", "2220", nil, "CY"}}
	p := placeFrom(d, "https://src")
	want := AddressParts{Borough: "Latsi", Street: "Archiepiskopou Makariou III 12", City: "Nicosia", PostalCode: "2220", CountryCode: "CY"}
	if p.AddressParts == nil || *p.AddressParts != want {
		t.Errorf("address parts = %+v, want %+v", p.AddressParts, want)
	}
	b, _ := json.Marshal(p.AddressParts)
	if !strings.Contains(string(b), `"borough":"Latsi"`) {
		t.Errorf("address parts as JSON: %s", b)
	}
}
