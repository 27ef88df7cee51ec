package webcrawl

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// extractPage runs Extract on page as if it had been fetched from rawURL.
func extractPage(t *testing.T, page, rawURL string) Page {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Extract([]byte(page), u, ExtractOptions{ContentType: "text/html; charset=utf-8"})
	if err != nil {
		t.Fatalf("Extract(%s): %v", rawURL, err)
	}
	return p
}

// prose is a paragraph of running text of 150 characters and more, unique
// to topic and i, so that no rule takes it for a repeat of another.
func prose(topic string, i int) string {
	return fmt.Sprintf("Paragraph %d about %s: this is the page's own running text, the sentences a reader came for, "+
		"with clauses, commas and enough words in it to be a paragraph and not a label or a caption (%d).", i, topic, i)
}

// paragraphs is n paragraphs of prose, each in its own <p>.
func paragraphs(topic string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("<p>" + prose(topic, i) + "</p>\n")
	}
	return b.String()
}

// shown is the Markdown as a failure message shows it: its start.
func shown(p Page) string {
	if len(p.Markdown) > 3000 {
		return p.Markdown[:3000] + "\n[…]"
	}
	return p.Markdown
}

// wantIn and wantOut check what Markdown holds and does not hold.
func wantIn(t *testing.T, p Page, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(p.Markdown, s) {
			t.Errorf("markdown lacks %q, want it kept; notes %q; markdown:\n%s", s, p.Notes, shown(p))
		}
	}
}

func wantOut(t *testing.T, p Page, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(p.Markdown, s) {
			t.Errorf("markdown holds %q, want it dropped; notes %q; markdown:\n%s", s, p.Notes, shown(p))
		}
	}
}

func wantNoWholePage(t *testing.T, p Page) {
	t.Helper()
	if slices.Contains(p.Notes, noteWhole) {
		t.Errorf("notes %q: want no %q, the page's content was found", p.Notes, noteWhole)
	}
}

// An element around the page's <main> is never furniture, whatever its
// class says: Bootstrap's "row row-offcanvas" wraps the whole page. The
// site's footer, larger than the content, makes the wrapper hold less than
// half of the page's text, so that only its being around <main> keeps it.
func TestPruningElementAroundMainIsKept(t *testing.T) {
	page := `<html><head><title>Opening hours and fees</title></head><body>
<nav><a href="/">Home</a> <a href="/visit">Visit</a> <a href="/about">About</a></nav>
<div class="row row-offcanvas row-offcanvas-right">
<main><h1>Opening hours and fees</h1>
` + paragraphs("the museum's opening hours", 4) + `</main>
</div>
<footer>` + paragraphs("the site's legal notice", 7) + `</footer>
</body></html>`
	p := extractPage(t, page, "https://museum.example/visit/hours")
	wantIn(t, p, prose("the museum's opening hours", 1), prose("the museum's opening hours", 4))
	wantOut(t, p, prose("the site's legal notice", 1))
	wantNoWholePage(t, p)
}

// A class word naming a small box (meta, author, tags…) does not prune an
// element holding running text: HubSpot's "hs_cos_wrapper_meta_field" holds
// a post's body. A short date line so named is still dropped. (The post's
// long comment thread makes the body less than half of the page's text, and
// its summary keeps the date line inside the part an article is narrowed to,
// so that only the class word can drop it.)
func TestPruningMetaFieldHoldingTheBodyIsKept(t *testing.T) {
	var comments strings.Builder
	for i := 1; i <= 8; i++ {
		comments.WriteString(`<div class="comment-body"><p>` + prose("a reader's comment", i) + `</p></div>`)
	}
	page := `<html><head><title>Five ways to water a garden</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Five ways to water a garden"}</script>
</head><body>
<div class="blog-post">
<h1>Five ways to water a garden</h1>
<div class="post-meta">March 3, 2024</div>
<p class="lead">` + prose("the post's summary", 1) + `</p>
<span id="hs_cos_wrapper_post_body" class="hs_cos_wrapper hs_cos_wrapper_meta_field hs_cos_wrapper_type_rich_text">
` + paragraphs("watering a garden", 4) + `</span>
</div>
<div id="comments" class="blog-comments">` + comments.String() + `</div>
</body></html>`
	p := extractPage(t, page, "https://blog.example/garden/five-ways-to-water")
	wantIn(t, p, prose("the post's summary", 1), prose("watering a garden", 1), prose("watering a garden", 4))
	wantOut(t, p, "March 3, 2024", prose("a reader's comment", 1))
	wantNoWholePage(t, p)
}

