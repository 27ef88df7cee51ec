package tiktok

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Video is one TikTok video (or photo post) as the tool returns it.
type Video struct {
	URL         string     `json:"url"`
	Type        string     `json:"type"` // "video"
	ID          string     `json:"id"`
	Description string     `json:"description"`
	CreateTime  int64      `json:"create_time,omitempty"` // Unix seconds
	CreatedAt   string     `json:"created_at,omitempty"`  // RFC 3339, UTC
	Author      Author     `json:"author"`
	Stats       VideoStats `json:"stats"`
	Music       *Music     `json:"music,omitempty"`
	Hashtags    []string   `json:"hashtags"`
	Duration    int64      `json:"duration,omitempty"` // seconds
	Cover       string     `json:"cover,omitempty"`
	Images      []string   `json:"images,omitempty"` // photo posts
	Language    string     `json:"language,omitempty"`
	Location    string     `json:"location_created,omitempty"`
	IsAd        bool       `json:"is_ad,omitempty"`
	// Source is the profile, hashtag, search or feed page the video was
	// listed on; SearchQuery the keywords of a search.
	Source      string `json:"source,omitempty"`
	SearchQuery string `json:"search_query,omitempty"`
	// ListedVia says how a listed video was read: "page data" (the
	// profile page's embedded data), "api" (an item list or search
	// answer) or "rendered page" (a card of the profile page rendered in
	// the host's browser, which shows the id, description, cover and play
	// count only).
	ListedVia string `json:"listed_via,omitempty"`
	// StatsRounded is set when a count is as the page writes it (1.2M).
	StatsRounded bool `json:"stats_rounded,omitempty"`
	// Pinned is set for a video its author pinned to the top of the
	// profile (rendered cards say so).
	Pinned bool `json:"pinned,omitempty"`
}

// Author is a video's author.
type Author struct {
	ID       string `json:"id,omitempty"`
	UniqueID string `json:"unique_id"`
	Nickname string `json:"nickname,omitempty"`
	Verified bool   `json:"verified"`
	Avatar   string `json:"avatar,omitempty"`
}

// VideoStats are a video's counters; nil when TikTok did not say.
type VideoStats struct {
	Plays    *int64 `json:"plays"`
	Likes    *int64 `json:"likes"`
	Comments *int64 `json:"comments"`
	Shares   *int64 `json:"shares"`
	Collects *int64 `json:"collects"`
}

// Music is a video's sound.
type Music struct {
	ID       string `json:"id,omitempty"`
	Title    string `json:"title,omitempty"`
	Author   string `json:"author,omitempty"`
	Original bool   `json:"original"`
	Duration int64  `json:"duration,omitempty"`
}

// Profile is a TikTok account.
type Profile struct {
	URL      string       `json:"url"`
	Type     string       `json:"type"` // "profile"
	ID       string       `json:"id,omitempty"`
	UniqueID string       `json:"unique_id"`
	Nickname string       `json:"nickname,omitempty"`
	Bio      string       `json:"bio,omitempty"`
	BioLink  string       `json:"bio_link,omitempty"`
	Verified bool         `json:"verified"`
	Private  bool         `json:"private"`
	Avatar   string       `json:"avatar,omitempty"`
	SecUID   string       `json:"sec_uid,omitempty"`
	Stats    ProfileStats `json:"stats"`
	// Source and SearchQuery name the user search that found the account.
	Source      string `json:"source,omitempty"`
	SearchQuery string `json:"search_query,omitempty"`
}

// ProfileStats are an account's counters; nil when TikTok did not say.
type ProfileStats struct {
	Followers *int64 `json:"followers"`
	Following *int64 `json:"following"`
	Likes     *int64 `json:"likes"`
	Videos    *int64 `json:"videos"`
	Friends   *int64 `json:"friends,omitempty"`
}

