package indeed_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/indeed"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestBlocksAndLimitsThroughTheHost: Cloudflare's challenge, hCaptcha, the
// sign-in wall and a lasting 429 are tool errors naming Indeed and the
// kind; each argument's bound is refused naming it or honoured.
func TestBlocksAndLimitsThroughTheHost(t *testing.T) {
	search := scrapertest.Testdata(t, "search-page.html")
	cf := scrapertest.Testdata(t, "cloudflare.html")
	hc := scrapertest.Testdata(t, "hcaptcha.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("q") {
		case "cloudflare":
			w.WriteHeader(http.StatusForbidden)
			w.Write(cf)
		case "hcaptcha":
			w.Write(hc)
		case "signin":
			http.Redirect(w, r, "/account/login?dest=%2Fjobs", http.StatusFound)
		case "busy":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		default:
			switch r.URL.Path {
			case "/jobs":
				w.Write(search)
			case "/account/login":
				w.Write([]byte(`<html><body>Sign in to Indeed</body></html>`))
			default:
				http.NotFound(w, r)
			}
		}
	}))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "indeed", indeed.New, map[string]string{"INDEED_BASE_URL": site.URL}, nil)

	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"cloudflare"}}, "Indeed", "robot check")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"hcaptcha"}}, "Indeed", "captcha")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"signin"}}, "Indeed", "login wall")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"busy"}}, "Indeed", "rate limited")

	for _, c := range []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{"queries": []string{"x"}, "max_items": 0}, "max_items"},
		{map[string]any{"queries": []string{"x"}, "max_items": 101}, "max_items"},
		{map[string]any{"queries": scrapertest.Many("x", 21)}, "queries"},
		{map[string]any{"urls": scrapertest.Many("https://www.indeed.com/viewjob?jk=aaaa111122223333", 21)}, "urls"},
		{map[string]any{"queries": []string{"x"}, "country": "atlantis"}, "country"},
	} {
		scrapertest.WantToolError(t, cs, "scrape", c.args, c.arg)
	}
	if res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"queries": []string{"baker"}, "max_items": 1}); res.IsError || len(pg.Items) != 1 {
		t.Errorf("max_items 1: error %v, %d items", res.IsError, len(pg.Items))
	}
}