// A product page whose megamenu and reviews are nine tenths of its text
// keeps its description when that is a few paragraphs, rather than the
// whole page with the menu. (The megamenu is a panel per department, each
// under half of the page's text: an element holding more than half of it is
// never taken for furniture.)
func TestPruningProductUnderAMegamenu(t *testing.T) {
	var menu strings.Builder
	menu.WriteString(`<header class="site-header"><a href="/">Outdoor Shop</a>`)
	menuText := 0
	for d := 0; d < 4; d++ {
		fmt.Fprintf(&menu, `<div class="megamenu-panel"><h3>Department %d</h3><ul>`, d)
		for i := 0; i < 220; i++ {
			label := fmt.Sprintf("Zanzibar department %d-%d", d, i)
			fmt.Fprintf(&menu, `<li><a href="/c/%d/%d">%s</a></li>`, d, i, label)
			menuText += len(label)
		}
		menu.WriteString(`</ul></div>`)
	}
	menu.WriteString(`</header>`)
	if menuText < 20000 {
		t.Fatalf("the megamenu holds %d characters, want 20,000 and more", menuText)
	}
	var reviews strings.Builder
	for i := 1; i <= 3; i++ {
		reviews.WriteString(`<div class="review"><p>` + prose("a buyer's review", i) + `</p></div>`)
	}
	page := `<html><head><title>Trail Runner 3 shoes</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 3"}</script>
</head><body>` + menu.String() + `
<main><h1>Trail Runner 3</h1><div class="price">$129.00</div>
<div class="product-description">` + paragraphs("the Trail Runner 3", 7) + `</div>
<div class="product-reviews">` + reviews.String() + `</div>
</main></body></html>`
	p := extractPage(t, page, "https://shop.example/trail-runner-3")
	wantIn(t, p, prose("the Trail Runner 3", 1), prose("the Trail Runner 3", 7))
	wantOut(t, p, "Zanzibar department", prose("a buyer's review", 1))
	wantNoWholePage(t, p)
}

// On forum threads and product pages, a block of five links and more, most
// of them a word or two, with no running text, is a menu and is dropped. A
// block of links named by long product names is not a menu and stays; on
// other pages menus are not looked for.
func TestPruningMenus(t *testing.T) {
	short := []string{"Home", "Latest", "Top", "Categories", "Badges", "Groups", "Members", "About", "Guidelines", "Privacy"}
	long := []string{"Trail Runner 3 waterproof shoes", "Summit Pro insulated jacket", "Ridge 40 litre hiking backpack",
		"Alpine merino base layer top", "Canyon carbon trekking poles", "Glacier down sleeping bag",
		"Basecamp two person dome tent", "Harbour rolltop dry bag 20L", "Meadow lightweight rain shell",
		"Northern fleece lined gloves"}
	links := func(labels []string) string {
		var b strings.Builder
		b.WriteString(`<div class="d-block">`)
		for i, l := range labels {
			fmt.Fprintf(&b, `<a href="/x/%d">%s</a> `, i, l)
		}
		b.WriteString(`</div>`)
		return b.String()
	}
	thread := func(block string) string {
		var posts strings.Builder
		for i := 1; i <= 4; i++ {
			fmt.Fprintf(&posts, `<div class="topic-post"><div class="names">user%d</div><div class="cooked"><p>%s</p><p>%s</p></div></div>`,
				i, prose(fmt.Sprintf("post %d of the thread", i), 1), prose(fmt.Sprintf("post %d of the thread", i), 2))
		}
		return `<html><head><title>My amplifier hums</title></head><body>` + block +
			`<h1>My amplifier hums</h1>` + posts.String() + `</body></html>`
	}
	product := func(block string) string {
		return `<html><head><title>Trail Runner 3</title>
<script type="application/ld+json">{"@type":"Product","name":"Trail Runner 3"}</script></head><body>
<main><h1>Trail Runner 3</h1>` + paragraphs("the Trail Runner 3", 5) + `<h2>Compare with</h2>` + block + `</main></body></html>`
	}

	t.Run("short links on a forum thread are a menu", func(t *testing.T) {
		p := extractPage(t, thread(links(short)), "https://community.example.com/t/my-amplifier-hums/42")
		wantIn(t, p, prose("post 1 of the thread", 1), prose("post 4 of the thread", 2))
		wantOut(t, p, "[Latest]", "[Badges]", "[Guidelines]")
	})
	t.Run("short links on a product page are a menu", func(t *testing.T) {
		p := extractPage(t, product(links(short)), "https://shop.example/trail-runner-3")
		wantIn(t, p, prose("the Trail Runner 3", 1), prose("the Trail Runner 3", 5))
		wantOut(t, p, "[Latest]", "[Badges]", "[Guidelines]")
	})
	t.Run("long product names on a product page are not a menu", func(t *testing.T) {
		p := extractPage(t, product(links(long)), "https://shop.example/trail-runner-3")
		wantIn(t, p, prose("the Trail Runner 3", 1), "[Summit Pro insulated jacket]", "[Northern fleece lined gloves]")
	})
	t.Run("short links on other pages stay", func(t *testing.T) {
		page := `<html><head><title>Opening hours</title></head><body><main><h1>Opening hours</h1>` +
			paragraphs("the museum's opening hours", 4) + links(short) + `</main></body></html>`
		p := extractPage(t, page, "https://museum.example/visit/hours")
		wantIn(t, p, prose("the museum's opening hours", 1), "[Latest]", "[Guidelines]")
	})
}

