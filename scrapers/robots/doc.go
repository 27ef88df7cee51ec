// Package robots decides whether the crawler may fetch a URL by the site's
// robots.txt (RFC 9309) and its Content-Signal lines
// (draft-romm-aipref-contentsignals).
//
// A Checker fetches each origin's robots.txt (scheme, host and port) at most
// once at a time in the process, and, given a fleet Cache, at most once per
// TTL for every replica together (when the Cache is also a Leaser, even
// replicas that miss it at the same moment fetch it once between them; a
// plain Cache lets each of them fetch). What it keeps, in the Cache and in the process (at most
// MaxMemoryBytes, least recently used dropped first), is a compact,
// versioned rendering of the group that applies to the agent, not the whole
// file; an entry it cannot read is ignored and the file fetched again.
//
// The rules it follows, RFC 9309 section 2.3.1 and 2.4:
//
//   - 2xx: the body is parsed; at most MaxBytes (500 KiB, the RFC's minimum)
//     is read and a line cut by that limit is dropped. An HTML page served as
//     robots.txt has no rules.
//   - redirects are followed through the crawler's own client, at most five;
//     past five the file is unavailable (as a 4xx).
//   - 4xx, including 404, and a 3xx that is not followed: unavailable, so
//     everything is allowed. 429 is the exception: it asks to slow down and
//     is treated as a 5xx (as Google does).
//   - 5xx or unreachable (refused, reset, timed out, a redirect the guard
//     refuses): the file is unreachable, so nothing is allowed; that verdict
//     is kept only UnavailableTTL (5 minutes) so the site is asked again soon,
//     never for the 24 h a file that was read is kept.
//   - /robots.txt itself is always allowed.
//
// Matching (section 2.2): the group whose product token equals the agent
// (case-insensitively, the token being the leading letters, '_' and '-' of
// the User-agent value) is used, all such groups merged; else the '*' groups.
// Only a rule ends a run of User-agent lines: blank lines, Sitemap,
// Crawl-delay, Content-Signal and unknown records do not (section 2.2.4).
// Paths and patterns are compared after percent-encoding normalisation
// (non-ASCII octets encoded, unreserved characters decoded, hex upper-cased);
// '*' matches any run of octets and a final '$' the end of the URL. The
// longest matching pattern wins and Allow wins a tie.
//
// Beyond RFC 9309, Crawl-delay (seconds, in the group) is honoured up to
// MaxCrawlDelay and a larger one is reported; Sitemap lines are kept for the
// map tool; and a Content-Signal line in the group (or before any group)
// with ai-input=no refuses the URLs it applies to: an optional first word
// starting with '/' scopes the line to paths matched like Allow and
// Disallow, the most specific line deciding.
//
// github.com/temoto/robotstxt (which colly uses) is not used: it fails the
// whole file on one bad line (a Disallow before any User-agent, a
// Crawl-delay of "1s"), matches product tokens by prefix ("Surf" takes
// SurfSense's group), ranks wildcard rules by their regexp's length and
// lets the first of two equal rules win instead of Allow, and does not
// normalise percent-encoding (TestTemotoDepartures shows each against it);
// nor does it read Content-Signal lines.
package robots
