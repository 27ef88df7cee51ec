package robots

import "testing"

// Cases from the conformance suite of Google's robots.txt parser, the
// reference RFC 9309 grew from. Where Google departs from the RFC (it does
// not decode percent-encoded unreserved characters) the RFC is followed and
// the case says so.
func TestGoogleConformance(t *testing.T) {
	t.Run("groups, blank lines and rules outside groups", func(t *testing.T) {
		const body = "allow: /foo/bar/\n" +
			"\n" +
			"user-agent: FooBot\n" +
			"disallow: /\n" +
			"allow: /x/\n" +
			"user-agent: BarBot\n" +
			"disallow: /\n" +
			"allow: /y/\n" +
			"\n" +
			"\n" +
			"allow: /w/\n" +
			"user-agent: BazBot\n" +
			"\n" +
			"user-agent: FooBot\n" +
			"allow: /z/\n" +
			"disallow: /\n"
		runCases(t, body, []rfcCase{
			{"FooBot", "/x/b", true},
			{"FooBot", "/z/d", true},
			{"FooBot", "/y/c", false},
			{"BarBot", "/y/c", true},
			{"BarBot", "/w/a", true},
			{"BarBot", "/z/d", false},
			{"BazBot", "/z/d", true},
			{"FooBot", "/foo/bar/", false},
			{"BarBot", "/foo/bar/", false},
			{"BazBot", "/foo/bar/", false},
		})
	})
	t.Run("record names and agents are case-insensitive, values are not", func(t *testing.T) {
		for _, body := range []string{
			"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
			"user-agent: FOOBOT\nallow: /x/\ndisallow: /\n",
			"uSeR-aGeNt: fOoBoT\naLlOw: /x/\ndIsAlLoW: /\n",
		} {
			runCases(t, body, []rfcCase{{"FooBot", "/x/y", true}, {"FooBot", "/a/b", false}, {"foobot", "/X/y", false}})
		}
	})
	t.Run("an agent is its token up to the first space", func(t *testing.T) {
		const body = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
		runCases(t, body, []rfcCase{{"Foo", "/x/y", true}, {"Foo Bar", "/x/y", true}, {"Bar", "/x/y", false}})
	})
	t.Run("the global group and no group", func(t *testing.T) {
		runCases(t, "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", []rfcCase{
			{"FooBot", "/x/y", false}, {"BarBot", "/x/y", true}})
		runCases(t, "user-agent: FooBot\nallow: /\n", []rfcCase{{"BarBot", "/x/y", true}})
		runCases(t, "", []rfcCase{{"FooBot", "/", true}})
	})
	t.Run("longest match", func(t *testing.T) {
		for _, c := range []struct {
			body  string
			cases []rfcCase
		}{
			{"user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", []rfcCase{{"FooBot", "/x/page.html", false}}},
			{"user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", []rfcCase{{"FooBot", "/x/page.html", true}, {"FooBot", "/x/", false}}},
			{"user-agent: FooBot\ndisallow: \nallow: \n", []rfcCase{{"FooBot", "/x/page.html", true}}},
			{"user-agent: FooBot\ndisallow: /\nallow: /\n", []rfcCase{{"FooBot", "/x/page.html", true}}},
			{"user-agent: FooBot\ndisallow: /x\nallow: /x/\n", []rfcCase{{"FooBot", "/x", false}, {"FooBot", "/x/", true}}},
			{"user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", []rfcCase{{"FooBot", "/x/page.html", true}}},
			{"user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", []rfcCase{{"FooBot", "/page.html", false}, {"FooBot", "/page", true}}},
			{"user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", []rfcCase{{"FooBot", "/x/page.html", true}, {"FooBot", "/x/y.html", false}}},
			{"User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", []rfcCase{{"FooBot", "/x/page", true}, {"FooBot", "/y/page", false}}},
		} {
			runCases(t, c.body, c.cases)
		}
	})
	t.Run("values are case-sensitive", func(t *testing.T) {
		runCases(t, "user-agent: FooBot\ndisallow: /x/\n", []rfcCase{{"FooBot", "/x/y", false}})
		runCases(t, "user-agent: FooBot\ndisallow: /X/\n", []rfcCase{{"FooBot", "/x/y", true}})
	})
	t.Run("encoding", func(t *testing.T) {
		runCases(t, "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", []rfcCase{
			{"FooBot", "/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true}})
		runCases(t, "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/\xe3\x83\x84\n", []rfcCase{
			{"FooBot", "/foo/bar/%E3%83%84", true}})
		runCases(t, "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", []rfcCase{
			{"FooBot", "/foo/bar/%E3%83%84", true}})
		// Google allows only the encoded form here; RFC 9309 2.2.2 decodes
		// unreserved characters, so both are allowed.
		runCases(t, "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", []rfcCase{
			{"FooBot", "/foo/bar/%62%61%7A", true}, {"FooBot", "/foo/bar/baz", true}})
	})
	t.Run("special characters", func(t *testing.T) {
		runCases(t, "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", []rfcCase{
			{"FooBot", "/foo/bar/quz", false}, {"FooBot", "/foo/quz", true}, {"FooBot", "/foo//quz", true}, {"FooBot", "/foo/bax/quz", true}})
		runCases(t, "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", []rfcCase{
			{"FooBot", "/foo/bar", false}, {"FooBot", "/foo/bar/qux", true}, {"FooBot", "/foo/bar/", true}, {"FooBot", "/foo/bar/baz", true}})
		runCases(t, "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", []rfcCase{
			{"FooBot", "/foo/bar", true}, {"FooBot", "/foo/quz", false}})
	})
}