// On a forum thread, a post's quote of an earlier post is dropped (the
// thread holds that post); the post's own text stays. On other pages a
// quote is content.
func TestPruningForumQuotes(t *testing.T) {
	const quoted = "The hum started after I moved the turntable next to the power amplifier last week."
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(`<article class="message"><div class="message-userDetails">user` + fmt.Sprint(i) + `</div>
<div class="message-body"><div class="bbWrapper">`)
		if i == 2 {
			posts.WriteString(`<blockquote class="bbCodeBlock bbCodeBlock--expandable bbCodeBlock--quote">` + quoted + `</blockquote>`)
		}
		posts.WriteString(`<p>` + prose(fmt.Sprintf("reply %d", i), 1) + `</p><p>` + prose(fmt.Sprintf("reply %d", i), 2) + `</p></div></div></article>`)
	}
	page := `<html><head><title>My amplifier hums | Page 2</title></head><body><h1>My amplifier hums</h1>` + posts.String() + `</body></html>`

	t.Run("on a forum thread", func(t *testing.T) {
		p := extractPage(t, page, "https://example.com/threads/my-amplifier-hums.1234/page-2")
		wantIn(t, p, prose("reply 2", 1), prose("reply 2", 2), prose("reply 3", 1))
		wantOut(t, p, "moved the turntable")
	})
	t.Run("on a page that is not a forum", func(t *testing.T) {
		p := extractPage(t, page, "https://example.com/notes/my-amplifier-hums")
		wantIn(t, p, quoted, prose("reply 2", 1))
	})
}

// On a thread, a form that wraps a post's text (old Reddit puts each
// comment in one, for its editor) is the post, not furniture; a search or
// login form beside it still goes, and so do old Reddit's copies of a
// score as it would be after a vote.
func TestPruningThreadFormsHoldingPosts(t *testing.T) {
	var comments strings.Builder
	for i := 1; i <= 4; i++ {
		comments.WriteString(fmt.Sprintf(`<div class="thing comment"><div class="entry"><p class="tagline"><a class="author">user%d</a>
<span class="score dislikes">%d points</span><span class="score unvoted">%d points</span><span class="score likes">%d points</span></p>
<form action="#" class="usertext"><input type="hidden" name="thing_id" value="t1_%d"><div class="usertext-body"><div class="md"><p>%s</p></div></div></form>
</div></div>`, i, 100*i+1, 100*i+2, 100*i+3, i, prose(fmt.Sprintf("comment %d", i), 1)))
	}
	page := `<html><head><title>Hair follicles grown in the lab</title></head><body>
<form id="search" action="/search"><p>Search this community for other threads about hair, hearing and mice.</p><a href="/search">use advanced search</a> <label>query</label> <a href="/help">search help and syntax</a> <a href="/r">communities</a></form>
<div class="content" role="main"><h1>Hair follicles grown in the lab</h1><div class="commentarea">` + comments.String() + `</div></div>
<form id="login" action="/login"><label>user name</label><label>password</label><p>Remember me on this computer.</p><a href="/reset">reset password</a> <a href="/register">create an account</a></form>
</body></html>`
	p := extractPage(t, page, "https://old.reddit.com/r/science/comments/1rku5x9/hair_follicles/")
	wantIn(t, p, prose("comment 1", 1), prose("comment 4", 1), "user2", "202 points")
	wantOut(t, p, "201 points", "203 points", "Search this community", "Remember me")
}

