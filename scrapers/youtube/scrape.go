package youtube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Limits of the scrape tool's arguments.
const (
	maxSources        = 20
	maxResultsLimit   = 100
	defaultMaxResults = 10
	maxQueryLen       = 500
)

// scrapeArgs are the scrape tool's arguments, named as SurfSense's scraper
// API names them.
type scrapeArgs struct {
	URLs              []string `json:"urls,omitempty" jsonschema:"YouTube video URLs (youtube.com/watch?v=, youtu.be/, youtube.com/shorts/) or channels (youtube.com/@handle, /@handle/videos, /channel/UC…, /c/name, a bare @handle; /streams lists live streams), at most 20"`
	SearchQueries     []string `json:"search_queries,omitempty" jsonschema:"Search queries; each gives up to max_results videos, at most 20 queries"`
	MaxResults        *int     `json:"max_results,omitempty" jsonschema:"Videos per search query or channel, 1 to 100 (default 10)"`
	Cursor            string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer, to read the next videos of its one search query or channel (give the same search_queries or urls)"`
	DownloadSubtitles bool     `json:"download_subtitles,omitempty" jsonschema:"Also fetch each video's subtitles (timed segments and plain text)"`
	SubtitlesLanguage string   `json:"subtitles_language,omitempty" jsonschema:"Subtitle language code (default en); when the video has none in it, auto-generated or the first track is taken"`

	maxResults int
}

// langCode is a BCP 47-ish language code as YouTube uses them (en, pt-BR, zh-Hant).
var langCode = regexp.MustCompile(`^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$`)

// Defaults fills subtitles_language.
func (a *scrapeArgs) Defaults() {
	a.SubtitlesLanguage = strings.TrimSpace(a.SubtitlesLanguage)
	if a.SubtitlesLanguage == "" {
		a.SubtitlesLanguage = "en"
	}
}

// Validate checks the arguments' rules.
func (a *scrapeArgs) Validate() error {
	if err := scrapers.ListLen("urls", a.URLs, 0, maxSources); err != nil {
		return err
	}
	if err := scrapers.ListLen("search_queries", a.SearchQueries, 0, maxSources); err != nil {
		return err
	}
	if len(a.URLs) == 0 && len(a.SearchQueries) == 0 {
		return scrapers.Argf("urls", "and search_queries are both empty: give at least one video URL or search query")
	}
	for i, q := range a.SearchQueries {
		if len(q) > maxQueryLen {
			return scrapers.Argf("search_queries", "entry %d is longer than %d characters", i, maxQueryLen)
		}
	}
	n, err := scrapers.IntArg("max_results", a.MaxResults, 1, maxResultsLimit, defaultMaxResults)
	if err != nil {
		return err
	}
	a.maxResults = n
	if !langCode.MatchString(a.SubtitlesLanguage) {
		return scrapers.Argf("subtitles_language", "must be a language code such as en, de or pt-BR, got %q", a.SubtitlesLanguage)
	}
	return nil
}

func (p *plugin) scrapeTool() scrapers.Tool {
	return scrapers.NewTool("scrape", "Scrape YouTube",
		"Scrape YouTube videos by URL, by search query, or a channel's videos: title, channel, views, likes, duration, publish date, "+
			"description, keywords and thumbnail (a search result or a channel's video has its card's title, id, views, published text, "+
			"duration and thumbnail); with download_subtitles, also the video's subtitles as timed segments "+
			"and plain text (in subtitles_language when the video has it). A call that reads one search query or one channel "+
			"returns next_cursor when there are more videos; pass it back as cursor for the next ones.",
		func(s *jsonschema.Schema) {
			scrapers.ListMax(s, maxSources, "urls", "search_queries")
			scrapers.IntRange(s, "max_results", 1, maxResultsLimit, defaultMaxResults)
			if ps := s.Properties["subtitles_language"]; ps != nil {
				ps.Pattern = langCode.String()
			}
			scrapers.SetDefault(s, "subtitles_language", "en")
			scrapers.SetDefault(s, "download_subtitles", false)
		},
		p.scrape).WithItems(scrapers.ItemSchema[Video]()).WithCursor()
}

// sources sorts the urls argument's entries into video ids and channel tabs,
// or returns an *scrapers.ArgError naming the first entry that is neither.
func (p *plugin) sources(urls []string) (ids []string, idURLs []string, tabs []channelTab, err error) {
	for i, raw := range urls {
		tab, isChannel, cerr := channelRef(raw, p.fetch.OnSite)
		if cerr != nil {
			return nil, nil, nil, scrapers.Argf("urls", "entry %d: %v", i, cerr)
		}
		if isChannel {
			tabs = append(tabs, tab)
			continue
		}
		id, verr := videoID(raw, p.fetch.OnSite)
		if verr != nil {
			return nil, nil, nil, scrapers.Argf("urls", "entry %d: %v; a channel is youtube.com/@handle, /channel/UC…, /c/name or @handle", i, verr)
		}
		ids, idURLs = append(ids, id), append(idURLs, raw)
	}
	return ids, idURLs, tabs, nil
}

