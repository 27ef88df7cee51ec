package youtube

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Comment is one item of the comments tool.
type Comment struct {
	Type string `json:"type"` // "comment"
	// URL is the comment's permalink (watch?v=<video>&lc=<comment id>).
	URL               string `json:"url"`
	VideoID           string `json:"video_id"`
	VideoURL          string `json:"video_url"`
	CommentID         string `json:"comment_id"`
	Author            string `json:"author"`
	AuthorChannelID   string `json:"author_channel_id,omitempty"`
	AuthorURL         string `json:"author_url,omitempty"`
	Text              string `json:"text"`
	Likes             int64  `json:"likes"`
	LikesText         string `json:"likes_text,omitempty"`
	PublishedTimeText string `json:"published_time_text,omitempty"`
	ReplyCount        int64  `json:"reply_count"`
	IsReply           bool   `json:"is_reply"`
	IsPinned          bool   `json:"is_pinned,omitempty"`
	// AuthorIsChannelOwner is true when the video's channel wrote it.
	AuthorIsChannelOwner bool `json:"author_is_channel_owner,omitempty"`
}

// commentTokens are the continuation tokens a watch page gives for its
// comments.
type commentTokens struct {
	// Section loads the comment section (top comments first).
	Section string
	// Top and Newest load the comments in that order (the comments panel's
	// sort menu); either may be missing.
	Top, Newest string
	// Message is what the page says instead of comments ("Comments are
	// turned off."), when it says so.
	Message string
}

// commentTokensFrom reads the comment tokens of a watch page's ytInitialData.
func commentTokensFrom(initial any) commentTokens {
	var ct commentTokens
	for _, c := range jsonval.List(jsonval.Get(initial, "contents", "twoColumnWatchNextResults", "results", "results", "contents")) {
		sec := jsonval.Object(jsonval.Get(c, "itemSectionRenderer"))
		if sec == nil {
			continue
		}
		if str(sec["sectionIdentifier"]) != "comment-item-section" && str(sec["targetId"]) != "comments-section" {
			continue
		}
		for _, it := range jsonval.List(sec["contents"]) {
			if tok := continuationToken(jsonval.Get(it, "continuationItemRenderer")); tok != "" && ct.Section == "" {
				ct.Section = tok
			}
			if m := firstText(jsonval.Get(it, "messageRenderer", "text")); m != "" && ct.Message == "" {
				ct.Message = m
			}
		}
	}
	for _, p := range jsonval.List(jsonval.Get(initial, "engagementPanels")) {
		r := jsonval.Get(p, "engagementPanelSectionListRenderer")
		if str(jsonval.Get(r, "panelIdentifier")) != "engagement-panel-comments-section" && str(jsonval.Get(r, "targetId")) != "engagement-panel-comments-section" {
			continue
		}
		top, newest := sortTokens(jsonval.Get(r, "header", "engagementPanelTitleHeaderRenderer", "menu", "sortFilterSubMenuRenderer"))
		if ct.Top == "" {
			ct.Top = top
		}
		if ct.Newest == "" {
			ct.Newest = newest
		}
		if ct.Section == "" {
			for _, s := range jsonval.List(jsonval.Get(r, "content", "sectionListRenderer", "contents")) {
				for _, it := range jsonval.List(jsonval.Get(s, "itemSectionRenderer", "contents")) {
					if tok := continuationToken(jsonval.Get(it, "continuationItemRenderer")); tok != "" && ct.Section == "" {
						ct.Section = tok
					}
				}
			}
		}
	}
	return ct
}

// sortTokens reads the top and newest tokens of a sortFilterSubMenuRenderer:
// by their titles in English, else by position (top first, newest second).
func sortTokens(menu any) (top, newest string) {
	items := jsonval.List(jsonval.Get(menu, "subMenuItems"))
	byPos := make([]string, len(items))
	for i, it := range items {
		tok := str(jsonval.Get(it, "serviceEndpoint", "continuationCommand", "token"))
		if tok == "" {
			tok = str(jsonval.Get(it, "continuation", "reloadContinuationData", "continuation"))
		}
		byPos[i] = tok
		title := strings.ToLower(firstText(jsonval.Get(it, "title")))
		switch {
		case strings.Contains(title, "newest") && newest == "":
			newest = tok
		case strings.Contains(title, "top") && top == "":
			top = tok
		}
	}
	if top == "" && len(byPos) > 0 {
		top = byPos[0]
	}
	if newest == "" && len(byPos) > 1 {
		newest = byPos[1]
	}
	return top, newest
}

// commentPage is one innertube /next answer for comments.
type commentPage struct {
	Comments []Comment
	// Continuation loads the next page ("" on the last).
	Continuation string
	// Top and Newest are the sort menu's tokens, when the answer has the
	// comments header.
	Top, Newest string
	// CountText is the comment count the header shows.
	CountText string
}

