package client

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/singleflight"
)

// License refusal reasons (contract 2) and the check failures they become.
var licenseFailures = map[string]CheckFailure{
	"missing_license": CheckNeedsLicense,
	"expired":         CheckLicenseExpired,
	"revoked":         CheckLicenseRevoked,
	"invalid":         CheckLicenseInvalid,
}

// FailureOf says why a listing failed, as a check records it: a 401 or 403
// is sign_in unless its body's reason is one of contract 2's
// (missing_license, expired, revoked, invalid), which become the license
// failures; anything else is unreachable. A nil err is CheckOK.
func FailureOf(err error) CheckFailure { return failureOf(err) }

func failureOf(err error) CheckFailure {
	if err == nil {
		return CheckOK
	}
	var ref *RefusalError
	if errors.As(err, &ref) && (ref.StatusCode == 401 || ref.StatusCode == 403) {
		if f, ok := licenseFailures[ref.Reason]; ok {
			return f
		}
		return CheckSignIn
	}
	return CheckUnreachable
}

// checkTimeout bounds one check's listing (and the refresh it may need),
// which runs on after its callers give up so that it is recorded.
const checkTimeout = 3 * time.Minute

// TurnCheckWait is how long an agent turn waits on a check before it starts
// with the tools as last recorded; the listing goes on and is recorded when
// it ends.
const TurnCheckWait = 3 * time.Second

// Check lists a plugin's server again and records the check
// (POST /plugins/{id}/check, Refresh tools): a server that answers has its
// tools recorded as [RecordTools] says; one that fails keeps the tools last
// recorded and its row says why. An OAuth plugin's listing refused with 401
// is refreshed once and listed again. A plugin that does not exist is 404; a
// disconnected one is 409 plugin_disconnected; one whose hosts are not all
// allowed is 403 egress_disabled and is not contacted. The listing's own
// failure is recorded, not returned: read the returned row's CheckFailure.
//
// Concurrent checks of one plugin share one listing, which runs apart from
// its callers: a caller that gives up gets ctx's error, and neither fails
// the others nor stops the listing, which is recorded when it ends.
func (c *Client) Check(ctx context.Context, id string) (InstalledPlugin, error) {
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	if p.Disconnected() {
		return InstalledPlugin{}, &Error{Status: 409, Code: CodeDisconnected, Name: p.Name}
	}
	if off := notAllowed(c.Egress, PurposePlugin, p.Hosts...); len(off) > 0 {
		return InstalledPlugin{}, egressError(PurposePlugin, off)
	}
	ch := c.startCheck(id)
	select {
	case r := <-ch:
		if r.Err != nil {
			return InstalledPlugin{}, r.Err
		}
		return r.Val.(InstalledPlugin), nil
	case <-ctx.Done():
		return InstalledPlugin{}, ctx.Err()
	}
}

// startCheck starts the plugin's check, or joins the one running.
func (c *Client) startCheck(id string) <-chan singleflight.Result {
	return c.checks.DoChan(id, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		return c.checkNow(ctx, id)
	})
}

// checkNow lists the plugin, refreshing an OAuth plugin's token once when
// the server refuses it with 401, and records the check.
func (c *Client) checkNow(ctx context.Context, id string) (InstalledPlugin, error) {
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err
	}
	if p.Disconnected() {
		return InstalledPlugin{}, &Error{Status: 409, Code: CodeDisconnected, Name: p.Name}
	}
	listed, lerr := c.lister().ListTools(ctx, p.URL, c.Headers(p, false))
	var ref *RefusalError
	if p.CredentialKind == CredentialOAuth && errors.As(lerr, &ref) && ref.StatusCode == 401 {
		np, refreshed, rerr := c.refresh(ctx, p)
		switch {
		case refreshed:
			p = np
			listed, lerr = c.lister().ListTools(ctx, p.URL, c.Headers(p, false))
		case rerr != nil && !errors.Is(rerr, errRefreshRefused) && ctx.Err() == nil:
			// The token endpoint could not be reached, or its host is off:
			// the sign-in stays as it was, and the check says the server
			// could not be listed rather than that the user signed out.
			lerr = &UnreachableError{URL: p.URL, Network: true, Err: rerr}
		}
	}
	if ctx.Err() != nil && lerr != nil {
		return InstalledPlugin{}, ctx.Err()
	}
	return c.record(ctx, id, listed, lerr)
}