// Hashtag is a TikTok hashtag (a "challenge").
type Hashtag struct {
	URL         string       `json:"url"`
	Type        string       `json:"type"` // "hashtag"
	ID          string       `json:"id,omitempty"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Cover       string       `json:"cover,omitempty"`
	Stats       HashtagStats `json:"stats"`
}

// HashtagStats are a hashtag's counters; nil when TikTok did not say.
type HashtagStats struct {
	Videos *int64 `json:"videos"`
	Views  *int64 `json:"views"`
}

// page is what one TikTok HTML page carries: a video, a profile (with the
// videos listed in it, if any) or a hashtag.
type page struct {
	Video         *Video
	Profile       *Profile
	ProfileVideos []Video
	Hashtag       *Hashtag
}

// Errors of page parsing. A page that carries none of the known scopes is
// errNoData; a scope that carries a TikTok status and no data is a
// *statusError.
var (
	errNoData    = errors.New("the page carries no TikTok data (__UNIVERSAL_DATA_FOR_REHYDRATION__ missing or empty); TikTok may have changed its pages")
	errEmptyList = errors.New("TikTok answered the item list with an empty body; it lists videos only to signed browser requests")
	errNotJSON   = errors.New("the answer is not JSON")
)

// universalDataID is the id of the script TikTok's pages carry their data in.
var universalDataID = []byte("__UNIVERSAL_DATA_FOR_REHYDRATION__")

// statusError is a TikTok status code in place of data (10204: not found,
// 10216/10222: private, …).
type statusError struct {
	Code int64
	Msg  string
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("TikTok answered with status %d", e.Code)
	if e.Msg != "" {
		msg += " (" + e.Msg + ")"
	}
	switch e.Code {
	case 10204, 10202:
		msg += ": the video or account does not exist"
	case 10216, 10222:
		msg += ": the content is private"
	}
	return msg
}

// defaultScope returns __DEFAULT_SCOPE__ of the page's rehydration script.
func defaultScope(body []byte) (map[string]any, error) {
	rest, ok := scriptText(body, universalDataID)
	if !ok {
		return nil, errNoData
	}
	end := bytes.Index(rest, []byte("</script"))
	if end < 0 {
		return nil, errNoData
	}
	v, err := jsonval.Decode(rest[:end])
	if err != nil {
		return nil, fmt.Errorf("the page's TikTok data is not valid JSON: %w", err)
	}
	scope := jsonval.Object(jsonval.Get(v, "__DEFAULT_SCOPE__"))
	if scope == nil {
		return nil, errNoData
	}
	return scope, nil
}

// scriptText returns what follows the start tag of the <script> whose id is
// id (up to the end of body).
func scriptText(body, id []byte) ([]byte, bool) {
	for off := 0; off < len(body); {
		i := bytes.Index(body[off:], id)
		if i < 0 {
			return nil, false
		}
		i += off
		off = i + len(id)
		open := bytes.LastIndex(body[:i], []byte("<script"))
		if open < 0 || bytes.IndexByte(body[open:i], '>') >= 0 {
			continue // not inside a <script …> tag
		}
		attr := bytes.TrimRight(body[open:i], `"'`)
		if !bytes.HasSuffix(attr, []byte("id=")) {
			continue
		}
		end := bytes.IndexByte(body[off:], '>')
		if end < 0 {
			return nil, false
		}
		return body[off+end+1:], true
	}
	return nil, false
}

// parsePage reads a TikTok HTML page. pageURL is where it came from and is
// the fallback url of what it holds.
func parsePage(body []byte, pageURL string) (*page, error) {
	scope, err := defaultScope(body)
	if err != nil {
		return nil, err
	}
	if d := jsonval.Object(scope["webapp.video-detail"]); d != nil {
		if it := jsonval.Object(jsonval.Get(d, "itemInfo", "itemStruct")); len(it) > 0 && jsonval.String(it["id"]) != "" {
			v := videoFrom(it, pageURL)
			return &page{Video: &v}, nil
		}
		return nil, scopeStatus(d)
	}
	if d := jsonval.Object(scope["webapp.user-detail"]); d != nil {
		ui := jsonval.Object(d["userInfo"])
		if u := jsonval.Object(ui["user"]); len(u) > 0 && jsonval.String(u["uniqueId"]) != "" {
			p := profileFrom(ui)
			pg := &page{Profile: &p}
			for _, it := range jsonval.List(ui["itemList"]) {
				if m := jsonval.Object(it); m != nil && jsonval.String(m["id"]) != "" {
					v := videoFrom(m, "")
					v.Source = p.URL
					pg.ProfileVideos = append(pg.ProfileVideos, v)
				}
			}
			return pg, nil
		}
		return nil, scopeStatus(d)
	}
	if d := jsonval.Object(scope["webapp.challenge-detail"]); d != nil {
		ci := jsonval.Object(d["challengeInfo"])
		if c := jsonval.Object(ci["challenge"]); len(c) > 0 && jsonval.String(c["title"]) != "" {
			h := hashtagFrom(ci)
			return &page{Hashtag: &h}, nil
		}
		return nil, scopeStatus(d)
	}
	return nil, errNoData
}

