package youtube

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/surfsense/pluginhost/scrapers"
)

// defaultClientVersion is the WEB client version sent when a page did not
// give one (pages do: INNERTUBE_CLIENT_VERSION in ytcfg).
const defaultClientVersion = "2.20250610.00.00"

// innertubeConfig is what a page's ytcfg gives for follow-up innertube
// requests (/youtubei/v1/search, /next, /player). The zero value works: the
// API key is then left out and the default client version is sent.
type innertubeConfig struct {
	APIKey        string
	ClientVersion string
	VisitorData   string
}

// pageConfig reads the innertube settings from a page's ytcfg.set({...}).
func pageConfig(page []byte) innertubeConfig {
	c := innertubeConfig{
		APIKey:        jsonStringField(page, "INNERTUBE_API_KEY"),
		ClientVersion: jsonStringField(page, "INNERTUBE_CLIENT_VERSION"),
		VisitorData:   jsonStringField(page, "VISITOR_DATA"),
	}
	if c.ClientVersion == "" {
		c.ClientVersion = jsonStringField(page, "INNERTUBE_CONTEXT_CLIENT_VERSION")
	}
	if c.VisitorData == "" {
		c.VisitorData = jsonStringField(page, "visitorData")
	}
	if !plainToken(c.APIKey) {
		c.APIKey = ""
	}
	if !plainToken(c.ClientVersion) {
		c.ClientVersion = ""
	}
	return c
}

// plainToken reports whether s is a short run of URL-safe characters (an API
// key or a version), so that nothing odd from a page lands in a URL or header.
func plainToken(s string) bool {
	if len(s) == 0 || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func (c innertubeConfig) version() string {
	if c.ClientVersion != "" {
		return c.ClientVersion
	}
	return defaultClientVersion
}

// webContext is the innertube request context of the WEB client, in English.
func (c innertubeConfig) webContext() map[string]any {
	client := map[string]any{
		"clientName":    "WEB",
		"clientVersion": c.version(),
		"hl":            "en",
		"gl":            "US",
	}
	if c.VisitorData != "" {
		client["visitorData"] = c.VisitorData
	}
	return map[string]any{"client": client}
}

// endpoint is the URL of an innertube method (search, next, player).
func (c innertubeConfig) endpoint(method string) string {
	q := url.Values{"prettyPrint": {"false"}}
	if c.APIKey != "" {
		q.Set("key", c.APIKey)
	}
	return origin + "/youtubei/v1/" + method + "?" + q.Encode()
}

// post sends one innertube request and decodes its JSON answer.
func (p *plugin) innertube(ctx context.Context, c innertubeConfig, method string, body map[string]any, header http.Header) (any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	h := http.Header{
		"Content-Type":             {"application/json"},
		"Origin":                   {origin},
		"X-Youtube-Client-Name":    {"1"},
		"X-Youtube-Client-Version": {c.version()},
	}
	if c.VisitorData != "" && plainVisitor(c.VisitorData) {
		h.Set("X-Goog-Visitor-Id", c.VisitorData)
	}
	for k, vs := range header {
		h[k] = vs
	}
	u := c.endpoint(method)
	resp, err := p.fetch.Do(ctx, &scrapers.Request{Method: http.MethodPost, URL: u, Body: b, Header: h})
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(resp.Body, &v); err != nil {
		return nil, &scrapers.SiteError{Site: siteName, URL: u, Err: fmt.Errorf("the %s answer is not JSON: %w", method, err)}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &scrapers.SiteError{Site: siteName, URL: u, Err: fmt.Errorf("the %s answer is not a JSON object", method)}
	}
	return v, nil
}

// plainVisitor reports whether a visitor id is safe as a header value.
func plainVisitor(s string) bool {
	if len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
