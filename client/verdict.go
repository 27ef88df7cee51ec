package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// VerdictTTL is how long a license verdict stays fresh for an if_stale ask.
const VerdictTTL = 5 * time.Minute

// LicenseVerdict is what one ask of the license verdict did.
type LicenseVerdict struct {
	// Asked is true when GET /license was sent.
	Asked bool
	// Skipped says why nothing was asked: "no paid plugin", "plugin host
	// off" or "fresh" (if_stale and a verdict came in the last five
	// minutes, the license's expiry not passed since). "" when asked.
	Skipped string
	// Answered is true when the host gave a verdict, applied to every paid
	// plugin. When false after an ask, every verdict was kept as it was, and
	// Err says why (no answer, 503, the host out of reach, no /license).
	Answered bool
	Err      error
	// Status is the verdict: valid, or the refusal's reason
	// (missing_license, expired, revoked, invalid). Plan and ExpiresAt are
	// the host's, when it knows them.
	Status    string
	Plan      string
	ExpiresAt time.Time
	// Failure is the check failure the verdict records on every paid plugin
	// (CheckOK for valid).
	Failure CheckFailure
	// Plugins are the ids of the paid plugins it applied to.
	Plugins []string
}

type verdictState struct {
	mu   sync.Mutex
	last time.Time // when the last verdict came, in memory: a restart asks again
	sf   singleflight.Group
}

// paidPlugins are the connected license plugins on the plugin host this
// build reaches.
func (c *Client) paidPlugins(ctx context.Context) ([]InstalledPlugin, error) {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return nil, err
	}
	var out []InstalledPlugin
	for _, p := range rows {
		if p.CredentialKind == CredentialLicense && !p.Disconnected() && c.Host.Reaches(p.URL) {
			out = append(out, p)
		}
	}
	return out, nil
}

// CheckLicense asks the plugin host for the license verdict (POST
// /plugins/license/check): GET /license once, with the imported license,
// for every paid plugin connected, and applies the one answer to all of
// them: missing_license, expired, revoked or invalid become their license
// failure, and a valid license clears one. With ifStale it asks only when no
// verdict came in the last five minutes, or the license's expiry passed
// since the last one. No paid plugin, or the plugin host switched off, asks
// nothing. No answer, 503, a host out of reach or without /license keeps
// every verdict as it was. The returned error is only the store's.
func (c *Client) CheckLicense(ctx context.Context, ifStale bool) (LicenseVerdict, error) {
	paid, err := c.paidPlugins(ctx)
	if err != nil {
		return LicenseVerdict{}, err
	}
	if len(paid) == 0 {
		return LicenseVerdict{Skipped: "no paid plugin"}, nil
	}
	if c.Egress != nil && !c.Egress.Allowed(normHost(c.Host.Hostname())) {
		return LicenseVerdict{Skipped: "plugin host off"}, nil
	}
	if ifStale && !c.verdictStale() {
		return LicenseVerdict{Skipped: "fresh"}, nil
	}
	// Concurrent asks share one request.
	v, _, _ := c.verdict.sf.Do("license", func() (any, error) {
		return c.askLicense(ctx), nil
	})
	lv := v.(LicenseVerdict)
	if !lv.Answered {
		return lv, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	paid, err = c.paidPlugins(ctx) // re-read: rows may have changed while asking
	if err != nil {
		return lv, err
	}
	lv.Plugins = nil
	for _, p := range paid {
		lv.Plugins = append(lv.Plugins, p.ID)
		switch {
		case lv.Failure == CheckOK && p.CheckFailure.IsLicense():
			p.CheckFailure = CheckOK
		case lv.Failure != CheckOK:
			p.CheckFailure = lv.Failure
		default:
			continue
		}
		if err := c.Store.PutPlugin(ctx, p); err != nil && !errors.Is(err, ErrNotFound) {
			return lv, err
		}
	}
	return lv, nil
}

func (c *Client) verdictStale() bool {
	c.verdict.mu.Lock()
	last := c.verdict.last
	c.verdict.mu.Unlock()
	now := c.now()
	if last.IsZero() || now.Sub(last) >= VerdictTTL {
		return true
	}
	if c.License != nil {
		if exp := c.License.LicenseExpiry(); !exp.IsZero() && exp.After(last) && !exp.After(now) {
			return true
		}
	}
	return false
}

// licenseAnswer is GET /license's 200 body.
type licenseAnswer struct {
	Status    string     `json:"status"`
	Plan      *string    `json:"plan"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// askLicense sends GET /license and reads the verdict, without applying it.
func (c *Client) askLicense(ctx context.Context) LicenseVerdict {
	lv := LicenseVerdict{Asked: true}
	status, plan, exp, err := c.getLicense(ctx)
	if err != nil {
		lv.Err = err
		return lv
	}
	f, ok := CheckOK, status == "valid"
	if !ok {
		f, ok = licenseFailures[status]
	}
	if !ok {
		lv.Err = fmt.Errorf("GET /license answered an unknown status %q", cleanText(status, 40))
		return lv
	}
	lv.Answered, lv.Status, lv.Plan, lv.ExpiresAt, lv.Failure = true, status, plan, exp, f
	c.verdict.mu.Lock()
	c.verdict.last = c.now()
	c.verdict.mu.Unlock()
	return lv
}

// getLicense sends GET /license to the plugin host and returns the
// verdict's status: "valid" or a refusal's reason. An error means no
// verdict: the host out of reach, 503, no /license, or an answer it cannot
// read.
func (c *Client) getLicense(ctx context.Context) (status, plan string, expires time.Time, err error) {
	endpoint := c.Host.Endpoint("/license")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return "", "", time.Time{}, err
	}
	if key := c.licenseKey(); key != "" && validSecret(key) {
		req.Header.Set(HeaderAuthorization, "License "+key)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.consentedHTTP().Do(req)
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("GET %s: %w", endpoint, stripURLError(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
		var a licenseAnswer
		if err := json.Unmarshal(body, &a); err != nil || a.Status == "" {
			return "", "", time.Time{}, fmt.Errorf("GET %s: the answer is not a license verdict", endpoint)
		}
		if a.Plan != nil {
			plan = cleanText(*a.Plan, 60)
		}
		if a.ExpiresAt != nil {
			expires = *a.ExpiresAt
		}
		return a.Status, plan, expires, nil
	case resp.StatusCode == 401 || resp.StatusCode == 403:
		reason, _ := refusalBody(body)
		if _, ok := licenseFailures[reason]; ok {
			return reason, "", time.Time{}, nil
		}
		return "", "", time.Time{}, fmt.Errorf("GET %s: HTTP %d with reason %q", endpoint, resp.StatusCode, reason)
	default:
		reason, _ := refusalBody(body)
		if reason != "" {
			return "", "", time.Time{}, fmt.Errorf("GET %s: HTTP %d (%s)", endpoint, resp.StatusCode, reason)
		}
		return "", "", time.Time{}, fmt.Errorf("GET %s: HTTP %d", endpoint, resp.StatusCode)
	}
}

// stripURLError drops url.Error's repetition of the method and URL.
func stripURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}
