package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Usage is what the plugin host answers GET /usage with: this license's own
// usage, summed across the host's replicas. Without a range, Day and Month
// name today and this month (UTC) and each level holds Day and Month
// counts; with a range, From and To name it, each level holds Range
// counts, and Days the totals of each day.
type Usage struct {
	Day     string                 `json:"day,omitempty"`
	Month   string                 `json:"month,omitempty"`
	From    string                 `json:"from,omitempty"`
	To      string                 `json:"to,omitempty"`
	Plan    *string                `json:"plan"`
	Totals  UsagePeriods           `json:"totals"`
	Plugins map[string]PluginUsage `json:"plugins"`
	Days    map[string]UsageCounts `json:"days,omitempty"`
}

// UsagePeriods are counts in the answer's periods.
type UsagePeriods struct {
	Day   *UsageCounts `json:"day,omitempty"`
	Month *UsageCounts `json:"month,omitempty"`
	Range *UsageCounts `json:"range,omitempty"`
}

// PluginUsage is one plugin's usage, summed and per tool ("-" is requests
// refused before their tool was read).
type PluginUsage struct {
	UsagePeriods
	Tools map[string]UsagePeriods `json:"tools"`
}

// UsageCounts are what was used in one period.
type UsageCounts struct {
	Calls   int64 `json:"calls"`
	Refused struct {
		RateLimited int64 `json:"rate_limited"`
		Concurrency int64 `json:"concurrency"`
		License     int64 `json:"license"`
	} `json:"refused"`
	Items            int64 `json:"items"`
	UpstreamRequests int64 `json:"upstream_requests"`
	UpstreamBytes    int64 `json:"upstream_bytes"`
	Blocked          int64 `json:"blocked"`
	Partial          int64 `json:"partial"`
	Cancelled        int64 `json:"cancelled"`
	// Cached are the calls answered from the host's shared result cache.
	Cached int64 `json:"cached"`
}

// UsageError is a GET /usage the host refused or could not answer: the
// HTTP status and the refusal's reason (missing_license, expired, revoked,
// invalid, bad_request, usage_unavailable, …) and message.
type UsageError struct {
	Status  int
	Reason  string
	Message string
}

func (e *UsageError) Error() string {
	msg := fmt.Sprintf("GET /usage: HTTP %d", e.Status)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// maxUsageBytes bounds the answer read: 45 days of every plugin and tool
// fit well within it.
const maxUsageBytes = 1 << 20

// Usage asks the plugin host for this license's usage: today and this
// month when from is "", else the days from from to to (YYYY-MM-DD, to ""
// is today; at most 45 days). A refusal is a *UsageError.
func (c *Client) Usage(ctx context.Context, from, to string) (*Usage, error) {
	endpoint := c.Host.Endpoint("/usage")
	if from != "" || to != "" {
		q := url.Values{}
		if from != "" {
			q.Set("from", from)
		}
		if to != "" {
			q.Set("to", to)
		}
		endpoint += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	if key := c.licenseKey(); key != "" && validSecret(key) {
		req.Header.Set(HeaderAuthorization, "License "+key)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.consentedHTTP().Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", c.Host.Endpoint("/usage"), stripURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUsageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET /usage: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		reason, msg := refusalBody(body)
		return nil, &UsageError{Status: resp.StatusCode, Reason: cleanText(reason, 60), Message: cleanText(msg, 300)}
	}
	if len(body) > maxUsageBytes {
		return nil, fmt.Errorf("GET /usage: the answer is larger than %d bytes", maxUsageBytes)
	}
	var u Usage
	if err := json.Unmarshal(body, &u); err != nil || u.Plugins == nil {
		return nil, fmt.Errorf("GET /usage: the answer is not a usage report")
	}
	return &u, nil
}
