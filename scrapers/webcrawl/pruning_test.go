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