// scrape runs the scrape tool: the video URLs first, then the channels, then
// the queries.
func (p *plugin) scrape(ctx context.Context, call *scrapers.Call, a scrapeArgs) error {
	ids, idURLs, tabs, err := p.sources(a.URLs)
	if err != nil {
		return err
	}
	// A cursor continues one listing; next_cursor is given when the call
	// read exactly one.
	var one *listing
	r := &run{call: call}
	listings := make([]listing, 0, len(tabs)+len(a.SearchQueries))
	for _, tab := range tabs {
		listings = append(listings, p.channelListing(tab, r, a.DownloadSubtitles, a.SubtitlesLanguage))
	}
	for _, q := range a.SearchQueries {
		listings = append(listings, p.searchListing(q, r, a.DownloadSubtitles, a.SubtitlesLanguage))
	}
	if len(listings) == 1 && len(ids) == 0 {
		one = &listings[0]
	}
	var cur scrapers.Cursor
	if a.Cursor != "" {
		if one == nil {
			return scrapers.Argf(scrapers.CursorArg, "continues one listing: give it with exactly one search query or one channel URL and nothing else, as in the call that returned it")
		}
		if cur, err = scrapers.ParseCursor(a.Cursor, one.key); err != nil {
			return err
		}
	}
	total, done := len(ids)+len(listings), 0
	progress := func(what string) {
		done++
		call.Progress(fmt.Sprintf("%s (%d of %d)", what, done, total), done, total)
	}
	for i, id := range ids {
		if ctx.Err() != nil {
			return stopped(ctx, call)
		}
		v, err := p.video(ctx, r, id, a.DownloadSubtitles, a.SubtitlesLanguage)
		if err != nil {
			if stop, ret := r.fail(ctx, idURLs[i], err); stop {
				return ret
			}
		} else {
			call.Add(v)
			r.ok++
		}
		progress("scraped video " + id)
	}
	for _, l := range listings {
		if ctx.Err() != nil {
			return stopped(ctx, call)
		}
		n, next, err := p.list(ctx, r, l, a.maxResults, cur)
		if one != nil {
			call.SetNextCursor(next)
		}
		if n > 0 {
			r.ok++
		}
		if err != nil {
			if stop, ret := r.fail(ctx, l.source, err); stop {
				return ret
			}
		}
		progress(fmt.Sprintf("%s: %d videos", l.name, n))
	}
	return r.result()
}

// watchPageURL is the watch page as fetched: in English.
func watchPageURL(id string) string { return watchURL(id) + "&hl=en" }

// video scrapes one video from its watch page.
func (p *plugin) video(ctx context.Context, r *run, id string, subs bool, lang string) (Video, error) {
	wp, err := p.watchPage(ctx, id)
	if err != nil {
		return Video{}, err
	}
	v := wp.Video
	if subs {
		p.addSubtitles(ctx, r, &v, wp.Config, wp.Tracks, true, lang)
	}
	return v, nil
}

// watchPage fetches and parses a video's watch page.
func (p *plugin) watchPage(ctx context.Context, id string) (*watchPage, error) {
	resp, err := p.fetch.Get(ctx, watchPageURL(id))
	if err != nil {
		return nil, err
	}
	end := scrapers.Extraction(ctx, "watch page")
	wp, err := parseWatchPage(resp.Body)
	end()
	if err != nil {
		var be *scrapers.BlockedError
		if errors.As(err, &be) || isUnavailable(err) {
			return nil, err
		}
		return nil, &scrapers.SiteError{Site: siteName, URL: watchURL(id), Err: err}
	}
	if wp.Video.ID != id {
		return nil, &scrapers.SiteError{Site: siteName, URL: watchURL(id), Err: fmt.Errorf("the watch page is for video %q, not %q", wp.Video.ID, id)}
	}
	return wp, nil
}

func isUnavailable(err error) bool {
	var ue *unavailableError
	return errors.As(err, &ue)
}

// searchListing is the listing of one query's results: the results page,
// then innertube search continuations.
func (p *plugin) searchListing(q string, r *run, subs bool, lang string) listing {
	var cfg innertubeConfig
	return listing{
		key:    "search " + q,
		name:   fmt.Sprintf("search %q", q),
		source: searchURL(q),
		method: "search",
		first: func(ctx context.Context) (listPage, innertubeConfig, error) {
			resp, err := p.fetch.Get(ctx, searchURL(q)+"&hl=en")
			if err != nil {
				return listPage{}, innertubeConfig{}, err
			}
			page, c, err := parseResultsPage(resp.Body)
			if err != nil {
				return listPage{}, innertubeConfig{}, &scrapers.SiteError{Site: siteName, URL: searchURL(q), Err: err}
			}
			cfg = c
			return listPage{Videos: page.Videos, Continuation: page.Continuation}, c, nil
		},
		parse: func(data any) listPage {
			sp := extractSearch(data)
			return listPage{Videos: sp.Videos, Continuation: sp.Continuation}
		},
		emit: func(ctx context.Context, v Video, pos int) {
			v.SearchQuery, v.Position = q, pos
			if subs {
				p.addSubtitles(ctx, r, &v, cfg, nil, false, lang)
			}
			r.call.Add(v)
		},
	}
}