// parseCommentsJSON extracts comments from an innertube /next answer.
func parseCommentsJSON(body []byte, videoID string) (commentPage, error) {
	var data any
	if err := json.Unmarshal(body, &data); err != nil {
		return commentPage{}, fmt.Errorf("the comments answer is not valid JSON: %w", err)
	}
	return extractComments(data, videoID), nil
}

// extractComments reads comments out of a /next answer in either of the
// shapes YouTube uses: commentThreadRenderer holding a commentRenderer (the
// older one), or commentThreadRenderer holding a commentViewModel whose
// content sits in frameworkUpdates.entityBatchUpdate.mutations as
// commentEntityPayload (the newer one).
func extractComments(data any, videoID string) commentPage {
	var cp commentPage
	payloads, order := commentPayloads(data)
	used := map[string]bool{}
	seen := map[string]bool{}
	add := func(c Comment, ok bool) {
		if !ok || seen[c.CommentID] {
			return
		}
		seen[c.CommentID] = true
		c.finish(videoID)
		cp.Comments = append(cp.Comments, c)
	}
	for _, list := range commentLists(data) {
		for _, it := range list {
			if h := jsonval.Get(it, "commentsHeaderRenderer"); h != nil {
				cp.Top, cp.Newest = sortTokens(jsonval.Get(h, "sortMenu", "sortFilterSubMenuRenderer"))
				cp.CountText = firstText(jsonval.Get(h, "countText"), jsonval.Get(h, "commentsCount"))
				continue
			}
			if tok := continuationToken(jsonval.Get(it, "continuationItemRenderer")); tok != "" {
				cp.Continuation = tok
				continue
			}
			thread := jsonval.Object(jsonval.Get(it, "commentThreadRenderer"))
			var c Comment
			var ok bool
			switch {
			case thread != nil && jsonval.Get(thread, "comment", "commentRenderer") != nil:
				c, ok = fromCommentRenderer(jsonval.Object(jsonval.Get(thread, "comment", "commentRenderer")))
			case thread != nil && jsonval.Get(thread, "commentViewModel", "commentViewModel") != nil:
				vm := jsonval.Object(jsonval.Get(thread, "commentViewModel", "commentViewModel"))
				p := lookupPayload(payloads, vm)
				if p == nil {
					continue
				}
				used[str(jsonval.Get(p, "properties", "commentId"))] = true
				c, ok = fromCommentEntity(p)
				if str(vm["pinnedText"]) != "" {
					c.IsPinned = true
				}
			case jsonval.Get(it, "commentRenderer") != nil:
				c, ok = fromCommentRenderer(jsonval.Object(jsonval.Get(it, "commentRenderer")))
			case jsonval.Get(it, "commentViewModel") != nil:
				p := lookupPayload(payloads, jsonval.Object(jsonval.Get(it, "commentViewModel")))
				if p == nil {
					continue
				}
				used[str(jsonval.Get(p, "properties", "commentId"))] = true
				c, ok = fromCommentEntity(p)
			default:
				continue
			}
			add(c, ok)
		}
	}
	// Payloads no thread pointed at (an answer that lists only mutations)
	// still are comments, in the order the mutations give.
	for _, p := range order {
		id := str(jsonval.Get(p, "properties", "commentId"))
		if used[id] {
			continue
		}
		if c, ok := fromCommentEntity(p); !c.IsReply {
			add(c, ok)
		}
	}
	return cp
}

// commentLists returns the item lists of a /next answer.
func commentLists(data any) [][]any {
	var lists [][]any
	for _, key := range []string{"onResponseReceivedEndpoints", "onResponseReceivedActions", "onResponseReceivedCommands"} {
		for _, c := range jsonval.List(jsonval.Get(data, key)) {
			lists = append(lists,
				jsonval.List(jsonval.Get(c, "reloadContinuationItemsCommand", "continuationItems")),
				jsonval.List(jsonval.Get(c, "appendContinuationItemsAction", "continuationItems")))
		}
	}
	// The oldest shape: continuationContents.itemSectionContinuation.
	sc := jsonval.Get(data, "continuationContents", "itemSectionContinuation")
	if sc != nil {
		lists = append(lists, jsonval.List(jsonval.Get(sc, "contents")), jsonval.List(jsonval.Get(sc, "header")))
		for _, c := range jsonval.List(jsonval.Get(sc, "continuations")) {
			if tok := str(jsonval.Get(c, "nextContinuationData", "continuation")); tok != "" {
				lists = append(lists, []any{map[string]any{"continuationItemRenderer": map[string]any{"nextContinuationData": map[string]any{"continuation": tok}}}})
			}
		}
	}
	return lists
}

