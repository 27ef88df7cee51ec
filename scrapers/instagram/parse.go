package instagram

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// origin is where every item's url points, whatever INSTAGRAM_BASE_URL says.
const origin = "https://www.instagram.com"

var (
	errNotJSON   = errors.New("the answer is not JSON")
	errNoProfile = errors.New("the answer holds no profile (data.user is missing); the account may not exist")
	errNoPost    = errors.New("the page carries no post data (neither xdt_api__v1__media__shortcode__web_info nor shortcode_media); the post may not exist, or Instagram shows it only to signed-in readers")
)

// profilePage is a web_profile_info answer: the profile and what its
// timeline says about paging.
type profilePage struct {
	Profile Profile
	// More is true when Instagram has older posts than those it sent;
	// Cursor is its end_cursor, for the next page.
	More   bool
	Cursor string
}

// parseProfile reads /api/v1/users/web_profile_info/?username=… .
func parseProfile(body []byte) (*profilePage, error) {
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return nil, errNotJSON
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	u := jsonval.Object(jsonval.Get(v, "data", "user"))
	name := jsonval.String(u["username"])
	if !usernameRE.MatchString(name) {
		return nil, errNoProfile
	}
	p := Profile{
		URL:         origin + "/" + name + "/",
		Type:        "profile",
		ID:          jsonval.String(u["id"]),
		Username:    name,
		FullName:    jsonval.String(u["full_name"]),
		Biography:   jsonval.String(u["biography"]),
		ExternalURL: webURL(jsonval.String(u["external_url"])),
		Followers:   count(u, "edge_followed_by"),
		Following:   count(u, "edge_follow"),
		PostCount:   count(u, "edge_owner_to_timeline_media"),
		Verified:    jsonval.Bool(u["is_verified"]),
		Private:     jsonval.Bool(u["is_private"]),
		Business:    jsonval.Bool(u["is_business_account"]),
		Category:    jsonval.FirstString(u["category_name"], u["business_category_name"]),
		ProfilePic:  webURL(jsonval.FirstString(u["profile_pic_url_hd"], u["profile_pic_url"])),
		ReadFrom:    "web_profile_info",
	}
	for _, l := range jsonval.List(u["bio_links"]) {
		if s := webURL(jsonval.String(jsonval.Get(l, "url"))); s != "" {
			p.BioLinks = append(p.BioLinks, s)
		}
	}
	timeline := jsonval.Object(u["edge_owner_to_timeline_media"])
	for _, e := range jsonval.List(timeline["edges"]) {
		if post, ok := postFromGraph(jsonval.Object(jsonval.Get(e, "node"))); ok {
			if post.OwnerUsername == "" {
				post.OwnerUsername, post.OwnerID = p.Username, p.ID
			}
			p.RecentPosts = append(p.RecentPosts, post)
		}
	}
	return &profilePage{Profile: p, More: jsonval.Bool(jsonval.Get(timeline, "page_info", "has_next_page")),
		Cursor: jsonval.String(jsonval.Get(timeline, "page_info", "end_cursor"))}, nil
}

// count reads {"count": n} under key.
func count(m map[string]any, key string) *int64 {
	if n, ok := jsonval.Int(jsonval.Get(m, key, "count")); ok && n >= 0 {
		return &n
	}
	return nil
}

// postPage is what a post or reel page carries: the post, the first page
// of its comments (with Instagram's cursor to the next), and the token its
// web client sends with GraphQL requests.
type postPage struct {
	Post *Post
	// Comments are the page's first comments; Connection says they came
	// from its comments connection (with paging), not the media item's
	// preview comments.
	Comments   []Comment
	Connection bool
	Cursor     string // Instagram's end_cursor of those comments
	More       bool   // Instagram has more comments after them
	LSD        string // the page's LSD token, for GraphQL requests
}

// commentsKey is the GraphQL field of a post's comments, in the page's
// embedded data and in the pagination query's answer.
const commentsKey = "xdt_api__v1__media__media_id__comments__connection"

var lsdRE = regexp.MustCompile(`"LSD",\[\],\{"token":"([A-Za-z0-9_-]{1,100})"`)