func scopeStatus(d map[string]any) error {
	if code, ok := jsonval.Int(d["statusCode"]); ok && code != 0 {
		return &statusError{Code: code, Msg: jsonval.String(d["statusMsg"])}
	}
	return errNoData
}

// videoFrom normalizes an itemStruct (video page) or an item of an item_list
// answer; both have the same shape.
func videoFrom(it map[string]any, fallbackURL string) Video {
	v := Video{
		Type:        "video",
		ID:          jsonval.String(it["id"]),
		Description: jsonval.String(it["desc"]),
		Language:    jsonval.String(it["textLanguage"]),
		Location:    jsonval.String(it["locationCreated"]),
		IsAd:        jsonval.Bool(it["isAd"]),
		Hashtags:    []string{},
	}
	if ct, ok := jsonval.Int(it["createTime"]); ok && ct > 0 {
		v.CreateTime = ct
		v.CreatedAt = time.Unix(ct, 0).UTC().Format(time.RFC3339)
	}
	switch a := it["author"].(type) {
	case map[string]any:
		v.Author = Author{
			ID:       jsonval.String(a["id"]),
			UniqueID: jsonval.String(a["uniqueId"]),
			Nickname: jsonval.String(a["nickname"]),
			Verified: jsonval.Bool(a["verified"]),
			Avatar:   jsonval.FirstString(a["avatarMedium"], a["avatarThumb"], a["avatarLarger"]),
		}
	default: // some list answers give the author's name only
		v.Author.UniqueID = jsonval.String(a)
		v.Author.ID = jsonval.String(it["authorId"])
	}
	stats, stats2 := jsonval.Object(it["stats"]), jsonval.Object(it["statsV2"])
	count := func(key string) *int64 {
		// statsV2 holds exact counts as strings; stats may be rounded.
		if n, ok := jsonval.FirstInt(stats2[key], stats[key]); ok {
			return &n
		}
		return nil
	}
	v.Stats = VideoStats{
		Plays:    count("playCount"),
		Likes:    count("diggCount"),
		Comments: count("commentCount"),
		Shares:   count("shareCount"),
		Collects: count("collectCount"),
	}
	if m := jsonval.Object(it["music"]); len(m) > 0 {
		mu := &Music{ID: jsonval.String(m["id"]), Title: jsonval.String(m["title"]), Author: jsonval.String(m["authorName"]), Original: jsonval.Bool(m["original"])}
		mu.Duration, _ = jsonval.Int(m["duration"])
		if mu.ID != "" || mu.Title != "" {
			v.Music = mu
		}
	}
	seen := map[string]bool{}
	addTag := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			v.Hashtags = append(v.Hashtags, t)
		}
	}
	for _, c := range jsonval.List(it["challenges"]) {
		addTag(jsonval.String(jsonval.Get(c, "title")))
	}
	for _, te := range jsonval.List(it["textExtra"]) {
		addTag(jsonval.String(jsonval.Get(te, "hashtagName")))
	}
	vid := jsonval.Object(it["video"])
	v.Duration, _ = jsonval.Int(vid["duration"])
	v.Cover = jsonval.FirstString(vid["cover"], vid["originCover"], vid["dynamicCover"])
	for _, img := range jsonval.List(jsonval.Get(it, "imagePost", "images")) {
		if u := jsonval.String(jsonval.Get(img, "imageURL", "urlList", 0)); u != "" {
			v.Images = append(v.Images, u)
		}
	}
	if v.Cover == "" {
		v.Cover = jsonval.String(jsonval.Get(it, "imagePost", "cover", "imageURL", "urlList", 0))
	}
	v.URL = fallbackURL
	if v.ID != "" && v.Author.UniqueID != "" {
		kind := "video"
		if len(v.Images) > 0 {
			kind = "photo"
		}
		v.URL = "https://www.tiktok.com/@" + url.PathEscape(v.Author.UniqueID) + "/" + kind + "/" + url.PathEscape(v.ID)
	}
	if v.URL == "" && v.ID != "" {
		// The embed page is addressed by the video id alone.
		v.URL = "https://www.tiktok.com/embed/v2/" + url.PathEscape(v.ID)
	}
	return v
}

