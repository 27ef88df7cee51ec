package reddit

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// origin is where every item's url points, whatever REDDIT_BASE_URL says.
const origin = "https://www.reddit.com"

var (
	errNotJSON    = errors.New("the answer is not JSON")
	errNotListing = errors.New("the answer is not a Reddit listing (no data.children)")
	errNoPost     = errors.New("the answer holds no post (no t3 in the thread's first listing)")
	errNoUser     = errors.New("the answer holds no account (no t2 about data)")
)

// apiError is Reddit's JSON error answer: {"reason":"private","message":
// "Forbidden","error":403}.
type apiError struct {
	Status  int64
	Reason  string
	Message string
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("Reddit answered error %d", e.Status)
	if e.Message != "" {
		msg += " (" + e.Message + ")"
	}
	switch e.Reason {
	case "private":
		return msg + ": the subreddit is private; only its members can read it"
	case "quarantined":
		return msg + ": the subreddit is quarantined; Reddit shows it only to signed-in users who opt in"
	case "banned":
		return msg + ": the subreddit was banned by Reddit"
	case "gold_only":
		return msg + ": the subreddit is for premium members only"
	case "":
	default:
		msg += ": " + e.Reason
	}
	if e.Status == 404 {
		return msg + ": it does not exist"
	}
	return msg
}

// decode reads a JSON answer, turning Reddit's error object into an
// *apiError.
func decode(body []byte) (any, error) {
	if t := bytes.TrimSpace(body); len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return nil, errNotJSON
	}
	v, err := jsonval.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	if m := jsonval.Object(v); m != nil && m["kind"] == nil {
		if code, ok := jsonval.Int(m["error"]); ok {
			return nil, &apiError{Status: code, Reason: jsonval.String(m["reason"]), Message: jsonval.String(m["message"])}
		}
	}
	return v, nil
}

// listing is one page of a Listing: its things and the cursor of the next.
type listing struct {
	Posts []Post
	After string
}

// parseListing reads a Listing of posts (a subreddit, a user's posts, a
// search). Things other than posts are skipped.
func parseListing(body []byte) (*listing, error) {
	v, err := decode(body)
	if err != nil {
		return nil, err
	}
	data := jsonval.Object(jsonval.Get(v, "data"))
	children, ok := data["children"].([]any)
	if !ok {
		return nil, errNotListing
	}
	l := &listing{After: jsonval.String(data["after"])}
	for _, c := range children {
		if jsonval.String(jsonval.Get(c, "kind")) != "t3" {
			continue
		}
		if p, ok := postFrom(jsonval.Object(jsonval.Get(c, "data"))); ok {
			l.Posts = append(l.Posts, p)
		}
	}
	return l, nil
}

// commentBounds bound the comments read from a thread.
type commentBounds struct {
	Max      int // comments in all
	MaxDepth int // deepest depth kept (0: top-level only)
}

// parseThread reads a post's page (/comments/<id>.json): a list of two
// Listings, the post and its comment tree, keeping comments within b.
func parseThread(body []byte, b commentBounds) (*Post, error) {
	v, err := decode(body)
	if err != nil {
		return nil, err
	}
	parts := jsonval.List(v)
	if len(parts) == 0 {
		return nil, errNoPost
	}
	var post *Post
	for _, c := range jsonval.List(jsonval.Get(parts[0], "data", "children")) {
		if jsonval.String(jsonval.Get(c, "kind")) == "t3" {
			if p, ok := postFrom(jsonval.Object(jsonval.Get(c, "data"))); ok {
				post = &p
				break
			}
		}
	}
	if post == nil {
		return nil, errNoPost
	}
	if len(parts) > 1 && b.Max > 0 {
		w := &walker{bounds: b}
		w.walk(jsonval.List(jsonval.Get(parts[1], "data", "children")), nil, 0)
		post.Comments, post.MoreComments = w.comments, w.more
	}
	return post, nil
}