// On a thread, each post keeps its author and text; the poster's avatar
// (a letter where there is no picture), rank and banner, join date and post count, "Last edited by" and "Offline" lines
// go (XenForo, FluxBB, vBulletin), and so do the similar threads listed
// under the thread and its share buttons.
func TestPruningPosterCardsAndSimilarThreads(t *testing.T) {
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(fmt.Sprintf(`<article class="message message--post"><div class="message-cell message-cell--user">
<section class="message-user"><div class="message-userDetails"><h4 class="message-name"><a class="username">poster%d</a></h4>
<h5 class="userTitle message-userTitle">Senior Member</h5><div class="userBanner message-userBanner"><strong>Gold Supporter</strong></div></div></section></div>
<div class="message-avatar"><a class="avatar avatar--s"><span class="avatar-u%d-s">Q</span></a></div>
<div class="message-cell message-cell--main"><div class="bbWrapper">%s</div>
<p class="postedit"><em>Last edited by poster%d yesterday at noon</em></p></div>
<div class="postfoot"><div class="postfootleft"><p><span>Offline</span></p></div></div>
<div class="userinfo_extra"><dl class="userstats"><dt>Join Date</dt><dd>Mar 2016</dd></dl></div></article>`, i, i, paragraphs(fmt.Sprintf("post %d", i), 2), i))
	}
	page := `<html><head><title>Which camera for hiking?</title></head><body><div class="p-body-pageContent"><h1>Which camera for hiking?</h1>` + posts.String() + `
<div class="block"><div class="block-container"><h3 class="block-header">Similar threads</h3><div class="block-body">
<div class="structItem"><a href="/threads/lenses-for-travel.1/">Lenses for travel</a> Replies 39 Views 2K drd1135 May 16, 2025</div>
<div class="structItem"><a href="/threads/tripods.2/">Tripods</a> Replies 12 Views 1K marko May 2, 2025</div></div></div></div>
<div class="shareButtons shareButtons--iconic"><span class="shareButtons-label">Share:</span> <a href="https://facebook.com/share">Facebook</a></div>
</div></body></html>`
	p := extractPage(t, page, "https://example.com/threads/which-camera-for-hiking.1234/")
	wantIn(t, p, "poster1", "poster3", prose("post 1", 1), prose("post 3", 2))
	wantOut(t, p, "Senior Member", "Gold Supporter", "Last edited by", "Offline", "Join Date", "Similar threads", "drd1135", "Share:")
	if strings.Contains(p.Markdown, "Q") {
		t.Errorf("markdown holds an avatar's letter Q:\n%s", shown(p))
	}
}

// On a thread, a post's action bar ("Reply with quote", "Top"), its badges
// ("Author") and like count, and the thread's print and tools menu go;
// the posts and their authors stay (phpBB, Invision, Discourse markup).
func TestPruningPostActionsAndBadges(t *testing.T) {
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(fmt.Sprintf(`<div class="post"><div class="postbody"><ul class="profile-icons"><li class="quote-icon"><a href="/posting.php?mode=quote&p=%d"><span>Reply with quote</span></a></li></ul>
<p class="author">by <strong>member%d</strong> » Tue Aug 27, 2019 1:47 am</p><ul class="ipsBadges"><li><span class="ipsBadge ipsBadge--author">Thread starter badge</span></li></ul>
<div class="content">%s</div><span class="post-likes">%d Likes</span></div><div class="back2top"><a class="top" href="#top">Back to the top</a></div></div>`, i, i, paragraphs(fmt.Sprintf("message %d", i), 2), 10+i))
	}
	page := `<html><head><title>Season standings</title></head><body><h1>Season standings</h1>
<div class="dropdown-container topic-tools"><ul><li><a href="/print">Print view</a></li><li><a href="/bookmark">Bookmark topic</a></li></ul></div>` + posts.String() + `</body></html>`
	p := extractPage(t, page, "https://example.com/viewtopic.php?f=20&t=487157")
	wantIn(t, p, "member1", "member3", prose("message 1", 1), prose("message 3", 2))
	wantOut(t, p, "Reply with quote", "Thread starter badge", "12 Likes", "Back to the top", "Print view")
}

// On a thread laid out as a list of posts (NodeBB), a reply's copy of the
// post it answers is dropped: the post is already there.
func TestPruningRepliesRepeatingTheirParentInListItems(t *testing.T) {
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(fmt.Sprintf(`<li class="pt-4"><div class="post-container"><a href="/user/u%d" class="fw-bold">member%d</a>`, i, i))
		if i > 1 {
			posts.WriteString(fmt.Sprintf(`<div class="btn btn-ghost btn-sm d-flex"><a href="/user/u%d">member%d</a><div class="text-muted line-clamp-1"><p>%s</p></div></div>`, i-1, i-1, prose(fmt.Sprintf("post %d", i-1), 1)))
		}
		posts.WriteString(fmt.Sprintf(`<div class="content text-break"><p>%s</p></div></div></li>`, prose(fmt.Sprintf("post %d", i), 1)))
	}
	page := `<html><head><title>RC1 of version 4</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"RC1 of version 4"}</script></head>
<body><main><h1>RC1 of version 4</h1><ul class="posts timeline list-unstyled">` + posts.String() + `</ul></main></body></html>`
	p := extractPage(t, page, "https://example.com/topic/18427/rc1-of-version-4")
	for i := 1; i <= 3; i++ {
		text := prose(fmt.Sprintf("post %d", i), 1)
		if got := strings.Count(p.Markdown, text); got != 1 {
			t.Errorf("post %d is in the markdown %d times, want once:\n%s", i, got, shown(p))
		}
	}
}