// parsePostPage reads a post or reel page (/p/<code>/, /reel/<code>/) from
// the JSON it embeds: the web client's
// xdt_api__v1__media__shortcode__web_info items, or the older GraphQL
// shortcode_media; and the comments connection beside them.
func parsePostPage(body []byte) (*postPage, error) {
	pg := &postPage{}
	if m := lsdRE.FindSubmatch(body); m != nil {
		pg.LSD = string(m[1])
	}
	for _, script := range jsonScripts(body) {
		v, err := jsonval.Decode(script)
		if err != nil {
			continue
		}
		if pg.Post == nil {
			if items := jsonval.List(jsonval.Get(find(v, "xdt_api__v1__media__shortcode__web_info", 0), "items")); len(items) > 0 {
				if p, ok := postFromV1(jsonval.Object(items[0])); ok {
					pg.Post = &p
				}
			}
		}
		if pg.Post == nil {
			if m := jsonval.Object(find(v, "shortcode_media", 0)); m != nil {
				if p, ok := postFromGraph(m); ok {
					pg.Post = &p
				}
			}
		}
		if !pg.Connection {
			if c := jsonval.Object(find(v, commentsKey, 0)); c != nil {
				cp := parseCommentsConnection(c)
				pg.Comments, pg.Cursor, pg.More, pg.Connection = cp.Comments, cp.Cursor, cp.More, true
			}
		}
	}
	if pg.Post == nil {
		return nil, errNoPost
	}
	if !pg.Connection {
		pg.Comments = pg.Post.Comments
	}
	pg.Post.Comments = nil
	return pg, nil
}

// commentsPage is one page of a post's comments connection.
type commentsPage struct {
	Comments []Comment
	Cursor   string
	More     bool
}

// parseCommentsConnection reads xdt_api__v1__media__media_id__comments__connection:
// edges of comment nodes, and page_info.
func parseCommentsConnection(c map[string]any) commentsPage {
	var p commentsPage
	for _, e := range jsonval.List(c["edges"]) {
		if cm, ok := commentFromV1(jsonval.Object(jsonval.Get(e, "node"))); ok {
			p.Comments = append(p.Comments, cm)
		}
	}
	p.Cursor = jsonval.String(jsonval.Get(c, "page_info", "end_cursor"))
	p.More = jsonval.Bool(jsonval.Get(c, "page_info", "has_next_page")) && p.Cursor != ""
	return p
}

// commentFromV1 normalizes a v1 comment (a connection's node, a media
// item's preview comment). ok is false without text.
func commentFromV1(cm map[string]any) (Comment, bool) {
	x := Comment{
		ID:        jsonval.FirstString(cm["pk"], cm["id"]),
		Username:  jsonval.String(jsonval.Get(cm, "user", "username")),
		Text:      jsonval.String(cm["text"]),
		CreatedAt: unixTime(cm["created_at"]),
	}
	x.LikeCount = nonNegative(cm["comment_like_count"])
	x.ReplyCount = nonNegative(cm["child_comment_count"])
	return x, x.Text != ""
}

// maxScripts bounds the scripts of one page that are decoded.
const maxScripts = 200

// jsonScripts returns the bodies of a page's JSON scripts: <script
// type="application/json"> (the web client's data-sjs payloads) and the
// argument of window.__additionalDataLoaded(…) or window._sharedData = ….
func jsonScripts(body []byte) [][]byte {
	var out [][]byte
	for off := 0; len(out) < maxScripts; {
		i := bytes.Index(body[off:], []byte("<script"))
		if i < 0 {
			break
		}
		i += off
		end := bytes.IndexByte(body[i:], '>')
		if end < 0 {
			break
		}
		tag := body[i : i+end]
		start := i + end + 1
		closing := bytes.Index(body[start:], []byte("</script"))
		if closing < 0 {
			break
		}
		text := bytes.TrimSpace(body[start : start+closing])
		off = start + closing
		switch {
		case bytes.Contains(tag, []byte("application/json")) || bytes.Contains(tag, []byte("application/ld+json")):
			out = append(out, text)
		case bytes.HasPrefix(text, []byte("window._sharedData")) || bytes.HasPrefix(text, []byte("window.__additionalDataLoaded(")):
			if j := bytes.IndexByte(text, '{'); j >= 0 {
				out = append(out, text[j:]) // the decoder stops after the object
			}
		}
	}
	return out
}

// find returns the value of the first key named key in v, depth first,
// within a bounded depth.
func find(v any, key string, depth int) any {
	if depth > 40 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if found, ok := x[key]; ok {
			return found
		}
		for _, c := range x {
			if f := find(c, key, depth+1); f != nil {
				return f
			}
		}
	case []any:
		for _, c := range x {
			if f := find(c, key, depth+1); f != nil {
				return f
			}
		}
	}
	return nil
}

