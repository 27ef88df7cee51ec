package reddit

// Post is one Reddit post (a "t3" thing) as the scrape tool returns it.
type Post struct {
	// URL is the post's page on www.reddit.com (its permalink).
	URL       string `json:"url"`
	Type      string `json:"type"` // "post"
	ID        string `json:"id"`   // base-36 id, as in /comments/<id>/
	Subreddit string `json:"subreddit,omitempty"`
	Title     string `json:"title"`
	Author    string `json:"author,omitempty"` // "[deleted]" when gone
	// Score is upvotes minus downvotes as Reddit shows it (fuzzed by Reddit).
	Score        *int64   `json:"score,omitempty"`
	UpvoteRatio  *float64 `json:"upvote_ratio,omitempty"`
	CommentCount *int64   `json:"comment_count,omitempty"`
	CreatedAt    string   `json:"created_at,omitempty"` // RFC 3339, UTC
	// LinkURL is where a link post points (absent for text posts).
	LinkURL     string  `json:"link_url,omitempty"`
	Domain      string  `json:"domain,omitempty"`
	Flair       string  `json:"flair,omitempty"`
	AuthorFlair string  `json:"author_flair,omitempty"`
	Selftext    string  `json:"selftext,omitempty"` // Markdown, as written
	Media       []Media `json:"media,omitempty"`
	NSFW        bool    `json:"nsfw"`
	Spoiler     bool    `json:"spoiler,omitempty"`
	Stickied    bool    `json:"stickied,omitempty"`
	Locked      bool    `json:"locked,omitempty"`
	// Comments are the post's comments in thread order (depth first, as
	// Reddit shows them): each names its parent and depth, so the tree is
	// there without nesting. Present when comments were asked for.
	Comments []Comment `json:"comments,omitempty"`
	// MoreComments counts the comments Reddit left out of the thread it
	// sent or that the max_comments and max_comment_depth bounds cut.
	MoreComments int64 `json:"more_comments,omitempty"`
	// Source is the listing the post was found on (a subreddit, a user's
	// posts, a search); SearchQuery the query of a search.
	Source      string `json:"source,omitempty"`
	SearchQuery string `json:"search_query,omitempty"`
}

// Media is one image, video or embed a post carries.
type Media struct {
	Type   string `json:"type"` // image, gif, video, gallery_image, embed
	URL    string `json:"url"`
	Width  int64  `json:"width,omitempty"`
	Height int64  `json:"height,omitempty"`
}

// Comment is one comment (a "t1" thing) of a post's thread.
type Comment struct {
	URL      string `json:"url"` // the comment's permalink
	ID       string `json:"id"`
	ParentID string `json:"parent_id,omitempty"` // the parent comment's id; empty for a top-level comment
	Depth    int    `json:"depth"`               // 0 for a top-level comment
	Author   string `json:"author,omitempty"`
	Body     string `json:"body"` // Markdown, as written
	Score    *int64 `json:"score,omitempty"`
	// CreatedAt is RFC 3339, UTC.
	CreatedAt   string `json:"created_at,omitempty"`
	Edited      bool   `json:"edited,omitempty"`
	IsSubmitter bool   `json:"is_submitter,omitempty"` // written by the post's author
	Stickied    bool   `json:"stickied,omitempty"`
	AuthorFlair string `json:"author_flair,omitempty"`
	// Replies counts the replies returned below this comment (its direct
	// children in Comments); MoreReplies those Reddit or the bounds left out.
	Replies     int   `json:"replies"`
	MoreReplies int64 `json:"more_replies,omitempty"`
	// Focus marks the comment a permalink named, in a comment_thread.
	Focus bool `json:"focus,omitempty"`
}

// Thread is what a comment's permalink gives: that comment with its context
// (the comments above it, up to context levels) and its replies, and the
// post it belongs to.
type Thread struct {
	// URL is the comment's permalink.
	URL       string `json:"url"`
	Type      string `json:"type"` // "comment_thread"
	CommentID string `json:"comment_id"`
	// Context is how many parent levels were asked for above the comment
	// (fewer are there when the comment is nearer the top).
	Context int `json:"context"`
	// Post is the post the thread is under, without its other comments.
	Post Post `json:"post"`
	// Comments are the thread in order, depth first: the context's
	// comments, the focused one (focus true), then its replies. Depth is
	// Reddit's own (0 for a top-level comment); parent_id names each
	// comment's parent, the first one's too when it is a reply.
	Comments []Comment `json:"comments"`
	// MoreComments counts the replies Reddit left out or the max_comments
	// and max_comment_depth bounds cut.
	MoreComments int64 `json:"more_comments,omitempty"`
}

// User is a Reddit account (a "t2" thing), from its about page.
type User struct {
	URL          string `json:"url"`
	Type         string `json:"type"` // "user"
	ID           string `json:"id,omitempty"`
	Name         string `json:"name"`
	LinkKarma    *int64 `json:"link_karma,omitempty"`
	CommentKarma *int64 `json:"comment_karma,omitempty"`
	TotalKarma   *int64 `json:"total_karma,omitempty"`
	CreatedAt    string `json:"created_at,omitempty"`
	Icon         string `json:"icon,omitempty"`
	Description  string `json:"description,omitempty"`
	Verified     bool   `json:"verified,omitempty"`
	Employee     bool   `json:"employee,omitempty"`
	Suspended    bool   `json:"suspended,omitempty"`
}