// On a thread, Invision's topic overview and its phone copy of each
// post's author pane, a poster's badges, and the spans a class hides at
// every screen size (Stack Exchange's "$\begingroup$" marks) go; a span
// hidden on small screens only stays.
func TestPruningThreadOverviewsAndHiddenCopies(t *testing.T) {
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(fmt.Sprintf(`<article class="cPost ipsComment"><div class="cAuthorPane_mobile ipsResponsive_showPhone"><a>member%d</a> Posted on the phone copy</div>
<div class="cAuthorPane"><h3 class="cAuthorPane_author"><a>member%d</a></h3><div class="post-badges"><span class="post-badge">Science Advisor</span></div></div>
<div class="ipsComment_content"><span class="d-none">$\begingroup$</span><span class="d-none d-md-inline">wide screens only %d</span>%s<span class="d-none">$\endgroup$</span></div></article>`, i, i, i, paragraphs(fmt.Sprintf("comment %d", i), 2)))
	}
	page := `<html><head><title>Payment issues</title></head><body><h1>Payment issues</h1>
<div class="cTopicOverview cTopicOverview--main"><div class="cTopicOverview__item"><h4 class="cTopicOverview__title">Top Posters In This Topic</h4><p>member1 56 posts</p></div></div>` + posts.String() + `</body></html>`
	p := extractPage(t, page, "https://forum.example.com/topic/1103020-payment-issues/")
	wantIn(t, p, "member1", "member3", prose("comment 1", 1), prose("comment 3", 2), "wide screens only 2")
	wantOut(t, p, "phone copy", "Science Advisor", "Top Posters", "begingroup", "endgroup")
}

// On a Q&A page the comments under the question and answers are dropped;
// the answers stay.
func TestPruningQAComments(t *testing.T) {
	page := `<html><head><title>How do I list open ports?</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"QAPage","mainEntity":{"@type":"Question","name":"How do I list open ports?"}}</script>
</head><body><div id="content"><h1>How do I list open ports?</h1>
<div class="question"><div class="s-prose js-post-body">` + paragraphs("the question", 2) + `</div></div>
<div id="answers"><div class="answer js-answer"><div class="s-prose js-post-body">` + paragraphs("the accepted answer", 3) + `</div>
<div id="comments-4242" class="comments js-comments-container"><ul>
<li class="comment"><span class="comment-copy">Thanks, this worked on my Raspberry Pi with the stock image.</span></li>
<li class="comment"><span class="comment-copy">Note that ss needs root to show the owning processes of sockets.</span></li>
</ul></div></div></div></div></body></html>`
	p := extractPage(t, page, "https://unix.stackexchange.com/questions/4242/how-do-i-list-open-ports")
	wantIn(t, p, prose("the question", 1), prose("the accepted answer", 1), prose("the accepted answer", 3))
	wantOut(t, p, "Raspberry Pi", "owning processes")
}

// html-to-markdown writes <!--THE END--> between two lists that follow each
// other: it is dropped, but a code block's own line of that text stays.
func TestListSeparatorOutsideCode(t *testing.T) {
	page := `<html><head><title>Packing list</title></head><body><main><h1>Packing list</h1>` +
		paragraphs("packing for a trip", 3) +
		`<ul><li>Passport</li><li>Tickets</li></ul><ul><li>Sun cream</li><li>Hat</li></ul>
<p>The template ends with a comment:</p>
<pre><code>&lt;p&gt;Goodbye&lt;/p&gt;
&lt;!--THE END--&gt;
</code></pre></main></body></html>`
	p := extractPage(t, page, "https://travel.example/packing-list")
	wantIn(t, p, "Passport", "Sun cream", "<p>Goodbye</p>")
	inCode, fenced := false, 0
	for _, line := range strings.Split(p.Markdown, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			inCode = !inCode
			continue
		}
		if l == listSeparator {
			if inCode {
				fenced++
			} else {
				t.Errorf("markdown holds the list separator %q outside code; markdown:\n%s", listSeparator, p.Markdown)
			}
		}
	}
	if fenced != 1 {
		t.Errorf("the code block holds %d lines %q, want 1 (the code's own); markdown:\n%s", fenced, listSeparator, p.Markdown)
	}
}

