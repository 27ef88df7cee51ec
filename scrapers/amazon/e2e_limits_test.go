package amazon_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/amazon"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestBlocksAndLimitsThroughTheHost: each kind of block Amazon gives is a
// tool error naming Amazon and the kind, and each argument's bound is
// refused naming the argument or honoured.
func TestBlocksAndLimitsThroughTheHost(t *testing.T) {
	search := scrapertest.Testdata(t, "search.html")
	captcha := scrapertest.Testdata(t, "captcha.html")
	dogs := scrapertest.Testdata(t, "dogs-503.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("k") {
		case "captcha":
			w.Write(captcha)
		case "dogs":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write(dogs)
		case "busy":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		default:
			if r.URL.Query().Get("page") == "1" {
				w.Write(search)
				return
			}
			w.Write([]byte(`<div class="s-main-slot s-result-list"></div>`))
		}
	}))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "amazon", amazon.New, map[string]string{"AMAZON_BASE_URL": site.URL}, nil)

	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"captcha"}}, "Amazon", "captcha")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"dogs"}}, "Amazon", "rate limited")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"busy"}}, "Amazon", "rate limited")

	for _, c := range []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{}, "urls"},
		{map[string]any{"search_terms": []string{"x"}, "max_items": 0}, "max_items"},
		{map[string]any{"search_terms": []string{"x"}, "max_items": 101}, "max_items"},
		{map[string]any{"search_terms": scrapertest.Many("x", 21)}, "search_terms"},
		{map[string]any{"urls": scrapertest.Many("https://www.amazon.com/dp/B0BQJ68HHC", 21)}, "urls"},
		{map[string]any{"search_terms": []string{"x"}, "domain": "amazon"}, "domain"},
	} {
		scrapertest.WantToolError(t, cs, "scrape", c.args, c.arg)
	}
	for _, n := range []int{1, 2} {
		res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_terms": []string{"headphones"}, "max_items": n})
		if res.IsError || len(pg.Items) != n {
			t.Errorf("max_items %d: error %v, %d items", n, res.IsError, len(pg.Items))
		}
	}
}
