package tiktok_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/tiktok"
)

// TestBlocksAndLimitsThroughTheHost: TikTok's verify page, its API's verify
// answer, the login wall and a lasting 429 are tool errors naming TikTok
// and the kind; each argument's bound is refused naming the argument.
func TestBlocksAndLimitsThroughTheHost(t *testing.T) {
	verify := scrapertest.Testdata(t, "verify.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/@captcha":
			w.Write(verify)
		case "/@walled":
			http.Redirect(w, r, "/login?redirect_url=%2F%40walled", http.StatusFound)
		case "/login":
			w.Write([]byte(`<html><body>Log in to TikTok</body></html>`))
		case "/@busy":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		case "/api/search/item/full/":
			w.Write([]byte(`{"type":"verify","verify_event":"","fixed":true,"code":10000,"subtype":"slide"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": site.URL}, nil)

	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"profiles": []string{"captcha"}}, "TikTok", "captcha")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"bread"}}, "TikTok", "captcha")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"profiles": []string{"walled"}}, "TikTok", "login wall")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"profiles": []string{"busy"}}, "TikTok", "rate limited")

	for _, c := range []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{}, "urls"},
		{map[string]any{"profiles": []string{"a"}, "max_items": 0}, "max_items"},
		{map[string]any{"profiles": []string{"a"}, "max_items": 101}, "max_items"},
		{map[string]any{"profiles": scrapertest.Many("a", 21)}, "profiles"},
		{map[string]any{"hashtags": scrapertest.Many("a", 21)}, "hashtags"},
		{map[string]any{"urls": scrapertest.Many("https://www.tiktok.com/@a", 21)}, "urls"},
		{map[string]any{"hashtags": []string{"two words"}}, "hashtags"},
		{map[string]any{"urls": []string{"https://example.com/@a"}}, "urls"},
	} {
		scrapertest.WantToolError(t, cs, "scrape", c.args, c.arg)
	}
}