// errNoFocus says a comment permalink's answer did not hold the comment.
var errNoFocus = errors.New("Reddit's answer holds no such comment under the post (it may have been deleted or removed, or the link is wrong)")

// parseCommentThread reads the answer to a comment's permalink
// (/comments/<post>.json?comment=<id>&context=N): the post, and a comment
// tree whose root is the comment's highest ancestor within the context,
// holding the path down to the comment and the comment's replies. b.MaxDepth
// counts reply levels below the focused comment; the context above it is
// always kept.
func parseCommentThread(body []byte, focus string, b commentBounds) (*Thread, error) {
	v, err := decode(body)
	if err != nil {
		return nil, err
	}
	parts := jsonval.List(v)
	if len(parts) < 2 {
		return nil, errNoPost
	}
	var post *Post
	for _, c := range jsonval.List(jsonval.Get(parts[0], "data", "children")) {
		if jsonval.String(jsonval.Get(c, "kind")) == "t3" {
			if p, ok := postFrom(jsonval.Object(jsonval.Get(c, "data"))); ok {
				post = &p
				break
			}
		}
	}
	if post == nil {
		return nil, errNoPost
	}
	roots := jsonval.List(jsonval.Get(parts[1], "data", "children"))
	above := focusDepth(roots, focus, 0)
	if above < 0 {
		return nil, errNoFocus
	}
	w := &walker{bounds: commentBounds{Max: max(b.Max, above+1), MaxDepth: above + b.MaxDepth}, focus: focus}
	w.walk(roots, nil, 0)
	if len(w.comments) == 0 {
		return nil, errNoFocus
	}
	// Depths as Reddit counts them, from the post: the root's own depth,
	// when the answer gives it, is where the thread starts.
	first := w.first
	if d, ok := jsonval.Int(first["depth"]); ok && d > 0 && d < 1000 {
		for i := range w.comments {
			w.comments[i].Depth += int(d)
		}
	}
	if pid := jsonval.String(first["parent_id"]); strings.HasPrefix(pid, "t1_") && idRE.MatchString(pid[3:]) {
		w.comments[0].ParentID = pid[3:]
	}
	t := &Thread{Type: "comment_thread", CommentID: focus, Post: *post, Comments: w.comments, MoreComments: w.more}
	for _, c := range w.comments {
		if c.Focus {
			t.URL = c.URL
		}
	}
	return t, nil
}

// focusDepth returns how many levels below the top of children the comment
// id is, or -1 when it is not there.
func focusDepth(children []any, id string, depth int) int {
	if depth > maxWalkDepth {
		return -1
	}
	for _, c := range children {
		if jsonval.String(jsonval.Get(c, "kind")) != "t1" {
			continue
		}
		data := jsonval.Object(jsonval.Get(c, "data"))
		if jsonval.String(data["id"]) == id {
			return depth
		}
		if d := focusDepth(jsonval.List(jsonval.Get(data["replies"], "data", "children")), id, depth+1); d >= 0 {
			return d
		}
	}
	return -1
}

// walker flattens a comment tree depth first within its bounds.
type walker struct {
	bounds   commentBounds
	comments []Comment
	more     int64
	// focus, when set, is the id of the comment to mark; first is the
	// data of the first comment kept.
	focus string
	first map[string]any
}

// maxWalkDepth bounds the recursion over what a hostile answer nests.
const maxWalkDepth = 64

// walk adds the comments among children, replies of parent (nil for the
// top level) at depth.
func (w *walker) walk(children []any, parent *int, depth int) {
	for _, c := range children {
		data := jsonval.Object(jsonval.Get(c, "data"))
		switch jsonval.String(jsonval.Get(c, "kind")) {
		case "more":
			n, _ := jsonval.Int(data["count"])
			if ids := int64(len(jsonval.List(data["children"]))); n < ids {
				n = ids
			}
			if n <= 0 {
				n = 1 // "continue this thread": at least one reply
			}
			w.cut(parent, n)
		case "t1":
			if len(w.comments) >= w.bounds.Max || depth > w.bounds.MaxDepth || depth > maxWalkDepth {
				w.cut(parent, 1+descendants(data["replies"], 0))
				continue
			}
			cm, ok := commentFrom(data, depth)
			if !ok {
				continue
			}
			if len(w.comments) == 0 {
				w.first = data
			}
			cm.Focus = w.focus != "" && cm.ID == w.focus
			if parent != nil {
				w.comments[*parent].Replies++
				cm.ParentID = w.comments[*parent].ID
			}
			w.comments = append(w.comments, cm)
			i := len(w.comments) - 1
			w.walk(jsonval.List(jsonval.Get(data["replies"], "data", "children")), &i, depth+1)
		}
	}
}