// CheckStale checks, one at a time, every ready plugin whose last check is
// older than maxAge (the agent's checks: five minutes before a turn, 200
// seconds after one), and returns how many it listed. A plugin that is not
// ready is never contacted.
func (c *Client) CheckStale(ctx context.Context, maxAge time.Duration) (int, error) {
	rows, err := c.Store.Plugins(ctx)
	if err != nil {
		return 0, err
	}
	st, err := c.Store.Settings(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	now := c.now()
	for _, p := range rows {
		if !c.pluginReady(p, st) || now.Sub(p.CheckedAt) <= maxAge {
			continue
		}
		if _, err := c.Check(ctx, p.ID); err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			continue // a refusal of one plugin does not stop the others
		}
		n++
	}
	return n, nil
}

// record writes a check's outcome on the plugin's row, re-read under the
// lock so that the user's changes made during the listing are kept.
func (c *Client) record(ctx context.Context, id string, listed []*mcp.Tool, lerr error) (InstalledPlugin, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.row(ctx, id)
	if err != nil {
		return InstalledPlugin{}, err // removed while it was listed
	}
	if lerr != nil {
		p.CheckedAt = c.now()
		f := failureOf(lerr)
		// A check that cannot reach the server keeps a refused license as
		// it was, so a refused license never turns back into a plugin that
		// seems ready.
		if !(f == CheckUnreachable && p.CheckFailure.IsLicense()) {
			p.CheckFailure = f
		}
		if err := c.Store.PutPlugin(ctx, p); err != nil {
			return InstalledPlugin{}, err
		}
		return p, nil
	}
	return c.recordListingLocked(ctx, p, listed)
}

// recordListingLocked records a listing that answered on p, which the
// caller has re-read under c.mu: its tools as [RecordTools] says (every one
// on at the first listing that answered), the check passed.
func (c *Client) recordListingLocked(ctx context.Context, p InstalledPlugin, listed []*mcp.Tool) (InstalledPlugin, error) {
	now := c.now()
	p.CheckedAt = now
	old, err := c.Store.Tools(ctx, p.ID)
	if err != nil {
		return InstalledPlugin{}, err
	}
	tools := RecordTools(old, listed, now)
	if p.ListedAt.IsZero() && len(old) == 0 {
		// The first listing that answered: every tool starts on.
		tools = firstTools(listed, now)
		p.ListedAt = now
	}
	if err := c.Store.PutTools(ctx, p.ID, tools); err != nil {
		return InstalledPlugin{}, err
	}
	p.CheckFailure = CheckOK
	if err := c.Store.PutPlugin(ctx, p); err != nil {
		return InstalledPlugin{}, err
	}
	return p, nil
}

// RecordTools records a listing after the first (the app's
// recorded_tools.py): a new tool starts off, marked added; a tool whose
// description changed or whose annotations became less safe is switched
// off, marked changed; a tool the server dropped is deleted; any other keeps
// the user's settings and its mark, with its listing updated. Positions
// follow the server's order.
func RecordTools(old []PluginTool, listed []*mcp.Tool, now time.Time) []PluginTool {
	byName := make(map[string]PluginTool, len(old))
	for _, t := range old {
		byName[t.Name] = t
	}
	out := make([]PluginTool, 0, len(listed))
	for i, lt := range listed {
		fresh := listing(lt)
		prev, known := byName[lt.Name]
		var t PluginTool
		switch {
		case !known:
			t = fresh
			t.Enabled, t.Change = false, ChangeAdded
			t.Approval, t.Exposure, t.FirstSeenAt = ApprovalAsk, ExposureDirect, now
		default:
			t = prev
			changed := fresh.Description != prev.Description || fresh.Annotations.LessSafeThan(prev.Annotations)
			t.Title, t.Description, t.InputSchema, t.Annotations = fresh.Title, fresh.Description, fresh.InputSchema, fresh.Annotations
			if changed {
				t.Enabled = false
				if t.Change == ChangeNone {
					t.Change = ChangeChanged
				}
			}
		}
		t.Position = i
		out = append(out, t)
	}
	return out
}