// commentPayloads indexes the commentEntityPayloads of an answer's
// frameworkUpdates by entity key and by comment id, and lists them in order.
func commentPayloads(data any) (map[string]map[string]any, []map[string]any) {
	index := map[string]map[string]any{}
	var order []map[string]any
	for _, m := range jsonval.List(jsonval.Get(data, "frameworkUpdates", "entityBatchUpdate", "mutations")) {
		p := jsonval.Object(jsonval.Get(m, "payload", "commentEntityPayload"))
		if p == nil {
			continue
		}
		order = append(order, p)
		if k := str(jsonval.Get(m, "entityKey")); k != "" {
			index["key:"+k] = p
		}
		if k := str(p["key"]); k != "" {
			index["key:"+k] = p
		}
		if id := str(jsonval.Get(p, "properties", "commentId")); id != "" {
			index["id:"+id] = p
		}
	}
	return index, order
}

// lookupPayload finds the payload a commentViewModel points at.
func lookupPayload(index map[string]map[string]any, vm map[string]any) map[string]any {
	if k := str(vm["commentKey"]); k != "" {
		if p := index["key:"+k]; p != nil {
			return p
		}
	}
	if id := str(vm["commentId"]); id != "" {
		return index["id:"+id]
	}
	return nil
}

// fromCommentRenderer reads the older commentRenderer.
func fromCommentRenderer(r map[string]any) (Comment, bool) {
	c := Comment{
		CommentID:            str(r["commentId"]),
		Author:               strings.TrimSpace(text(r["authorText"])),
		AuthorChannelID:      str(jsonval.Get(r, "authorEndpoint", "browseEndpoint", "browseId")),
		Text:                 text(r["contentText"]),
		PublishedTimeText:    text(r["publishedTimeText"]),
		AuthorIsChannelOwner: jsonval.Bool(r["authorIsChannelOwner"]),
		IsPinned:             r["pinnedCommentBadge"] != nil,
	}
	c.AuthorURL = channelURL(str(jsonval.Get(r, "authorEndpoint", "browseEndpoint", "canonicalBaseUrl")), c.AuthorChannelID)
	c.LikesText = strings.TrimSpace(text(r["voteCount"]))
	if n, ok := parseCount(c.LikesText); ok {
		c.Likes = n
	}
	switch n := r["replyCount"].(type) {
	case float64:
		c.ReplyCount = int64(n)
	case string:
		if v, ok := parseCount(n); ok {
			c.ReplyCount = v
		}
	}
	if c.ReplyCount == 0 {
		// "View 15 replies" on the replies button.
		if v, ok := parseCount(text(jsonval.Get(r, "replies", "commentRepliesRenderer", "viewReplies", "buttonRenderer", "text"))); ok {
			c.ReplyCount = v
		}
	}
	return c, c.CommentID != ""
}

// fromCommentEntity reads the newer commentEntityPayload.
func fromCommentEntity(p map[string]any) (Comment, bool) {
	props := jsonval.Get(p, "properties")
	c := Comment{
		CommentID:            str(jsonval.Get(props, "commentId")),
		Author:               strings.TrimSpace(str(jsonval.Get(p, "author", "displayName"))),
		AuthorChannelID:      str(jsonval.Get(p, "author", "channelId")),
		Text:                 text(jsonval.Get(props, "content")),
		PublishedTimeText:    str(jsonval.Get(props, "publishedTime")),
		AuthorIsChannelOwner: jsonval.Bool(jsonval.Get(p, "author", "isCreator")),
	}
	if lvl, _ := jsonval.Get(props, "replyLevel").(float64); lvl > 0 {
		c.IsReply = true
	}
	c.AuthorURL = channelURL(str(jsonval.Get(p, "author", "channelCommand", "innertubeCommand", "browseEndpoint", "canonicalBaseUrl")), c.AuthorChannelID)
	c.LikesText = strings.TrimSpace(str(jsonval.Get(p, "toolbar", "likeCountNotliked")))
	if n, ok := parseCount(c.LikesText); ok {
		c.Likes = n
	} else if n, ok := parseCount(str(jsonval.Get(p, "toolbar", "likeCountA11y"))); ok {
		c.Likes = n
	}
	if n, ok := parseCount(str(jsonval.Get(p, "toolbar", "replyCount"))); ok {
		c.ReplyCount = n
	}
	return c, c.CommentID != ""
}

// finish fills the fields every comment has from its video.
func (c *Comment) finish(videoID string) {
	c.Type = "comment"
	c.VideoID = videoID
	c.VideoURL = watchURL(videoID)
	c.URL = c.VideoURL + "&lc=" + url.QueryEscape(c.CommentID)
}