// cut counts n comments left out below parent.
func (w *walker) cut(parent *int, n int64) {
	w.more += n
	if parent != nil {
		w.comments[*parent].MoreReplies += n
	}
}

// descendants counts the comments in a replies Listing (and the "more"
// stubs' counts), bounded in depth.
func descendants(replies any, depth int) int64 {
	if depth > maxWalkDepth {
		return 0
	}
	var n int64
	for _, c := range jsonval.List(jsonval.Get(replies, "data", "children")) {
		data := jsonval.Object(jsonval.Get(c, "data"))
		switch jsonval.String(jsonval.Get(c, "kind")) {
		case "t1":
			n += 1 + descendants(data["replies"], depth+1)
		case "more":
			if k, ok := jsonval.Int(data["count"]); ok && k > 0 {
				n += k
			}
		}
	}
	return n
}

// parseUser reads a user's about page (/user/<name>/about.json).
func parseUser(body []byte) (*User, error) {
	v, err := decode(body)
	if err != nil {
		return nil, err
	}
	if jsonval.String(jsonval.Get(v, "kind")) != "t2" {
		return nil, errNoUser
	}
	d := jsonval.Object(jsonval.Get(v, "data"))
	name := jsonval.String(d["name"])
	if name == "" {
		return nil, errNoUser
	}
	u := &User{
		URL:          origin + "/user/" + url.PathEscape(name) + "/",
		Type:         "user",
		ID:           jsonval.String(d["id"]),
		Name:         name,
		LinkKarma:    intPtr(d["link_karma"]),
		CommentKarma: intPtr(d["comment_karma"]),
		TotalKarma:   intPtr(d["total_karma"]),
		CreatedAt:    unixTime(d["created_utc"]),
		Icon:         webURL(jsonval.FirstString(jsonval.Get(d, "snoovatar_img"), d["icon_img"])),
		Description:  jsonval.String(jsonval.Get(d, "subreddit", "public_description")),
		Verified:     jsonval.Bool(d["verified"]),
		Employee:     jsonval.Bool(d["is_employee"]),
		Suspended:    jsonval.Bool(d["is_suspended"]),
	}
	return u, nil
}

// postFrom normalizes a t3's data. ok is false without an id and a title.
func postFrom(d map[string]any) (Post, bool) {
	p := Post{
		Type:         "post",
		ID:           jsonval.String(d["id"]),
		Subreddit:    jsonval.String(d["subreddit"]),
		Title:        jsonval.String(d["title"]),
		Author:       jsonval.String(d["author"]),
		Score:        intPtr(d["score"]),
		CommentCount: intPtr(d["num_comments"]),
		CreatedAt:    unixTime(d["created_utc"]),
		Domain:       jsonval.String(d["domain"]),
		Flair:        jsonval.String(d["link_flair_text"]),
		AuthorFlair:  jsonval.String(d["author_flair_text"]),
		Selftext:     jsonval.String(d["selftext"]),
		NSFW:         jsonval.Bool(d["over_18"]),
		Spoiler:      jsonval.Bool(d["spoiler"]),
		Stickied:     jsonval.Bool(d["stickied"]),
		Locked:       jsonval.Bool(d["locked"]),
	}
	if p.ID == "" || p.Title == "" || !idRE.MatchString(p.ID) {
		return Post{}, false
	}
	if r, ok := jsonval.Float(d["upvote_ratio"]); ok && r >= 0 && r <= 1 {
		p.UpvoteRatio = &r
	}
	p.URL = permalink(jsonval.String(d["permalink"]))
	if p.URL == "" {
		p.URL = origin + "/comments/" + p.ID + "/"
	}
	if !jsonval.Bool(d["is_self"]) {
		p.LinkURL = webURL(jsonval.FirstString(d["url_overridden_by_dest"], d["url"]))
		if p.LinkURL == p.URL {
			p.LinkURL = ""
		}
	}
	p.Media = mediaOf(d, p.LinkURL)
	return p, true
}

