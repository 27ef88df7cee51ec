package youtube

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// A channel's videos are its Videos tab (/@handle/videos): a web page whose
// ytInitialData holds the tab's first grid of videos, and innertube browse
// answers with the rest, each page ending with the token of the next.

// channelTab is one channel tab to list: its path on YouTube
// (/@handle/videos, /channel/UC…/streams).
type channelTab struct {
	Path string
}

// URL is the tab's page on YouTube.
func (c channelTab) URL() string { return origin + c.Path }

var (
	channelIDRE = regexp.MustCompile(`^UC[A-Za-z0-9_-]{22}$`)
	// legacyName is a /c/ or /user/ name.
	legacyNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)
)

// maxHandleLen bounds a handle (YouTube's own limit is 30 characters).
const maxHandleLen = 100

// validHandle reports whether h (without its @) can be a YouTube handle:
// letters (any script), digits, marks, _, - and ., at most 100 characters.
func validHandle(h string) bool {
	if h == "" || utf8.RuneCountInString(h) > maxHandleLen || !utf8.ValidString(h) {
		return false
	}
	for _, r := range h {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '.' || r == '·') {
			return false
		}
	}
	return true
}

// channelRef reads raw as a channel: a bare @handle, or a YouTube URL whose
// path is /@handle, /channel/UC…, /c/<name> or /user/<name>, with or without
// a tab after it. The tab listed is the channel's Videos, or its Live tab
// (streams) when the URL names it; a tab of other things (shorts,
// playlists, posts) is refused. ok is false when raw is not a channel
// URL (a video URL, say); err is set when it looks like one but is broken.
func channelRef(raw string, onSite func(*url.URL) bool) (tab channelTab, ok bool, err error) {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "@") && !strings.ContainsAny(raw, "/?#") {
		h := raw[1:]
		if !validHandle(h) {
			return channelTab{}, true, fmt.Errorf("%q is not a YouTube handle (letters, digits, _, - and . after the @)", raw)
		}
		return channelTab{Path: "/@" + url.PathEscape(h) + "/videos"}, true, nil
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, perr := url.Parse(s)
	if perr != nil || u.Host == "" {
		return channelTab{}, false, nil
	}
	if onSite == nil {
		onSite = isYouTubeHost
	}
	if !onSite(u) {
		return channelTab{}, false, nil
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	var base string
	var rest []string
	switch {
	case strings.HasPrefix(segs[0], "@"):
		h := segs[0][1:]
		if !validHandle(h) {
			return channelTab{}, true, fmt.Errorf("%q does not name a YouTube handle", raw)
		}
		base, rest = "/@"+url.PathEscape(h), segs[1:]
	case segs[0] == "channel":
		if len(segs) < 2 || !channelIDRE.MatchString(segs[1]) {
			return channelTab{}, true, fmt.Errorf("%q does not name a YouTube channel id (UC followed by 22 characters)", raw)
		}
		base, rest = "/channel/"+segs[1], segs[2:]
	case segs[0] == "c" || segs[0] == "user":
		if len(segs) < 2 || !legacyNameRE.MatchString(segs[1]) || strings.Trim(segs[1], ".") == "" {
			return channelTab{}, true, fmt.Errorf("%q does not name a YouTube channel", raw)
		}
		base, rest = "/"+segs[0]+"/"+segs[1], segs[2:]
	default:
		return channelTab{}, false, nil
	}
	tabName := "videos"
	if len(rest) > 0 {
		switch t := strings.ToLower(rest[0]); t {
		case "streams":
			tabName = "streams"
		case "shorts", "playlists", "community", "posts", "releases", "podcasts", "courses", "store":
			return channelTab{}, true, fmt.Errorf("%q is a channel's %s tab, which is not read; give the channel (youtube.com/@handle) for its videos, or its /streams tab", raw, t)
		}
	}
	return channelTab{Path: base + "/" + tabName}, true, nil
}

// channelInfo is what a channel page says of the channel itself.
type channelInfo struct {
	Name string
	ID   string
	URL  string
}

// parseChannelPage reads a channel tab's page: the channel, and the first
// page of the tab's videos.
func parseChannelPage(page []byte) (channelInfo, listPage, error) {
	var data any
	if err := decodeEmbedded(page, "ytInitialData", &data); err != nil {
		return channelInfo{}, listPage{}, fmt.Errorf("the channel page carries no readable ytInitialData: %w; YouTube may have changed its pages", err)
	}
	info := channelInfo{
		Name: str(jsonval.Get(data, "metadata", "channelMetadataRenderer", "title")),
		ID:   str(jsonval.Get(data, "metadata", "channelMetadataRenderer", "externalId")),
	}
	canonical := str(jsonval.Get(data, "metadata", "channelMetadataRenderer", "vanityChannelUrl"))
	if canonical == "" {
		canonical = str(jsonval.Get(data, "metadata", "channelMetadataRenderer", "channelUrl"))
	}
	if u, err := url.Parse(canonical); err == nil && u.Path != "" && isYouTubeHost(u) {
		info.URL = origin + u.EscapedPath()
	} else {
		info.URL = channelURL("", info.ID)
	}
	grid, found := selectedGrid(data)
	if !found {
		if msg := firstText(jsonval.Get(data, "alerts", 0, "alertRenderer", "text")); msg != "" {
			return info, listPage{}, fmt.Errorf("YouTube says: %s", msg)
		}
		return info, listPage{}, errors.New("the channel page lists no videos (it has no Videos tab, or YouTube changed its pages)")
	}
	return info, extractGrid([][]any{grid}), nil
}

// selectedGrid finds the contents of the selected tab's grid of videos (a
// richGridRenderer; older pages a gridRenderer inside a section list).
func selectedGrid(data any) ([]any, bool) {
	tabs := jsonval.List(jsonval.Get(data, "contents", "twoColumnBrowseResultsRenderer", "tabs"))
	var fallback []any
	found := false
	for _, t := range tabs {
		tr := jsonval.Get(t, "tabRenderer")
		if tr == nil {
			continue
		}
		content := jsonval.Get(tr, "content")
		grid, ok := jsonval.Get(content, "richGridRenderer", "contents").([]any)
		if !ok {
			for _, sec := range jsonval.List(jsonval.Get(content, "sectionListRenderer", "contents")) {
				for _, it := range jsonval.List(jsonval.Get(sec, "itemSectionRenderer", "contents")) {
					if g, gok := jsonval.Get(it, "gridRenderer", "items").([]any); gok {
						grid, ok = g, true
					}
				}
			}
		}
		if !ok {
			continue
		}
		if jsonval.Bool(jsonval.Get(tr, "selected")) {
			return grid, true
		}
		if !found {
			fallback, found = grid, true
		}
	}
	return fallback, found
}

// parseBrowseContinuation reads a browse continuation answer.
func parseBrowseContinuation(data any) listPage {
	var lists [][]any
	for _, key := range []string{"onResponseReceivedActions", "onResponseReceivedEndpoints", "onResponseReceivedCommands"} {
		for _, c := range jsonval.List(jsonval.Get(data, key)) {
			lists = append(lists,
				jsonval.List(jsonval.Get(c, "appendContinuationItemsAction", "continuationItems")),
				jsonval.List(jsonval.Get(c, "reloadContinuationItemsCommand", "continuationItems")))
		}
	}
	return extractGrid(lists)
}

// extractGrid reads the videos and the continuation token of grid entries:
// richItemRenderer (or gridVideoRenderer) wrapping a videoRenderer or a
// lockupViewModel, and a closing continuationItemRenderer. Shelves, posts
// and other kinds of entries are left out.
func extractGrid(lists [][]any) listPage {
	var pg listPage
	seen := map[string]bool{}
	for _, list := range lists {
		for _, it := range list {
			if tok := continuationToken(jsonval.Get(it, "continuationItemRenderer")); tok != "" {
				pg.Continuation = tok
				continue
			}
			item := it
			if c := jsonval.Get(it, "richItemRenderer", "content"); c != nil {
				item = c
			}
			var v Video
			ok := false
			if r := jsonval.Object(jsonval.Get(item, "videoRenderer")); r != nil {
				v, ok = extractVideoRenderer(r)
			} else if r := jsonval.Object(jsonval.Get(item, "gridVideoRenderer")); r != nil {
				v, ok = extractVideoRenderer(r)
			} else if r := jsonval.Object(jsonval.Get(item, "lockupViewModel")); r != nil {
				v, ok = extractLockup(r)
			}
			if !ok || seen[v.ID] {
				continue
			}
			seen[v.ID] = true
			pg.Videos = append(pg.Videos, v)
		}
	}
	return pg
}

// extractLockup reads a video from the newer lockupViewModel card: contentId,
// the title and metadata rows (views, then the published time) and the
// thumbnail with its duration badge. (The shape is read from pages of
// 2025; YouTube moves to it gradually.)
func extractLockup(r map[string]any) (Video, bool) {
	if t := str(r["contentType"]); t != "" && t != "LOCKUP_CONTENT_TYPE_VIDEO" {
		return Video{}, false
	}
	v := Video{Type: "video", ID: str(r["contentId"])}
	if !isVideoID(v.ID) {
		return v, false
	}
	v.URL = watchURL(v.ID)
	meta := jsonval.Get(r, "metadata", "lockupMetadataViewModel")
	v.Title = text(jsonval.Get(meta, "title"))
	for _, row := range jsonval.List(jsonval.Get(meta, "metadata", "contentMetadataViewModel", "metadataRows")) {
		for _, part := range jsonval.List(jsonval.Get(row, "metadataParts")) {
			s := text(jsonval.Get(part, "text"))
			lower := strings.ToLower(s)
			switch {
			case strings.HasSuffix(lower, "views") || strings.HasSuffix(lower, "view") || strings.Contains(lower, "watching"):
				v.ViewsText = s
				v.Views = countPtr(s)
			case strings.HasSuffix(lower, "ago") || strings.HasPrefix(lower, "streamed") || strings.HasPrefix(lower, "premiered"):
				v.PublishedTimeText = s
			}
		}
	}
	img := jsonval.Get(r, "contentImage", "thumbnailViewModel")
	v.Thumbnail = bestThumbnail(jsonval.Get(img, "image"))
	for _, o := range jsonval.List(jsonval.Get(img, "overlays")) {
		for _, b := range jsonval.List(jsonval.Get(o, "thumbnailOverlayBadgeViewModel", "thumbnailBadges")) {
			if s := str(jsonval.Get(b, "thumbnailBadgeViewModel", "text")); s != "" {
				if secs, ok := parseDuration(s); ok {
					v.DurationText, v.DurationSeconds = s, &secs
				} else if strings.EqualFold(s, "live") {
					v.IsLive = true
				}
			}
		}
	}
	return v, true
}

// channelListing is the listing of one channel tab: its page, then browse
// continuations. Each video is named with the channel.
func (p *plugin) channelListing(tab channelTab, r *run, subs bool, lang string) listing {
	var info channelInfo
	first := func(ctx context.Context) (listPage, innertubeConfig, error) {
		resp, err := p.fetch.Get(ctx, tab.URL()+"?hl=en")
		if err != nil {
			return listPage{}, innertubeConfig{}, err
		}
		end := scrapers.Extraction(ctx, "channel page")
		ci, pg, err := parseChannelPage(resp.Body)
		end()
		if err != nil {
			return listPage{}, innertubeConfig{}, &scrapers.SiteError{Site: siteName, URL: tab.URL(), Err: err}
		}
		info = ci
		return pg, pageConfig(resp.Body), nil
	}
	return listing{
		key:    "channel " + tab.Path,
		name:   "channel " + tab.URL(),
		source: tab.URL(),
		method: "browse",
		first:  first,
		prime: func(ctx context.Context) (innertubeConfig, error) {
			_, cfg, err := first(ctx)
			return cfg, err
		},
		parse: parseBrowseContinuation,
		emit: func(ctx context.Context, v Video, pos int) {
			if v.ChannelName == "" {
				v.ChannelName = info.Name
			}
			if v.ChannelID == "" {
				v.ChannelID = info.ID
			}
			if v.ChannelURL == "" {
				v.ChannelURL = info.URL
			}
			v.Source, v.Position = tab.URL(), pos
			if subs {
				p.addSubtitles(ctx, r, &v, innertubeConfig{}, nil, false, lang)
			}
			r.call.Add(v)
		},
	}
}
