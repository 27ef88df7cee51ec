package license

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Keygen validates keys with Keygen CE's validate-key action:
// POST {URL}/v1/accounts/{Account}/licenses/actions/validate-key with
// {"meta":{"key":…}}, no API token. Keygen answers 200 with meta.valid and
// meta.code for good and bad keys alike.
type Keygen struct {
	URL     string // origin, e.g. https://license.surfsense.com
	Account string // account id or slug
	// Client makes the requests; nil is a client with a 5 s timeout.
	Client *http.Client
}

// NewKeygen checks the configuration and returns the backend.
func NewKeygen(origin, account string) (*Keygen, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("KEYGEN_URL %q is not an http(s) origin", origin)
	}
	if strings.TrimSpace(account) == "" {
		return nil, fmt.Errorf("KEYGEN_ACCOUNT is required with LICENSE_BACKEND=keygen")
	}
	return &Keygen{URL: strings.TrimRight(origin, "/"), Account: account}, nil
}

func (k *Keygen) Name() string { return "keygen" }

type keygenAnswer struct {
	Meta struct {
		Valid bool   `json:"valid"`
		Code  string `json:"code"`
	} `json:"meta"`
	Data *struct {
		Attributes struct {
			Expiry   *time.Time     `json:"expiry"`
			Status   string         `json:"status"`
			Metadata map[string]any `json:"metadata"`
			Name     *string        `json:"name"`
		} `json:"attributes"`
	} `json:"data"`
	Errors []struct {
		Title string `json:"title"`
		Code  string `json:"code"`
	} `json:"errors"`
}

// Validate asks Keygen about key.
func (k *Keygen) Validate(ctx context.Context, key string) (Verdict, error) {
	body, _ := json.Marshal(map[string]any{"meta": map[string]string{"key": key}})
	endpoint := k.URL + "/v1/accounts/" + url.PathEscape(k.Account) + "/licenses/actions/validate-key"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	req.Header.Set("Content-Type", "application/vnd.api+json")
	req.Header.Set("Accept", "application/vnd.api+json")
	client := k.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		// The error text may carry the URL but never the key (it is in the body).
		return Verdict{}, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: reading Keygen's answer: %v", ErrUnreachable, err)
	}
	switch {
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return Verdict{}, fmt.Errorf("%w: Keygen answered HTTP %d", ErrUnreachable, resp.StatusCode)
	case resp.StatusCode >= 400:
		// Any other 4xx (a bad account, a malformed request): the key is not usable.
		return Verdict{Status: Invalid}, nil
	case resp.StatusCode != http.StatusOK:
		return Verdict{}, fmt.Errorf("%w: Keygen answered HTTP %d", ErrUnreachable, resp.StatusCode)
	}
	var a keygenAnswer
	if err := json.Unmarshal(raw, &a); err != nil || a.Meta.Code == "" {
		return Verdict{}, fmt.Errorf("%w: Keygen's answer had no meta.code", ErrUnreachable)
	}
	v := Verdict{Status: MapKeygenCode(a.Meta.Code)}
	if a.Data != nil {
		v.ExpiresAt = a.Data.Attributes.Expiry
		if p, ok := a.Data.Attributes.Metadata["plan"].(string); ok && p != "" {
			v.Plan = &p
		}
	}
	return v, nil
}

// MapKeygenCode maps a validate-key meta.code to a status (contract 2).
// Machine, fingerprint and heartbeat codes concern the desktop app's
// activation, not plugin calls: the key is valid here.
func MapKeygenCode(code string) Status {
	switch code {
	case "VALID":
		return Valid
	case "EXPIRED":
		return Expired
	case "SUSPENDED", "BANNED":
		return Revoked
	case "NO_MACHINE", "NO_MACHINES", "TOO_MANY_MACHINES", "TOO_MANY_CORES", "TOO_MANY_PROCESSES":
		return Valid
	}
	if strings.HasPrefix(code, "FINGERPRINT_SCOPE_") || strings.HasPrefix(code, "HEARTBEAT_") {
		return Valid
	}
	// NOT_FOUND, *_SCOPE_MISMATCH, *_SCOPE_REQUIRED, policy and entitlement
	// codes, and anything Keygen adds later.
	return Invalid
}