// commentFrom normalizes a t1's data at depth. ok is false without an id.
func commentFrom(d map[string]any, depth int) (Comment, bool) {
	c := Comment{
		ID:          jsonval.String(d["id"]),
		Depth:       depth,
		Author:      jsonval.String(d["author"]),
		Body:        jsonval.String(d["body"]),
		Score:       intPtr(d["score"]),
		CreatedAt:   unixTime(d["created_utc"]),
		IsSubmitter: jsonval.Bool(d["is_submitter"]),
		Stickied:    jsonval.Bool(d["stickied"]),
		AuthorFlair: jsonval.String(d["author_flair_text"]),
	}
	if c.ID == "" || !idRE.MatchString(c.ID) {
		return Comment{}, false
	}
	// edited is false, or the time of the edit.
	if _, ok := jsonval.Float(d["edited"]); ok || jsonval.Bool(d["edited"]) {
		c.Edited = true
	}
	c.URL = permalink(jsonval.String(d["permalink"]))
	if c.URL == "" {
		c.URL = origin + "/comments/" + strings.TrimPrefix(jsonval.String(d["link_id"]), "t3_") + "/_/" + c.ID + "/"
	}
	return c, true
}

// mediaOf lists a post's images, videos, gallery and embed.
func mediaOf(d map[string]any, linkURL string) []Media {
	var out []Media
	seen := map[string]bool{}
	add := func(typ string, u any, w, h any) {
		s := webURL(jsonval.String(u))
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		m := Media{Type: typ, URL: s}
		m.Width, _ = jsonval.Int(w)
		m.Height, _ = jsonval.Int(h)
		out = append(out, m)
	}
	for _, key := range []string{"media", "secure_media"} {
		if v := jsonval.Object(jsonval.Get(d, key, "reddit_video")); v != nil {
			add("video", v["fallback_url"], v["width"], v["height"])
		}
	}
	meta := jsonval.Object(d["media_metadata"])
	for _, it := range jsonval.List(jsonval.Get(d, "gallery_data", "items")) {
		m := jsonval.Object(meta[jsonval.String(jsonval.Get(it, "media_id"))])
		s := jsonval.Object(m["s"])
		add("gallery_image", jsonval.FirstString(s["u"], s["gif"], s["mp4"]), s["x"], s["y"])
	}
	for _, img := range jsonval.List(jsonval.Get(d, "preview", "images")) {
		if g := jsonval.Object(jsonval.Get(img, "variants", "gif", "source")); g != nil {
			add("gif", g["url"], g["width"], g["height"])
			continue
		}
		src := jsonval.Object(jsonval.Get(img, "source"))
		add("image", src["url"], src["width"], src["height"])
	}
	if len(out) == 0 && jsonval.String(d["post_hint"]) == "image" {
		add("image", linkURL, nil, nil)
	}
	if jsonval.Get(d, "media", "oembed") != nil || jsonval.Get(d, "secure_media", "oembed") != nil {
		add("embed", linkURL, nil, nil)
	}
	return out
}

// permalink is a thing's permalink (/r/…/comments/…/) on www.reddit.com.
func permalink(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return ""
	}
	return origin + p
}

// webURL keeps http(s) URLs only (Reddit writes "self", "default" and
// "nsfw" where a thumbnail would be).
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

func intPtr(v any) *int64 {
	if n, ok := jsonval.Int(v); ok {
		return &n
	}
	return nil
}