// androidClientVersion is the ANDROID innertube client whose /player answer
// carries caption URLs that need no proof-of-origin token.
const androidClientVersion = "20.10.38"

// playerTracks asks innertube /player for a video's caption tracks.
func (p *plugin) playerTracks(ctx context.Context, cfg innertubeConfig, id string) ([]captionTrack, error) {
	body := map[string]any{
		"context": map[string]any{"client": map[string]any{
			"clientName": "ANDROID", "clientVersion": androidClientVersion, "hl": "en", "gl": "US",
		}},
		"videoId": id,
	}
	h := http.Header{"X-Youtube-Client-Name": {"3"}, "X-Youtube-Client-Version": {androidClientVersion}}
	data, err := p.innertube(ctx, cfg, "player", body, h)
	if err != nil {
		return nil, err
	}
	if st := str(jsonval.Get(data, "playabilityStatus", "status")); st == "LOGIN_REQUIRED" && botReason(firstText(jsonval.Get(data, "playabilityStatus", "reason"))) {
		return nil, botCheck(id)
	}
	return captionTracks(data), nil
}

// errNoCaptions is a video with no caption tracks at all.
var errNoCaptions = errors.New("the video has no subtitles")

// addSubtitles fetches a video's subtitles into v (or says in
// v.SubtitlesError why there are none). Tracks come from innertube /player,
// else from the watch page's own list (pageTracks; when fromPage is false the
// watch page is fetched for them).
func (p *plugin) addSubtitles(ctx context.Context, r *run, v *Video, cfg innertubeConfig, pageTracks []captionTrack, fromPage bool, lang string) {
	if r.subsBlocked != nil {
		v.SubtitlesError = "skipped: " + r.subsBlocked.Error()
		return
	}
	subs, avail, err := p.subtitles(ctx, cfg, v.ID, pageTracks, fromPage, lang)
	v.SubtitlesAvailable = avail
	if err != nil {
		v.SubtitlesError = err.Error()
		var be *scrapers.BlockedError
		if errors.As(err, &be) && be.Kind != scrapers.BlockLoginWall {
			r.subsBlocked = err
			r.call.MarkPartial("YouTube blocked subtitle requests")
		}
		return
	}
	v.Subtitles = subs
}

// subtitles finds a video's caption tracks, picks one for lang and fetches
// and parses it.
func (p *plugin) subtitles(ctx context.Context, cfg innertubeConfig, id string, pageTracks []captionTrack, fromPage bool, lang string) (*Subtitles, []string, error) {
	var lists [][]captionTrack
	apiTracks, apiErr := p.playerTracks(ctx, cfg, id)
	if len(apiTracks) > 0 {
		lists = append(lists, apiTracks)
	}
	if !fromPage && ctx.Err() == nil && (apiErr != nil || len(apiTracks) == 0) {
		// Search results have no watch page yet: its track list is the
		// fallback.
		wp, err := p.watchPage(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		pageTracks = wp.Tracks
	}
	if len(pageTracks) > 0 {
		lists = append(lists, pageTracks)
	}
	if len(lists) == 0 {
		if apiErr != nil {
			return nil, nil, fmt.Errorf("the video's subtitle tracks could not be listed: %w", apiErr)
		}
		return nil, nil, errNoCaptions
	}
	avail := trackLanguages(lists[0])
	var lastErr error
	for _, tracks := range lists {
		if ctx.Err() != nil {
			return nil, avail, ctx.Err()
		}
		t, found, _ := chooseTrack(tracks, lang)
		u, err := trackURL(t.BaseURL, p.fetch.OnSite)
		if err != nil {
			lastErr = err
			continue
		}
		resp, err := p.fetch.Get(ctx, u)
		if err != nil {
			lastErr = err
			continue
		}
		segs, err := parseTimedText(resp.Body)
		if err != nil {
			lastErr = err
			continue
		}
		if segs == nil {
			segs = []Segment{}
		}
		return &Subtitles{
			Language:      t.Language,
			Name:          t.Name,
			AutoGenerated: t.auto(),
			Requested:     found,
			Segments:      segs,
			Text:          joinSegments(segs),
		}, avail, nil
	}
	return nil, avail, lastErr
}
