package youtube

import (
	"errors"
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Video is one item of the scrape tool: a video's details, from its watch
// page or from a search results list. Fields YouTube did not show are left
// out (numbers are pointers so that 0 and unknown differ).
type Video struct {
	Type string `json:"type"` // "video"
	// URL is the video's canonical watch URL.
	URL   string `json:"url"`
	ID    string `json:"id"`
	Title string `json:"title"`

	ChannelName            string `json:"channel_name,omitempty"`
	ChannelID              string `json:"channel_id,omitempty"`
	ChannelURL             string `json:"channel_url,omitempty"`
	ChannelSubscribersText string `json:"channel_subscribers_text,omitempty"`

	// Views and Likes are exact when the page gives them (viewCount,
	// likeCount); otherwise they are read from the shown texts, which may
	// be rounded ("43K").
	Views     *int64 `json:"views,omitempty"`
	ViewsText string `json:"views_text,omitempty"`
	Likes     *int64 `json:"likes,omitempty"`
	LikesText string `json:"likes_text,omitempty"`
	// CommentsCountText is the comment count as the page shows it ("2.7K").
	CommentsCountText string `json:"comments_count_text,omitempty"`

	DurationSeconds *int   `json:"duration_seconds,omitempty"`
	DurationText    string `json:"duration_text,omitempty"`

	// PublishDate is the publication date as YouTube gives it (ISO 8601,
	// with a time and offset on recent pages); DateText is the page's text
	// ("Aug 2, 2018"); PublishedTimeText the relative text of search results
	// ("9 months ago").
	PublishDate       string `json:"publish_date,omitempty"`
	UploadDate        string `json:"upload_date,omitempty"`
	DateText          string `json:"date_text,omitempty"`
	PublishedTimeText string `json:"published_time_text,omitempty"`

	Description        string   `json:"description,omitempty"`
	DescriptionSnippet string   `json:"description_snippet,omitempty"`
	Keywords           []string `json:"keywords,omitempty"`
	Category           string   `json:"category,omitempty"`
	Thumbnail          string   `json:"thumbnail,omitempty"`
	IsLive             bool     `json:"is_live,omitempty"`
	IsLiveContent      bool     `json:"is_live_content,omitempty"`
	IsShort            bool     `json:"is_short,omitempty"`
	// PlayabilityStatus is set when YouTube would not play the video
	// (LOGIN_REQUIRED, LIVE_STREAM_OFFLINE, …), with its reason.
	PlayabilityStatus string `json:"playability_status,omitempty"`
	PlayabilityReason string `json:"playability_reason,omitempty"`

	// SearchQuery and Position are set on search results: the query and the
	// 1-based rank in its results (going on across pages read with a
	// cursor). Source and Position are set on a channel's videos: the
	// channel tab listed (https://www.youtube.com/@handle/videos) and the
	// video's place in it, newest first.
	SearchQuery string `json:"search_query,omitempty"`
	Source      string `json:"source,omitempty"`
	Position    int    `json:"position,omitempty"`

	// Subtitles are set when download_subtitles asked for them and a track
	// was found; SubtitlesError says why not otherwise.
	Subtitles          *Subtitles `json:"subtitles,omitempty"`
	SubtitlesError     string     `json:"subtitles_error,omitempty"`
	SubtitlesAvailable []string   `json:"subtitles_available,omitempty"`
}

// unavailableError is a video YouTube would not show (removed, private,
// age-restricted): a failure of that one video, not a block of the site.
type unavailableError struct {
	ID     string
	Status string
	Reason string
}

func (e *unavailableError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("YouTube will not show video %s (%s): %s", e.ID, e.Status, reason)
}

// watchPage is what a watch page yields: the video, its caption tracks, the
// tokens that load its comments, and the innertube settings for follow-up
// requests.
type watchPage struct {
	Video    Video
	Tracks   []captionTrack
	Comments commentTokens
	Config   innertubeConfig
}

// parseWatchPage extracts a video from its watch page (ytInitialPlayerResponse
// and ytInitialData). An error says the page held no video: an
// *unavailableError when YouTube refused to show it, errNoData-wrapped when
// the page carried neither data blob.
func parseWatchPage(page []byte) (*watchPage, error) {
	// Decoding only the parts used (typed skeletons with generic leaves)
	// skips the bulk of both blobs: streaming formats, related videos,
	// overlays, tracking.
	var ps playerSkeleton
	var is initialSkeleton
	perr := decodeEmbedded(page, "ytInitialPlayerResponse", &ps)
	ierr := decodeEmbedded(page, "ytInitialData", &is)
	if perr != nil && ierr != nil {
		if errors.Is(perr, errNoData) && errors.Is(ierr, errNoData) {
			return nil, fmt.Errorf("the watch page carries no ytInitialPlayerResponse or ytInitialData (%w); YouTube may have changed its pages", errNoData)
		}
		return nil, fmt.Errorf("the watch page's data could not be read: %v; %v", perr, ierr)
	}
	var player, initial any
	if perr == nil {
		player = ps.tree()
	}
	if ierr == nil {
		initial = is.tree()
	}
	v, err := extractVideo(player, initial)
	if err != nil {
		return nil, err
	}
	return &watchPage{
		Video:    v,
		Tracks:   captionTracks(player),
		Comments: commentTokensFrom(initial),
		Config:   pageConfig(page),
	}, nil
}

// playerSkeleton is the part of a player response the extractors read.
type playerSkeleton struct {
	PlayabilityStatus any `json:"playabilityStatus"`
	VideoDetails      any `json:"videoDetails"`
	Microformat       any `json:"microformat"`
	Captions          any `json:"captions"`
}

// tree gives the skeleton as the generic tree the extractors walk.
func (s *playerSkeleton) tree() any {
	return map[string]any{"playabilityStatus": s.PlayabilityStatus, "videoDetails": s.VideoDetails, "microformat": s.Microformat, "captions": s.Captions}
}

// initialSkeleton is the part of a watch page's ytInitialData the extractors
// read: the main column (primary and secondary info, the comment section) and
// the engagement panels (comment count and sort menu).
type initialSkeleton struct {
	Contents struct {
		TwoColumnWatchNextResults struct {
			Results struct {
				Results struct {
					Contents any `json:"contents"`
				} `json:"results"`
			} `json:"results"`
		} `json:"twoColumnWatchNextResults"`
	} `json:"contents"`
	EngagementPanels     any `json:"engagementPanels"`
	CurrentVideoEndpoint any `json:"currentVideoEndpoint"`
}

func (s *initialSkeleton) tree() any {
	return map[string]any{
		"contents": map[string]any{"twoColumnWatchNextResults": map[string]any{"results": map[string]any{"results": map[string]any{
			"contents": s.Contents.TwoColumnWatchNextResults.Results.Results.Contents}}}},
		"engagementPanels":     s.EngagementPanels,
		"currentVideoEndpoint": s.CurrentVideoEndpoint,
	}
}

// extractVideo reads a video from a player response and the watch page's
// ytInitialData; either may be nil.
func extractVideo(player, initial any) (Video, error) {
	v := Video{Type: "video"}
	details := jsonval.Object(jsonval.Get(player, "videoDetails"))
	micro := jsonval.Object(jsonval.Get(player, "microformat", "playerMicroformatRenderer"))
	status := str(jsonval.Get(player, "playabilityStatus", "status"))
	reason := firstText(jsonval.Get(player, "playabilityStatus", "reason"),
		jsonval.Get(player, "playabilityStatus", "errorScreen", "playerErrorMessageRenderer", "reason"),
		jsonval.Get(player, "playabilityStatus", "messages", 0))

	v.ID = str(details["videoId"])
	if v.ID == "" {
		v.ID = str(micro["externalVideoId"])
	}
	if v.ID == "" {
		v.ID = str(jsonval.Get(initial, "currentVideoEndpoint", "watchEndpoint", "videoId"))
	}
	if status != "" && status != "OK" {
		if status == "LOGIN_REQUIRED" && botReason(reason) {
			return v, botCheck(v.ID)
		}
		v.PlayabilityStatus, v.PlayabilityReason = status, reason
		if details == nil {
			return v, &unavailableError{ID: v.ID, Status: status, Reason: reason}
		}
	}
	if !isVideoID(v.ID) {
		return v, fmt.Errorf("the watch page names no video (%w)", errNoData)
	}
	v.URL = watchURL(v.ID)

	primary, secondary := watchRenderers(initial)

	v.Title = firstText(details["title"], micro["title"], jsonval.Get(primary, "title"))
	v.ChannelName = firstText(details["author"], micro["ownerChannelName"], jsonval.Get(secondary, "owner", "videoOwnerRenderer", "title"))
	v.ChannelID = firstText(details["channelId"], micro["externalChannelId"],
		jsonval.Get(secondary, "owner", "videoOwnerRenderer", "navigationEndpoint", "browseEndpoint", "browseId"))
	canonical := str(jsonval.Get(secondary, "owner", "videoOwnerRenderer", "navigationEndpoint", "browseEndpoint", "canonicalBaseUrl"))
	if canonical == "" {
		canonical = str(micro["ownerProfileUrl"])
	}
	v.ChannelURL = channelURL(canonical, v.ChannelID)
	v.ChannelSubscribersText = text(jsonval.Get(secondary, "owner", "videoOwnerRenderer", "subscriberCountText"))

	v.Views = atoi64(details["viewCount"])
	if v.Views == nil {
		v.Views = atoi64(micro["viewCount"])
	}
	v.ViewsText = firstText(jsonval.Get(primary, "viewCount", "videoViewCountRenderer", "viewCount"))
	if v.Views == nil {
		v.Views = countPtr(v.ViewsText)
	}

	v.Likes = atoi64(micro["likeCount"])
	likesExact, likesText := likesFromButtons(jsonval.Get(primary, "videoActions"))
	v.LikesText = likesText
	if v.Likes == nil {
		v.Likes = likesExact
	}
	v.CommentsCountText = commentsCountText(initial)

	if secs := atoi64(details["lengthSeconds"]); secs != nil && *secs > 0 {
		n := int(*secs)
		v.DurationSeconds, v.DurationText = &n, formatDuration(n)
	} else if secs := atoi64(micro["lengthSeconds"]); secs != nil && *secs > 0 {
		n := int(*secs)
		v.DurationSeconds, v.DurationText = &n, formatDuration(n)
	}

	v.PublishDate = str(micro["publishDate"])
	v.UploadDate = str(micro["uploadDate"])
	v.DateText = text(jsonval.Get(primary, "dateText"))

	v.Description = str(details["shortDescription"])
	if v.Description == "" {
		v.Description = firstText(micro["description"], jsonval.Get(secondary, "attributedDescription"), jsonval.Get(secondary, "description"))
	}
	for _, k := range jsonval.List(details["keywords"]) {
		if s := str(k); s != "" {
			v.Keywords = append(v.Keywords, s)
		}
	}
	v.Category = str(micro["category"])
	v.Thumbnail = bestThumbnail(details["thumbnail"])
	if v.Thumbnail == "" {
		v.Thumbnail = bestThumbnail(micro["thumbnail"])
	}
	v.IsLive = jsonval.Bool(details["isLive"])
	v.IsLiveContent = jsonval.Bool(details["isLiveContent"])
	if v.Title == "" && details == nil && primary == nil {
		return v, fmt.Errorf("the watch page of %s holds no video details (%w)", v.ID, errNoData)
	}
	return v, nil
}

// watchRenderers finds the primary and secondary info renderers of a watch
// page's ytInitialData.
func watchRenderers(initial any) (primary, secondary map[string]any) {
	for _, c := range jsonval.List(jsonval.Get(initial, "contents", "twoColumnWatchNextResults", "results", "results", "contents")) {
		if p := jsonval.Object(jsonval.Get(c, "videoPrimaryInfoRenderer")); p != nil && primary == nil {
			primary = p
		}
		if s := jsonval.Object(jsonval.Get(c, "videoSecondaryInfoRenderer")); s != nil && secondary == nil {
			secondary = s
		}
	}
	return primary, secondary
}

// likesFromButtons reads the like count from a watch page's action buttons:
// the exact count when the button's accessibility text gives it ("like this
// video along with 43,864 other people"), else the shown text read as a
// number (43K is 43000, an approximation likes_text lets the reader judge);
// and the shown text itself.
func likesFromButtons(actions any) (count *int64, shown string) {
	var exact *int64
	walk(actions, func(key string, val any) bool {
		if exact != nil && shown != "" {
			return false
		}
		switch key {
		case "buttonViewModel":
			if str(jsonval.Get(val, "iconName")) != "LIKE" {
				return true
			}
			if shown == "" {
				shown = str(jsonval.Get(val, "title"))
			}
			if a := str(jsonval.Get(val, "accessibilityText")); exact == nil && a != "" {
				exact = countPtr(a)
			}
			return false
		case "toggleButtonRenderer": // the older button
			if str(jsonval.Get(val, "defaultIcon", "iconType")) != "LIKE" {
				return true
			}
			if shown == "" {
				shown = text(jsonval.Get(val, "defaultText"))
			}
			if a := str(jsonval.Get(val, "defaultText", "accessibility", "accessibilityData", "label")); exact == nil && a != "" {
				exact = countPtr(a)
			}
			return false
		}
		return true
	})
	if exact == nil && shown != "" {
		exact = countPtr(shown)
	}
	return exact, shown
}

// commentsCountText reads the comment count shown on the comments panel.
func commentsCountText(initial any) string {
	for _, p := range jsonval.List(jsonval.Get(initial, "engagementPanels")) {
		r := jsonval.Get(p, "engagementPanelSectionListRenderer")
		if str(jsonval.Get(r, "panelIdentifier")) != "engagement-panel-comments-section" && str(jsonval.Get(r, "targetId")) != "engagement-panel-comments-section" {
			continue
		}
		if s := text(jsonval.Get(r, "header", "engagementPanelTitleHeaderRenderer", "contextualInfo")); s != "" {
			return s
		}
	}
	return ""
}

// botCheck is the robot check a video's player response gave.
func botCheck(id string) error {
	be := &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRobotCheck}
	if id != "" {
		be.URL = watchURL(id)
	}
	return be
}
