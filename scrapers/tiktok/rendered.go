package tiktok

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/render"
)

// How a video was listed (Video.ListedVia).
const (
	listedViaPage     = "page data"     // the profile page's embedded data
	listedViaAPI      = "api"           // an item list or search answer
	listedViaRendered = "rendered page" // a card of the rendered profile page
)

// pageRenderer renders a page in a browser (*render.Renderer).
type pageRenderer interface {
	Render(ctx context.Context, pageURL string) (*render.Page, error)
}

// maxCards bounds the video cards read from one rendered page.
const maxCards = 200

var cardPathRE = regexp.MustCompile(`/@([A-Za-z0-9._]{1,50})/(video|photo)/([0-9]{5,25})`)

// parseCards reads the video cards of a rendered profile page: the
// [data-e2e="user-post-item"] elements TikTok's scripts write once its
// signed item list answered, each a link to the video, its cover image
// (whose alt is the description), its play count as written (1.2M) and a
// "Pinned" badge. owner is the profile's username, for cards whose link
// names no author.
func parseCards(html []byte, owner string) []Video {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		return nil
	}
	var out []Video
	seen := map[string]bool{}
	doc.Find(`[data-e2e="user-post-item"]`).EachWithBreak(func(i int, card *goquery.Selection) bool {
		if i >= maxCards {
			return false
		}
		var m []string
		card.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
			href, _ := a.Attr("href")
			if u, err := url.Parse(href); err == nil {
				m = cardPathRE.FindStringSubmatch(u.Path)
			}
			return m == nil
		})
		if m == nil || seen[m[3]] {
			return true
		}
		seen[m[3]] = true
		author := m[1]
		if author == "" {
			author = owner
		}
		v := Video{Type: "video", ID: m[3], Author: Author{UniqueID: author}, Hashtags: []string{}, ListedVia: listedViaRendered,
			URL: "https://www.tiktok.com/@" + url.PathEscape(author) + "/" + m[2] + "/" + m[3]}
		img := card.Find("img").First()
		v.Description = cardDescription(img.AttrOr("alt", ""))
		if src := img.AttrOr("src", ""); strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
			v.Cover = src
		}
		if n, rounded, ok := writtenCount(card.Find(`[data-e2e="video-views"]`).First().Text()); ok {
			v.Stats.Plays = &n
			v.StatsRounded = rounded
		}
		v.Pinned = strings.Contains(strings.ToLower(card.Find(`[data-e2e="video-card-badge"]`).Text()), "pinned")
		if ct := idTime(v.ID); ct > 0 {
			v.CreateTime = ct
			v.CreatedAt = time.Unix(ct, 0).UTC().Format(time.RFC3339)
		}
		for _, tag := range hashtagRE.FindAllStringSubmatch(v.Description, 30) {
			v.Hashtags = append(v.Hashtags, tag[1])
		}
		out = append(out, v)
		return true
	})
	return out
}

var hashtagRE = regexp.MustCompile(`#([\p{L}\p{N}_]{1,100})`)

// cardDescription is a cover's alt text without what TikTok appends to the
// description ("… created by <name> with <sound>").
func cardDescription(alt string) string {
	alt = strings.TrimSpace(alt)
	if i := strings.LastIndex(alt, " created by "); i >= 0 {
		alt = strings.TrimSpace(alt[:i])
	}
	return alt
}

// writtenCount reads a count as TikTok's cards write it: 987, 15.3K, 1.2M,
// 3B. rounded is set for the abbreviated forms.
func writtenCount(s string) (n int64, rounded, ok bool) {
	s = strings.ToUpper(strings.TrimSpace(strings.ReplaceAll(s, ",", "")))
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
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mult > 1e15 || math.IsNaN(f) {
		return 0, false, false
	}
	return int64(math.Round(f * mult)), mult > 1, true
}

// idTime is the Unix time a TikTok video id carries in its high 32 bits,
// or 0 when the id is not one of a plausible time.
func idTime(id string) int64 {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return 0
	}
	t := int64(n >> 32)
	if t < 1451606400 || t > time.Now().Add(48*time.Hour).Unix() { // 2016 to now
		return 0
	}
	return t
}

// renderedProfile adds the videos of a profile's rendered page, for when
// TikTok's item list refuses an unsigned request; without a renderer, the
// result says why there are none.
func (s *scraper) renderedProfile(ctx context.Context, r *scrapers.SerialJob, p *Profile, want int, seen map[string]bool) error {
	if s.renderer == nil {
		r.Call().MarkPartial(fmt.Sprintf("TikTok lists the videos of @%s (%s) only to requests signed by its web client's scripts, and this host has no renderer to read them from the rendered profile page (its operator sets RENDERER_URL or CHROMIUM_BIN)", p.UniqueID, "/api/post/item_list/"))
		return nil
	}
	u, err := s.f.Rewrite(p.URL)
	if err != nil {
		return err
	}
	r.Call().Progress(fmt.Sprintf("rendering the profile page of @%s", p.UniqueID), 0, want)
	pg, err := s.renderer.Render(ctx, u.String())
	if err != nil {
		if ctx.Err() != nil {
			return scrapers.ContextError(ctx)
		}
		r.Call().MarkPartial(fmt.Sprintf("TikTok lists the videos of @%s only to signed requests, and rendering its profile page failed: %v", p.UniqueID, err))
		return nil
	}
	resp := &scrapers.Response{Request: &scrapers.Request{URL: p.URL}, StatusCode: pg.Status, Body: []byte(pg.HTML), Header: http.Header{}}
	resp.URL, _ = url.Parse(pg.URL)
	if be := detectBlock(resp); be != nil {
		return be
	}
	cards := parseCards(resp.Body, p.UniqueID)
	if len(cards) == 0 {
		// The rendered page keeps the data it was served with, so a
		// captcha its scripts laid over it is not hidden by it.
		for _, m := range captchaMarkers {
			if bytes.Contains(resp.Body, m) {
				return &scrapers.BlockedError{Site: "TikTok", Kind: scrapers.BlockCaptcha, URL: p.URL}
			}
		}
	}
	n := 0
	for _, v := range cards {
		if n >= want {
			break
		}
		if seen[v.ID] {
			continue
		}
		seen[v.ID] = true
		v.Source = p.URL
		if v.Author.UniqueID == p.UniqueID {
			v.Author.ID, v.Author.Nickname, v.Author.Verified, v.Author.Avatar = p.ID, p.Nickname, p.Verified, p.Avatar
		}
		r.Add(v)
		n++
	}
	r.Call().Progress(fmt.Sprintf("listed %d videos of @%s from its rendered page", n, p.UniqueID), n, want)
	switch {
	case len(cards) == 0:
		why := "no video cards"
		if pg.Slow {
			why += " (the page was still loading when its time ran out)"
		}
		r.Call().MarkPartial(fmt.Sprintf("TikTok lists the videos of @%s only to signed requests, and its rendered profile page showed %s", p.UniqueID, why))
	case n < want && p.Stats.Videos != nil && *p.Stats.Videos > int64(len(cards)):
		r.Call().MarkPartial(fmt.Sprintf("the rendered profile page of @%s showed %d of its %d videos; TikTok lists more only to its web client's signed requests as the page scrolls, so there is no cursor to continue", p.UniqueID, len(cards), *p.Stats.Videos))
	}
	return nil
}