// postFromGraph normalizes a GraphQL media node (the profile's timeline,
// shortcode_media). ok is false without a shortcode.
func postFromGraph(n map[string]any) (Post, bool) {
	p := Post{
		ID:            jsonval.String(n["id"]),
		Shortcode:     jsonval.String(n["shortcode"]),
		Caption:       jsonval.String(jsonval.Get(n, "edge_media_to_caption", "edges", 0, "node", "text")),
		OwnerUsername: jsonval.String(jsonval.Get(n, "owner", "username")),
		OwnerID:       jsonval.String(jsonval.Get(n, "owner", "id")),
		OwnerFullName: jsonval.String(jsonval.Get(n, "owner", "full_name")),
		TakenAt:       unixTime(n["taken_at_timestamp"]),
		DisplayURL:    webURL(jsonval.String(n["display_url"])),
		VideoURL:      webURL(jsonval.String(n["video_url"])),
		AltText:       jsonval.String(n["accessibility_caption"]),
		Location:      jsonval.String(jsonval.Get(n, "location", "name")),
	}
	if !shortcodeRE.MatchString(p.Shortcode) {
		return Post{}, false
	}
	p.LikeCount = firstCount(n, "edge_liked_by", "edge_media_preview_like")
	p.CommentCount = firstCount(n, "edge_media_to_parent_comment", "edge_media_to_comment", "edge_media_preview_comment")
	if v, ok := jsonval.FirstInt(n["video_play_count"], n["video_view_count"]); ok && v >= 0 {
		p.ViewCount = &v
	}
	p.Width, _ = jsonval.Int(jsonval.Get(n, "dimensions", "width"))
	p.Height, _ = jsonval.Int(jsonval.Get(n, "dimensions", "height"))
	if d, ok := jsonval.Float(n["video_duration"]); ok && d > 0 {
		p.Duration = d
	}
	switch {
	case jsonval.String(n["__typename"]) == "GraphSidecar" || jsonval.String(n["__typename"]) == "XDTGraphSidecar" || jsonval.Get(n, "edge_sidecar_to_children") != nil:
		p.MediaType = "carousel"
	case jsonval.Bool(n["is_video"]):
		p.MediaType = "video"
	default:
		p.MediaType = "image"
	}
	for _, e := range jsonval.List(jsonval.Get(n, "edge_sidecar_to_children", "edges")) {
		c := jsonval.Object(jsonval.Get(e, "node"))
		m := Media{Type: "image", URL: webURL(jsonval.String(c["display_url"]))}
		if jsonval.Bool(c["is_video"]) {
			m.Type, m.URL = "video", webURL(jsonval.FirstString(c["video_url"], c["display_url"]))
		}
		m.Width, _ = jsonval.Int(jsonval.Get(c, "dimensions", "width"))
		m.Height, _ = jsonval.Int(jsonval.Get(c, "dimensions", "height"))
		if m.URL != "" {
			p.Media = append(p.Media, m)
		}
	}
	for _, e := range jsonval.List(firstNonNil(jsonval.Get(n, "edge_media_to_parent_comment", "edges"), jsonval.Get(n, "edge_media_preview_comment", "edges"))) {
		c := jsonval.Object(jsonval.Get(e, "node"))
		cm := Comment{ID: jsonval.String(c["id"]), Username: jsonval.String(jsonval.Get(c, "owner", "username")), Text: jsonval.String(c["text"]), CreatedAt: unixTime(c["created_at"])}
		if n, ok := jsonval.Int(jsonval.Get(c, "edge_liked_by", "count")); ok {
			cm.LikeCount = &n
		}
		if cm.Text != "" {
			p.Comments = append(p.Comments, cm)
		}
	}
	p.finish(jsonval.String(n["product_type"]) == "clips")
	return p, true
}

func firstCount(n map[string]any, keys ...string) *int64 {
	for _, k := range keys {
		if c := count(n, k); c != nil {
			return c
		}
	}
	return nil
}

