package instagram

// Profile is a public Instagram account as the details tool returns it.
type Profile struct {
	URL         string   `json:"url"`
	Type        string   `json:"type"` // "profile"
	ID          string   `json:"id,omitempty"`
	Username    string   `json:"username"`
	FullName    string   `json:"full_name,omitempty"`
	Biography   string   `json:"biography,omitempty"`
	ExternalURL string   `json:"external_url,omitempty"`
	BioLinks    []string `json:"bio_links,omitempty"`
	Followers   *int64   `json:"followers,omitempty"`
	Following   *int64   `json:"following,omitempty"`
	PostCount   *int64   `json:"post_count,omitempty"`
	Verified    bool     `json:"verified"`
	Private     bool     `json:"private"`
	Business    bool     `json:"business,omitempty"`
	Category    string   `json:"category,omitempty"`
	ProfilePic  string   `json:"profile_pic,omitempty"`
	// ReadFrom says where the profile was read: "web_profile_info" (the web
	// client's profile API, every field) or "profile page" (the logged-out
	// profile page's meta tags, when the API asks for a login: name, counts,
	// bio and picture only).
	ReadFrom string `json:"read_from"`
	// CountsRounded is set when the counts are as the page writes them
	// (48.2K, 1.2M), rounded.
	CountsRounded bool `json:"counts_rounded,omitempty"`
	// RecentPosts are the latest posts Instagram shows anonymous readers
	// (twelve at most), newest first.
	RecentPosts []Post `json:"recent_posts,omitempty"`
}

// Post is one Instagram post or reel.
type Post struct {
	// URL is the post's page: /p/<shortcode>/, or /reel/<shortcode>/ for a reel.
	URL           string   `json:"url"`
	Type          string   `json:"type"` // "post" or "reel"
	ID            string   `json:"id,omitempty"`
	Shortcode     string   `json:"shortcode"`
	MediaType     string   `json:"media_type,omitempty"` // image, video or carousel
	Caption       string   `json:"caption,omitempty"`
	Hashtags      []string `json:"hashtags,omitempty"`
	Mentions      []string `json:"mentions,omitempty"`
	OwnerUsername string   `json:"owner_username,omitempty"`
	OwnerID       string   `json:"owner_id,omitempty"`
	OwnerFullName string   `json:"owner_full_name,omitempty"`
	TakenAt       string   `json:"taken_at,omitempty"` // RFC 3339, UTC
	// Counts Instagram did not show (hidden likes) are left out.
	LikeCount    *int64  `json:"like_count,omitempty"`
	CommentCount *int64  `json:"comment_count,omitempty"`
	ViewCount    *int64  `json:"view_count,omitempty"` // video views or reel plays
	DisplayURL   string  `json:"display_url,omitempty"`
	VideoURL     string  `json:"video_url,omitempty"`
	Width        int64   `json:"width,omitempty"`
	Height       int64   `json:"height,omitempty"`
	Duration     float64 `json:"duration,omitempty"` // seconds, videos only
	AltText      string  `json:"alt_text,omitempty"`
	Location     string  `json:"location,omitempty"`
	// Media are a carousel's images and videos, in order.
	Media []Media `json:"media,omitempty"`
	// Comments are the post's comments (details): the first page its page
	// shows, followed through Instagram's cursor up to the comments
	// argument, or the page a cursor asked for.
	Comments []Comment `json:"comments,omitempty"`
	// CommentsNextCursor continues the comments (details' cursor argument)
	// when Instagram has more.
	CommentsNextCursor string `json:"comments_next_cursor,omitempty"`
	// Source is the profile a post was listed on.
	Source string `json:"source,omitempty"`
}

// Media is one image or video of a carousel.
type Media struct {
	Type   string `json:"type"` // image or video
	URL    string `json:"url"`
	Width  int64  `json:"width,omitempty"` // the original's, when Instagram states it
	Height int64  `json:"height,omitempty"`
	// Thumbnail is a video's still image.
	Thumbnail string `json:"thumbnail,omitempty"`
}

// Comment is one comment shown with a post.
type Comment struct {
	ID         string `json:"id,omitempty"`
	Username   string `json:"username,omitempty"`
	Text       string `json:"text"`
	CreatedAt  string `json:"created_at,omitempty"`
	LikeCount  *int64 `json:"like_count,omitempty"`
	ReplyCount *int64 `json:"reply_count,omitempty"`
}