// profileFrom normalizes "webapp.user-detail".userInfo.
func profileFrom(ui map[string]any) Profile {
	u := jsonval.Object(ui["user"])
	p := Profile{
		Type:     "profile",
		ID:       jsonval.String(u["id"]),
		UniqueID: jsonval.String(u["uniqueId"]),
		Nickname: jsonval.String(u["nickname"]),
		Bio:      jsonval.String(u["signature"]),
		BioLink:  jsonval.String(jsonval.Get(u, "bioLink", "link")),
		Verified: jsonval.Bool(u["verified"]),
		Private:  jsonval.Bool(u["privateAccount"]),
		Avatar:   jsonval.FirstString(u["avatarMedium"], u["avatarLarger"], u["avatarThumb"]),
		SecUID:   jsonval.String(u["secUid"]),
	}
	p.URL = "https://www.tiktok.com/@" + url.PathEscape(p.UniqueID)
	stats, stats2 := jsonval.Object(ui["stats"]), jsonval.Object(ui["statsV2"])
	count := func(keys ...string) *int64 {
		for _, k := range keys {
			if n, ok := jsonval.FirstInt(stats2[k], stats[k]); ok {
				return &n
			}
		}
		return nil
	}
	p.Stats = ProfileStats{
		Followers: count("followerCount"),
		Following: count("followingCount"),
		Likes:     count("heartCount", "heart"),
		Videos:    count("videoCount"),
		Friends:   count("friendCount"),
	}
	return p
}

// hashtagFrom normalizes "webapp.challenge-detail".challengeInfo.
func hashtagFrom(ci map[string]any) Hashtag {
	c := jsonval.Object(ci["challenge"])
	h := Hashtag{
		Type:        "hashtag",
		ID:          jsonval.String(c["id"]),
		Name:        jsonval.String(c["title"]),
		Description: jsonval.String(c["desc"]),
		Cover:       jsonval.FirstString(c["coverLarger"], c["profileLarger"], c["coverMedium"], c["profileMedium"]),
	}
	h.URL = "https://www.tiktok.com/tag/" + url.PathEscape(h.Name)
	stats, stats2, inner := jsonval.Object(ci["stats"]), jsonval.Object(ci["statsV2"]), jsonval.Object(c["stats"])
	count := func(key string) *int64 {
		if n, ok := jsonval.FirstInt(stats2[key], stats[key], inner[key]); ok {
			return &n
		}
		return nil
	}
	h.Stats = HashtagStats{Videos: count("videoCount"), Views: count("viewCount")}
	return h
}

// itemList is one answer of /api/post/item_list or /api/challenge/item_list.
type itemList struct {
	Videos  []Video
	Cursor  string
	HasMore bool
}

// parseItemList reads an item_list API answer; source is the listing page
// the videos are attributed to.
func parseItemList(body []byte, source string) (*itemList, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errEmptyList
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	m := jsonval.Object(v)
	if m == nil {
		return nil, errNotJSON
	}
	if code, ok := jsonval.Int(m["statusCode"]); ok && code != 0 && m["itemList"] == nil {
		return nil, &statusError{Code: code, Msg: jsonval.FirstString(m["statusMsg"], m["status_msg"])}
	}
	l := &itemList{Cursor: jsonval.String(m["cursor"]), HasMore: jsonval.Bool(m["hasMore"])}
	if n, ok := jsonval.Int(m["hasMore"]); ok { // some answers say 1/0
		l.HasMore = n != 0
	}
	for _, it := range jsonval.List(m["itemList"]) {
		if o := jsonval.Object(it); o != nil && jsonval.String(o["id"]) != "" {
			vid := videoFrom(o, "")
			vid.Source = source
			l.Videos = append(l.Videos, vid)
		}
	}
	return l, nil
}