// TestSecondOpinionWhereTheRegionChoiceFails: an article whose every block
// is named like furniture (five "promo" boxes, none holding half the text)
// leaves nothing to choose from; go-trafilatura's choice is taken and the
// item says so, rather than the whole page with its menu.
func TestSecondOpinionWhereTheRegionChoiceFails(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Kettles compared</title>
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Kettles compared"}</script></head><body>
<ul class="site-links"><li><a href="/a">Shop all kettles and toasters</a></li><li><a href="/b">Our stores near you</a></li></ul>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<div class="promo">%s</div>`, paragraphs(fmt.Sprintf("kettle %d", i), 2))
	}
	b.WriteString(`</body></html>`)
	p := extractPage(t, b.String(), "https://news.example/kettles")
	if !slices.Contains(p.Notes, noteSecond) {
		t.Errorf("notes %q, want %q", p.Notes, noteSecond)
	}
	wantIn(t, p, prose("kettle 0", 1), prose("kettle 4", 2))
	wantOut(t, p, "Our stores near you")
}

// Adobe Experience Manager names every block of a page "cmp-…" (its core
// components: cmp-container, cmp-text): such a block is not a consent
// management platform's box, though "cmp" alone, or after another word
// (Quantcast's "qc-cmp2-ui"), is one. (Each section is under half of the
// page's text, so that only the class word decides.)
func TestPruningAEMComponentsAreNotConsentBoxes(t *testing.T) {
	page := `<html><head><title>Managed security services</title></head><body>
<div class="root container responsivegrid"><div class="cmp-container">
<div class="cmp-container"><div class="cmp-text"><h2>Detection</h2>` + paragraphs("detecting threats", 2) + `</div></div>
<div class="cmp-container"><div class="cmp-text"><h2>Response</h2>` + paragraphs("responding to breaches", 2) + `</div></div>
<div class="cmp-container"><div class="cmp-text"><h2>Recovery</h2>` + paragraphs("recovering systems", 2) + `</div></div>
</div></div>
<div id="qc-cmp2-ui"><p>` + prose("the consent manager's notice", 1) + `</p></div>
</body></html>`
	p := extractPage(t, page, "https://security.example/services/managed")
	wantIn(t, p, prose("detecting threats", 1), prose("responding to breaches", 2), prose("recovering systems", 1))
	wantOut(t, p, prose("the consent manager's notice", 1))
	wantNoWholePage(t, p)
}

// A link or button whose whole label is a call to action ("Learn more →",
// "Read more") and that stands alone in its block is dropped: the card's
// title and summary say what it leads to. The same words inside a sentence
// stay.
func TestPruningCallsToAction(t *testing.T) {
	var cards strings.Builder
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&cards, `<div class="card"><h3>Service %d</h3><p>%s</p><div class="card-link"><a href="/s/%d">Learn more →</a></div></div>`,
			i, prose("service offering", i), i)
	}
	page := `<html><head><title>Our services</title></head><body><main>
<h1>Our services</h1>
<p>` + prose("what the firm does", 1) + ` To <a href="/about">learn more</a> about us, call.</p>
` + cards.String() + `
<div class="actions-row"><a class="btn" href="/all">Read more</a></div>
</main></body></html>`
	p := extractPage(t, page, "https://firm.example/services")
	wantIn(t, p, prose("service offering", 1), prose("service offering", 3), "learn more](https://firm.example/about) about us")
	wantOut(t, p, "Learn more →", "Read more")
}

// The fine print under a service's offer (a block named "disclaimer") and
// under its figures (footnotes) is not the page's content.
func TestPruningDisclaimersAndFootnotes(t *testing.T) {
	page := `<html><head><title>Email marketing plans</title></head><body><main>
<h1>Email marketing plans</h1>
` + paragraphs("the email marketing plans", 4) + `
<div class="plan-disclaimer"><p>` + prose("the offer's terms", 1) + `</p></div>
<ol class="footnotes-list"><li>` + prose("where a figure came from", 1) + `</li></ol>
</main></body></html>`
	p := extractPage(t, page, "https://mail.example/pricing")
	wantIn(t, p, prose("the email marketing plans", 1), prose("the email marketing plans", 4))
	wantOut(t, p, prose("the offer's terms", 1), prose("where a figure came from", 1))
}

// A dropdown (a menu's panel outside <nav>), a tooltip and a box of
// trending stories are furniture; an accordion's panel, which some sites
// name its "dropdown", holds a FAQ's answer and stays.
func TestPruningDropdownsButNotAccordions(t *testing.T) {
	page := `<html><head><title>Tax advice</title></head><body>
<main><div class="mega-dropdown"><p>` + prose("the menu's promoted link", 1) + `</p></div>
<h1>Tax advice</h1>
` + paragraphs("tax advice for firms", 3) + `
<div class="faq-accordion"><h3>Who is it for?</h3><div class="accordion-item__dropdown"><p>` + prose("who the advice is for", 1) + `</p></div></div>
<span class="term-tooltip">` + prose("a term's hover hint", 1) + `</span>
<div class="trending-box"><p>` + prose("a trending story", 1) + `</p></div>
</main></body></html>`
	p := extractPage(t, page, "https://advisers.example/services/tax")
	wantIn(t, p, prose("tax advice for firms", 1), prose("who the advice is for", 1))
	wantOut(t, p, prose("the menu's promoted link", 1), prose("a term's hover hint", 1), prose("a trending story", 1))
}

// A service page's section titled "Featured insights" (or "Related
// services", "From the blog") shows the firm's other pages, not this one.
func TestPruningServicePageInsights(t *testing.T) {
	page := `<html><head><title>Supply chain consulting</title></head><body><main>
<h1>Supply chain consulting</h1>
<section><h2>What we do</h2>` + paragraphs("supply chain consulting", 4) + `</section>
<section><h2>Featured insights</h2>
<div class="card"><h3>Ten trends for next year</h3><p>` + prose("another page's teaser", 1) + `</p></div>
<div class="card"><h3>How ports recover</h3><p>` + prose("another page's teaser", 2) + `</p></div>
</section>
</main></body></html>`
	p := extractPage(t, page, "https://consultants.example/services/supply-chain")
	wantIn(t, p, prose("supply chain consulting", 1), prose("supply chain consulting", 4))
	wantOut(t, p, "Ten trends for next year", prose("another page's teaser", 2))
}

// A call to action with a count ("View all 14", "Show all (23)") is one too.
func TestPruningCallsToActionWithCounts(t *testing.T) {
	page := `<html><head><title>Events</title></head><body><main>
<h1>Events</h1>
` + paragraphs("this week's events", 3) + `
<div class="more-row"><a href="/events/all">View all 14 →</a></div>
</main></body></html>`
	p := extractPage(t, page, "https://town.example/events")
	wantIn(t, p, prose("this week's events", 1))
	wantOut(t, p, "View all 14")
}

// A block named "legal" (a legal notice, an offer's terms) is furniture;
// WordPress's preset classes (has-legal-font-size, a theme's font size
// named "legal") say nothing of their block and leave it alone.
func TestPruningLegalNoticeButNotWordPressPresets(t *testing.T) {
	page := `<html><head><title>Tuition and fees</title></head><body><main>
<h1>Tuition and fees</h1>
` + paragraphs("tuition for each program", 3) + `
<p class="has-legal-font-size">` + prose("the fees in small print", 1) + `</p>
<div class="legal-notice"><p>` + prose("the offer's legal terms", 1) + `</p></div>
</main></body></html>`
	p := extractPage(t, page, "https://college.example/tuition")
	wantIn(t, p, prose("tuition for each program", 1), prose("the fees in small print", 1))
	wantOut(t, p, prose("the offer's legal terms", 1))

	// A law firm names its sections so: a block of running text named
	// "legal" is not fine print.
	firm := `<html><head><title>Our practice</title></head><body><main><h1>Our practice</h1>
` + paragraphs("our firm", 3) + `
<section class="legal-services">` + paragraphs("estate planning", 3) + `</section>
<section class="legal-services">` + paragraphs("family law", 3) + `</section>
<section class="legal-services">` + paragraphs("business disputes", 3) + `</section>
</main></body></html>`
	p = extractPage(t, firm, "https://firm.example/practice")
	wantIn(t, p, prose("our firm", 1), prose("estate planning", 1), prose("family law", 2), prose("business disputes", 3))
}

// A text of 16 bytes and more that a page lays out twice (a mobile and a
// desktop copy) is shown once; a heading repeats only from 24 bytes (a
// manual's "The Charge object" above two sections), and code is never
// looked into (a JSON sample's lines repeat).
func TestPruningShortRepeats(t *testing.T) {
	page := `<html><head><title>Charges</title></head><body><main>
<h1>Charges</h1>
<div class="mobile"><p>Same-day dispatch</p></div>
<div class="desktop"><p>Same-day dispatch</p></div>
<h2>The Charge object</h2>
` + paragraphs("the charge object", 2) + `
<h2>The Charge object</h2>
` + paragraphs("retrieving a charge", 2) + `
<pre><code><div>"customer": null,</div><div>"refunds": {</div><div>"customer": null,</div></code></pre>
</main></body></html>`
	p := extractPage(t, page, "https://docs.example/api/charges")
	if n := strings.Count(p.Markdown, "Same-day dispatch"); n != 1 {
		t.Errorf("%q shown %d times, want once; markdown:\n%s", "Same-day dispatch", n, shown(p))
	}
	if n := strings.Count(p.Markdown, "The Charge object"); n != 2 {
		t.Errorf("%q shown %d times, want twice; markdown:\n%s", "The Charge object", n, shown(p))
	}
	if n := strings.Count(p.Markdown, `"customer": null,`); n != 2 {
		t.Errorf("code line shown %d times, want twice; markdown:\n%s", n, shown(p))
	}
}

// An article whose text sits in an element named as a post's text
// (WordPress's entry-content) keeps that element alone, not the column of
// other posts' excerpts beside it in the same wrapper; a page that does
// not say it is an article, when the named element holds most of its text.
// A name that every post of a thread bears names no one text.
func TestArticleBodyByName(t *testing.T) {
	for _, c := range []struct {
		ld       string
		excerpts int
	}{{`<script type="application/ld+json">{"@type":"BlogPosting"}</script>`, 3}, {"", 1}} {
		var excerpts strings.Builder
		for i := 1; i <= c.excerpts; i++ {
			excerpts.WriteString(`<div class="card"><h3>Another post</h3><p>` + prose("another post's excerpt", i) + `</p></div>`)
		}
		ld := c.ld
		page := `<html><head><title>Getting hurt at a gym</title>` + ld + `</head><body>
<div class="e-con-parent">
<div class="e-con-child"><h1>Getting hurt at a gym</h1>
<div class="elementor-widget-theme-post-content">` + paragraphs("gym injuries", 4) + `</div></div>
<div class="e-con-child"><h2>Latest News</h2>` + excerpts.String() + `</div>
</div></body></html>`
		p := extractPage(t, page, "https://law.example/gym-injuries/")
		wantIn(t, p, prose("gym injuries", 1), prose("gym injuries", 4))
		wantOut(t, p, prose("another post's excerpt", 1), prose("another post's excerpt", c.excerpts))
	}
	var posts strings.Builder
	for i := 1; i <= 2; i++ {
		posts.WriteString(`<div class="post"><div class="post-body">` + paragraphs(fmt.Sprintf("post %d", i), 2) + `</div></div>`)
	}
	page := `<html><head><title>A thread</title><script type="application/ld+json">{"@type":"Article"}</script></head><body>
<div class="thread">` + posts.String() + `</div></body></html>`
	p := extractPage(t, page, "https://club.example/catering-tips")
	wantIn(t, p, prose("post 1", 1), prose("post 2", 2))
}

// A photo's caption and credit are not the text: captions go (a
// <figcaption>, and on an article an element whose class names a caption
// or a credit), but a numbered figure's caption, which the text refers to,
// stays.
func TestCaptionsDropped(t *testing.T) {
	page := `<html><head><title>Backpacking in the rain</title>
<script type="application/ld+json">{"@type":"NewsArticle"}</script></head><body>
<article><h1>Backpacking in the rain</h1>` + paragraphs("backpacking", 3) + `
<figure><img src="/a.jpg" alt=""><figcaption>The family that backpacks together. Credit: Chris Walker</figcaption></figure>
<div class="wp-caption"><img src="/b.jpg" alt=""><p class="wp-caption-text">A tent at dusk (Photo: Getty Images)</p></div>
` + paragraphs("rain gear", 2) + `
<figure><img src="/c.png" alt=""><figcaption>Figure 2. Rainfall by month along the trail.</figcaption></figure>
</article></body></html>`
	p := extractPage(t, page, "https://outdoors.example/news/backpacking-in-the-rain")
	wantIn(t, p, prose("backpacking", 1), prose("rain gear", 2), "Figure 2. Rainfall by month")
	wantOut(t, p, "Chris Walker", "Getty Images")
}

// React streams what was still loading at the end of the body, hidden
// (<div hidden id="S:0">), for its script to move into place: on an
// article it is the article's text and is read; another hidden element is
// not; on a site's home page the streamed parts are more of the feed.
func TestReactStreamedContent(t *testing.T) {
	page := `<html><head><title>How to invest in index funds</title>
<meta property="og:type" content="article"></head><body>
<div class="page"><h1>How to invest in index funds</h1>` + paragraphs("the summary", 6) + `<template id="B:0"></template><p>Loading…</p></div>
<div hidden>` + prose("a hidden panel", 1) + `</div>
<div hidden id="S:0"><div class="body">` + paragraphs("index funds", 4) + `</div></div>
</body></html>`
	p := extractPage(t, page, "https://invest.example/guides/index-funds/")
	wantIn(t, p, prose("index funds", 1), prose("index funds", 4))
	wantOut(t, p, prose("a hidden panel", 1))
	p = extractPage(t, page, "https://invest.example/")
	wantOut(t, p, prose("index funds", 1))
}
