package youtube

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// searchPage is one page of search results: the videos in page order and the
// token that loads the next page ("" on the last page).
type searchPage struct {
	Videos       []Video
	Continuation string
	// EstimatedResults is YouTube's estimate of the result count, when given.
	EstimatedResults *int64
}

// parseResultsPage extracts the first page of results from a results page
// (/results?search_query=...) and the innertube settings that load the next.
func parseResultsPage(page []byte) (searchPage, innertubeConfig, error) {
	var data any
	if err := decodeEmbedded(page, "ytInitialData", &data); err != nil {
		return searchPage{}, innertubeConfig{}, fmt.Errorf("the results page carries no readable ytInitialData: %w; YouTube may have changed its pages", err)
	}
	return extractSearch(data), pageConfig(page), nil
}

// parseSearchJSON extracts results from an innertube search answer, first
// page or continuation alike.
func parseSearchJSON(body []byte) (searchPage, error) {
	var data any
	if err := json.Unmarshal(body, &data); err != nil {
		return searchPage{}, fmt.Errorf("the search answer is not valid JSON: %w", err)
	}
	return extractSearch(data), nil
}

// extractSearch reads the videos and the continuation token out of search
// data: the results page's ytInitialData, an innertube search answer, or a
// continuation answer. Videos inside shelves ("People also watched",
// "Popular in ...") and other kinds of results (channels, playlists, ads)
// are not search results for the query and are left out.
func extractSearch(data any) searchPage {
	var sp searchPage
	sp.EstimatedResults = atoi64(jsonval.Get(data, "estimatedResults"))
	seen := map[string]bool{}
	for _, list := range searchLists(data) {
		for _, section := range list {
			if tok := continuationToken(jsonval.Get(section, "continuationItemRenderer")); tok != "" {
				sp.Continuation = tok
				continue
			}
			items := jsonval.List(jsonval.Get(section, "itemSectionRenderer", "contents"))
			if items == nil {
				items = []any{section} // a continuation may list renderers directly
			}
			for _, it := range items {
				r := jsonval.Object(jsonval.Get(it, "videoRenderer"))
				if r == nil {
					r = jsonval.Object(jsonval.Get(it, "videoWithContextRenderer")) // m.youtube.com
				}
				if r == nil {
					if tok := continuationToken(jsonval.Get(it, "continuationItemRenderer")); tok != "" {
						sp.Continuation = tok
					}
					continue
				}
				v, ok := extractVideoRenderer(r)
				if !ok || seen[v.ID] {
					continue
				}
				seen[v.ID] = true
				sp.Videos = append(sp.Videos, v)
			}
		}
	}
	return sp
}

// searchLists returns the lists of sections search data can hold.
func searchLists(data any) [][]any {
	lists := [][]any{
		jsonval.List(jsonval.Get(data, "contents", "twoColumnSearchResultsRenderer", "primaryContents", "sectionListRenderer", "contents")),
		jsonval.List(jsonval.Get(data, "contents", "sectionListRenderer", "contents")),
		jsonval.List(jsonval.Get(data, "continuationContents", "sectionListContinuation", "contents")),
	}
	for _, key := range []string{"onResponseReceivedCommands", "onResponseReceivedActions", "onResponseReceivedEndpoints"} {
		for _, c := range jsonval.List(jsonval.Get(data, key)) {
			lists = append(lists,
				jsonval.List(jsonval.Get(c, "appendContinuationItemsAction", "continuationItems")),
				jsonval.List(jsonval.Get(c, "reloadContinuationItemsCommand", "continuationItems")))
		}
	}
	return lists
}

// continuationToken reads the token of a continuationItemRenderer (or of the
// older nextContinuationData).
func continuationToken(r any) string {
	if r == nil {
		return ""
	}
	for _, path := range [][]any{
		{"continuationEndpoint", "continuationCommand", "token"},
		{"button", "buttonRenderer", "command", "continuationCommand", "token"},
		{"nextContinuationData", "continuation"},
	} {
		if tok := str(jsonval.Get(r, path...)); tok != "" {
			return tok
		}
	}
	return ""
}

// extractVideoRenderer reads one search result.
func extractVideoRenderer(r map[string]any) (Video, bool) {
	v := Video{Type: "video", ID: str(r["videoId"])}
	if !isVideoID(v.ID) {
		return v, false
	}
	v.URL = watchURL(v.ID)
	v.Title = firstText(r["title"], r["headline"])
	for _, k := range []string{"ownerText", "longBylineText", "shortBylineText"} {
		run := jsonval.Get(r, k, "runs", 0)
		if name := str(jsonval.Get(run, "text")); name != "" {
			v.ChannelName = name
			v.ChannelID = str(jsonval.Get(run, "navigationEndpoint", "browseEndpoint", "browseId"))
			v.ChannelURL = channelURL(str(jsonval.Get(run, "navigationEndpoint", "browseEndpoint", "canonicalBaseUrl")), v.ChannelID)
			break
		}
	}
	v.ViewsText = firstText(r["viewCountText"], r["shortViewCountText"])
	v.Views = countPtr(text(r["viewCountText"]))
	if v.Views == nil {
		v.Views = countPtr(text(r["shortViewCountText"]))
	}
	v.DurationText = text(r["lengthText"])
	if v.DurationText == "" {
		for _, o := range jsonval.List(r["thumbnailOverlays"]) {
			if s := text(jsonval.Get(o, "thumbnailOverlayTimeStatusRenderer", "text")); s != "" {
				v.DurationText = s
				break
			}
		}
	}
	if secs, ok := parseDuration(v.DurationText); ok {
		v.DurationSeconds = &secs
	}
	v.PublishedTimeText = text(r["publishedTimeText"])
	for _, s := range jsonval.List(r["detailedMetadataSnippets"]) {
		if t := text(jsonval.Get(s, "snippetText")); t != "" {
			v.DescriptionSnippet = t
			break
		}
	}
	if v.DescriptionSnippet == "" {
		v.DescriptionSnippet = text(r["descriptionSnippet"])
	}
	v.Thumbnail = bestThumbnail(r["thumbnail"])
	for _, b := range jsonval.List(r["badges"]) {
		if strings.Contains(str(jsonval.Get(b, "metadataBadgeRenderer", "style")), "LIVE_NOW") {
			v.IsLive = true
		}
	}
	if strings.Contains(strings.ToLower(v.ViewsText), "watching") {
		v.IsLive = true
	}
	if jsonval.Get(r, "navigationEndpoint", "reelWatchEndpoint") != nil ||
		strings.HasPrefix(str(jsonval.Get(r, "navigationEndpoint", "commandMetadata", "webCommandMetadata", "url")), "/shorts/") {
		v.IsShort = true
	}
	return v, true
}