// postFromV1 normalizes a v1 media item (the web client's
// shortcode web_info). ok is false without a code.
func postFromV1(it map[string]any) (Post, bool) {
	p := Post{
		ID:            jsonval.FirstString(it["pk"], it["id"]),
		Shortcode:     jsonval.String(it["code"]),
		Caption:       jsonval.String(jsonval.Get(it, "caption", "text")),
		OwnerUsername: jsonval.String(jsonval.Get(it, "user", "username")),
		OwnerID:       jsonval.FirstString(jsonval.Get(it, "user", "pk"), jsonval.Get(it, "user", "id")),
		OwnerFullName: jsonval.String(jsonval.Get(it, "user", "full_name")),
		TakenAt:       unixTime(it["taken_at"]),
		AltText:       jsonval.String(it["accessibility_caption"]),
		Location:      jsonval.String(jsonval.Get(it, "location", "name")),
	}
	if !shortcodeRE.MatchString(p.Shortcode) {
		return Post{}, false
	}
	if !jsonval.Bool(it["like_and_view_counts_disabled"]) {
		p.LikeCount = nonNegative(it["like_count"])
		p.ViewCount = nonNegative(firstNonNil(it["play_count"], it["view_count"]))
	}
	p.CommentCount = nonNegative(it["comment_count"])
	if d, ok := jsonval.Float(it["video_duration"]); ok && d > 0 {
		p.Duration = d
	}
	p.DisplayURL, p.Width, p.Height = bestImage(it)
	p.VideoURL = webURL(jsonval.String(jsonval.Get(it, "video_versions", 0, "url")))
	switch mt, _ := jsonval.Int(it["media_type"]); mt {
	case 8:
		p.MediaType = "carousel"
	case 2:
		p.MediaType = "video"
	default:
		p.MediaType = "image"
	}
	for _, c := range jsonval.List(it["carousel_media"]) {
		cm := jsonval.Object(c)
		u, w, h := bestImage(cm)
		m := Media{Type: "image", URL: u, Width: w, Height: h}
		if v := webURL(jsonval.String(jsonval.Get(cm, "video_versions", 0, "url"))); v != "" {
			m.Type, m.URL, m.Thumbnail = "video", v, u
		}
		if m.URL != "" {
			p.Media = append(p.Media, m)
		}
	}
	if p.DisplayURL == "" && len(p.Media) > 0 {
		p.DisplayURL = p.Media[0].URL
	}
	for _, c := range jsonval.List(firstNonNil(it["preview_comments"], it["comments"])) {
		if x, ok := commentFromV1(jsonval.Object(c)); ok {
			p.Comments = append(p.Comments, x)
		}
	}
	p.finish(jsonval.String(it["product_type"]) == "clips")
	return p, true
}

// bestImage is a v1 item's image at its original size: the candidate of
// the original dimensions (original_width, original_height) when one is
// offered, else the largest; the dimensions are the original's when the
// item states them, since the candidates are scaled copies.
func bestImage(it map[string]any) (string, int64, int64) {
	ow, _ := jsonval.Int(it["original_width"])
	oh, _ := jsonval.Int(it["original_height"])
	if ow <= 0 || oh <= 0 || ow > 1<<20 || oh > 1<<20 {
		ow, oh = 0, 0
	}
	var best string
	var bw, bh int64
	for _, c := range jsonval.List(jsonval.Get(it, "image_versions2", "candidates")) {
		u := webURL(jsonval.String(jsonval.Get(c, "url")))
		w, _ := jsonval.Int(jsonval.Get(c, "width"))
		h, _ := jsonval.Int(jsonval.Get(c, "height"))
		if u == "" || w < 0 || h < 0 || w > 1<<20 || h > 1<<20 {
			continue
		}
		if ow > 0 && w == ow && h == oh {
			best, bw, bh = u, w, h
			break
		}
		if best == "" || w*h > bw*bh {
			best, bw, bh = u, w, h
		}
	}
	if ow > 0 {
		return best, ow, oh
	}
	return best, bw, bh
}

var (
	hashtagRE = regexp.MustCompile(`#([\p{L}\p{N}_]{1,100})`)
	mentionRE = regexp.MustCompile(`@([A-Za-z0-9._]{1,30})`)
)

// finish sets what follows from the rest: kind, url, hashtags, mentions.
func (p *Post) finish(reel bool) {
	p.Type, p.URL = "post", origin+"/p/"+p.Shortcode+"/"
	if reel {
		p.Type, p.URL = "reel", origin+"/reel/"+p.Shortcode+"/"
	}
	seen := map[string]bool{}
	for _, m := range hashtagRE.FindAllStringSubmatch(p.Caption, 50) {
		if !seen["#"+m[1]] {
			seen["#"+m[1]] = true
			p.Hashtags = append(p.Hashtags, m[1])
		}
	}
	for _, m := range mentionRE.FindAllStringSubmatch(p.Caption, 50) {
		if name := strings.TrimRight(m[1], "."); name != "" && !seen["@"+name] {
			seen["@"+name] = true
			p.Mentions = append(p.Mentions, name)
		}
	}
}

func nonNegative(v any) *int64 {
	if n, ok := jsonval.Int(v); ok && n >= 0 {
		return &n
	}
	return nil
}

func webURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	return u.String()
}

func unixTime(v any) string {
	if f, ok := jsonval.Float(v); ok && f > 0 && f < 1e11 {
		return time.Unix(int64(f), 0).UTC().Format(time.RFC3339)
	}
	return ""
}

// firstNonNil is the first of vs that is not nil.
func firstNonNil(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
