package render

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Page is one rendered page.
type Page struct {
	URL       string // the document's URL when it was taken (after redirects and script navigation)
	Status    int    // the HTTP status of the main document
	HTML      string // document.documentElement.outerHTML, at most Config.MaxHTMLChars
	Truncated bool   // HTML was cut at Config.MaxHTMLChars
	// Slow is set when the page was taken at its time limit, still loading
	// or busy; Notes say so.
	Slow bool
	// Notes say which bounds the page hit and what was refused, in words.
	Notes    []string
	Requests int           // requests and tunnels the browser made for it
	Refused  int           // of which the address guard refused
	Bytes    int64         // bytes the browser received for it
	Took     time.Duration // the whole render
	// Screenshot is the page's picture when Options.Shot asked for one
	// and it was taken; ShotErr says why not otherwise.
	Screenshot *Screenshot
	ShotErr    string
}

var (
	errBrowserGone = errors.New("the browser crashed or stopped answering")
	errPageTimeout = errors.New("the page's render time ran out")
)

//go:embed page.js
var pageScript string

// permissions denied to every page.
var permissions = []string{"geolocation", "notifications", "camera", "microphone", "midi", "clipboard-read",
	"display-capture", "idle-detection", "local-fonts", "window-management", "storage-access", "persistent-storage",
	"background-sync", "push", "nfc", "local-network-access", "speaker-selection", "screen-wake-lock"}

// valuesFrom is a context whose deadline and cancel are the render's and
// whose values are the browser's, so that chromedp opens the tab in that
// browser while the call's end closes it.
type valuesFrom struct {
	context.Context
	vals context.Context
}

func (v valuesFrom) Value(k any) any { return v.vals.Value(k) }

// tabState is what the tab's events say, kept as they arrive.
type tabState struct {
	mu        sync.Mutex
	frame     string               // the main frame
	inflight  map[string]time.Time // request id → when it began
	lastNet   time.Time
	status    int
	docURL    string
	mimeType  string
	guarded   bool // the main document is the proxy's refusal
	dialogs   int
	popups    int
	crashed   bool
	navFailed string
}

func (s *tabState) on(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		s.inflight[string(ev.RequestID)] = now
		s.lastNet = now
	case *network.EventLoadingFinished:
		delete(s.inflight, string(ev.RequestID))
		s.lastNet = now
	case *network.EventLoadingFailed:
		delete(s.inflight, string(ev.RequestID))
		s.lastNet = now
	case *network.EventResponseReceived:
		s.lastNet = now
		if ev.Type == network.ResourceTypeDocument && ev.Response != nil && (s.frame == "" || string(ev.FrameID) == s.frame) {
			s.status = int(ev.Response.Status)
			s.docURL = ev.Response.URL
			s.mimeType = ev.Response.MimeType
			s.guarded = false
			for k, v := range ev.Response.Headers {
				if strings.EqualFold(k, guardHeader) && fmt.Sprint(v) != "" {
					s.guarded = true
				}
			}
		}
	case *page.EventJavascriptDialogOpening:
		s.dialogs++
	case *target.EventTargetCrashed:
		s.crashed = true
	}
}

// busy says how many requests younger than maxAge (half the page's time)
// are in flight. A request older than that (a long poll, a stream, a page
// that never ends) no longer holds the page back.
func (s *tabState) busy(maxAge time.Duration) (n int, lastNet time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.inflight {
		if time.Since(t) < maxAge {
			n++
		}
	}
	return n, s.lastNet
}

// pageProbe is what the page's own script reports while it settles.
type pageProbe struct {
	Ready  string  `json:"ready"`
	Timers int     `json:"timers"`
	IdleMS float64 `json:"idle_ms"`
}

type snapshot struct {
	URL       string `json:"url"`
	HTML      string `json:"html"`
	Truncated bool   `json:"truncated"`
}

// renderOn renders pageURL in a new tab of b.
func (r *Renderer) renderOn(ctx context.Context, b *browserProc, pageURL string, opts Options) (*Page, error) {
	began := time.Now()
	budget := r.cfg.PageTimeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - 300*time.Millisecond; left < budget {
			budget = left
		}
	}
	if budget < 500*time.Millisecond {
		return nil, fmt.Errorf("no time left to render %s: %w", pageURL, errPageTimeout)
	}
	pctx, cancel := context.WithTimeoutCause(ctx, budget, errPageTimeout)
	defer cancel()

	px, err := startProxy(pctx, r.g, r.cfg.Limits, r.cfg.Site, r.cfg.Upstream)
	if err != nil {
		return nil, err
	}
	defer px.close()

	st := &tabState{inflight: map[string]time.Time{}}
	tabParent, stopTab := context.WithCancel(pctx)
	defer stopTab()
	stopWatch := context.AfterFunc(b.ctx, stopTab)
	defer stopWatch()
	tctx, cancelTab := chromedp.NewContext(valuesFrom{tabParent, b.ctx},
		chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
			p.ProxyServer = px.URL()
			p.ProxyBypassList = "<-loopback>"
		}),
		chromedp.WithListener(st.on),
	)
	defer func() {
		// The tab closes at once either way; a call that has ended does
		// not wait to see it gone.
		wait := 2 * time.Second
		if ctx.Err() != nil {
			wait = 0
		}
		closeTab(cancelTab, wait)
	}()

	fail := func(err error) (*Page, error) {
		return nil, r.classify(ctx, pctx, b, st, pageURL, err)
	}
	if err := chromedp.Do(tctx); err != nil {
		return fail(err)
	}
	c := chromedp.FromContext(tctx)
	bcID, tabID := c.BrowserContextID, c.Target.TargetID
	if err := r.lockDown(tctx, bcID, tabID, st); err != nil {
		return fail(err)
	}
	var shot Shot
	if opts.Shot != nil {
		shot = opts.Shot.withDefaults()
		if err := sizeWindow(tctx, shot); err != nil {
			return fail(err)
		}
	}

	nav, err := chromedp.Call(tctx, page.Navigate, page.NavigateParams{URL: pageURL})
	if err != nil {
		return fail(err)
	}
	st.mu.Lock()
	st.frame = string(nav.FrameID)
	st.mu.Unlock()
	if nav.IsDownload {
		return fail(fmt.Errorf("%s is a download, which the renderer refuses", pageURL))
	}
	if nav.ErrorText != "" {
		if why := r.refusalOf(px, pageURL, st); why != "" {
			return fail(fmt.Errorf("%s: %w: %s", pageURL, ErrRefused, why))
		}
		return fail(fmt.Errorf("the browser could not load %s: %s", pageURL, nav.ErrorText))
	}

	// Wait until the page is quiet, or its time is nearly up.
	reserve := min(budget/5, 2*time.Second)
	if opts.Shot != nil {
		reserve += min(budget/5, 3*time.Second) // the screenshot's own time
	}
	takeBy := began.Add(budget - reserve)
	slow := false
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if time.Now().After(takeBy) {
			slow = true
			break
		}
		probe, err := chromedp.Run(tctx, chromedp.Evaluate[pageProbe](`window.__surfsenseProbe ? window.__surfsenseProbe() : {ready: document.readyState, timers: 0, idle_ms: 1e9}`))
		if err != nil && !isTransient(err) {
			return fail(err)
		}
		n, lastNet := st.busy(max(3*time.Second, budget/2))
		if err == nil && probe.Ready == "complete" && probe.Timers == 0 && probe.IdleMS >= float64(r.cfg.Quiet/time.Millisecond) &&
			n == 0 && time.Since(lastNet) >= r.cfg.Quiet {
			break
		}
		select {
		case <-tick.C:
		case <-tctx.Done():
			return fail(context.Cause(tctx))
		}
	}

	snap, err := chromedp.Run(tctx, chromedp.Evaluate[snapshot](fmt.Sprintf(`(() => {
		const d = document.documentElement, h = d ? d.outerHTML : "", n = %d;
		return {url: location.href, html: h.length > n ? h.slice(0, n) : h, truncated: h.length > n};
	})()`, r.cfg.MaxHTMLChars)))
	if err != nil {
		return fail(err)
	}
	st.mu.Lock()
	status, mt, guarded, dialogs, popups := st.status, st.mimeType, st.guarded, st.dialogs, st.popups
	st.mu.Unlock()
	if guarded {
		why := r.refusalOf(px, snap.URL, st)
		if why == "" {
			why = "the page or a redirect led to an address the renderer may not reach"
		}
		return fail(fmt.Errorf("%s: %w: %s", pageURL, ErrRefused, why))
	}
	if u, err := url.Parse(snap.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fail(fmt.Errorf("%s ended on %q, which is not a web page", pageURL, snap.URL))
	}
	if mt != "" {
		if m, _, _ := mime.ParseMediaType(mt); m != "text/html" && m != "application/xhtml+xml" && m != "text/plain" {
			return fail(fmt.Errorf("%s is not a web page (content type %s)", pageURL, m))
		}
	}
	p := &Page{URL: snap.URL, Status: status, HTML: snap.HTML, Truncated: snap.Truncated, Slow: slow,
		Requests: int(px.requests.Load()), Refused: int(px.refused.Load()), Bytes: px.bytes.Load()}
	if slow {
		p.Notes = append(p.Notes, fmt.Sprintf("the page was still loading after %s; it is taken as it was then", budget.Round(100*time.Millisecond)))
	}
	if p.Truncated {
		p.Notes = append(p.Notes, fmt.Sprintf("the rendered HTML was cut at %d characters", r.cfg.MaxHTMLChars))
	}
	if p.Refused > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d requests of the page were refused by the address guard", p.Refused))
	}
	if px.overReqs.Load() {
		p.Notes = append(p.Notes, fmt.Sprintf("the page made more than %d requests; the rest were refused", r.cfg.Limits.MaxRequests))
	}
	if px.overSize.Load() {
		p.Notes = append(p.Notes, fmt.Sprintf("the page received more than %d MiB; the rest was cut", r.cfg.Limits.MaxBytes>>20))
	}
	if popups > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d popups were closed", popups))
	}
	if dialogs > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d dialogs were dismissed", dialogs))
	}
	if opts.Shot != nil {
		if p.Screenshot, err = capture(tctx, shot); err != nil {
			if tctx.Err() != nil {
				err = fmt.Errorf("the page's render time ran out before its screenshot was taken")
			}
			p.ShotErr = err.Error()
		}
	}
	p.Took = time.Since(began)
	return p, nil
}

// lockDown applies what every page gets before it loads: no downloads, no
// permissions, no popups or dialogs, no cache or service workers, and the
// probe script that tells when the page is quiet.
func (r *Renderer) lockDown(ctx context.Context, bcID cdp.BrowserContextID, tabID target.ID, st *tabState) error {
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: bcID}); err != nil {
		return err
	}
	for _, name := range permissions {
		// Names this browser does not know are refused; the rest are denied.
		_, _ = chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingDenied, BrowserContextID: bcID})
	}
	// A popup opened in spite of window.open's removal is closed at once.
	if err := chromedp.ListenBrowser(ctx, func(ev any) {
		e, ok := ev.(*target.EventTargetCreated)
		if !ok || e.TargetInfo == nil || e.TargetInfo.Type != "page" || e.TargetInfo.BrowserContextID != bcID || e.TargetInfo.TargetID == tabID {
			return
		}
		st.mu.Lock()
		st.popups++
		st.mu.Unlock()
		id := e.TargetInfo.TargetID
		go func() { _, _ = chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: id}) }()
	}); err != nil {
		return err
	}
	// Dialogs (alert, confirm, beforeunload) are dismissed.
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go func() {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
		}
	}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		return err
	}
	if r.cfg.UserAgent != "" {
		if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: r.cfg.UserAgent, AcceptLanguage: "en-US,en;q=0.8"}); err != nil {
			return err
		}
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageScript}); err != nil {
		return err
	}
	return nil
}

// refusalOf says why the guard refused the page (or the redirect it led
// to), or "".
func (r *Renderer) refusalOf(px *proxy, pageURL string, st *tabState) string {
	for _, raw := range []string{st.docURLOr(pageURL), pageURL} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			if why := px.refusalFor(hostPort(u)); why != "" {
				return why
			}
		}
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	for hp, why := range px.refusals {
		return hp + ": " + why
	}
	return ""
}

func (s *tabState) docURLOr(def string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docURL != "" {
		return s.docURL
	}
	return def
}

// classify turns a failed render into the error the caller sees, and drops
// a browser that crashed or stopped answering.
func (r *Renderer) classify(ctx, pctx context.Context, b *browserProc, st *tabState, pageURL string, err error) error {
	if errors.Is(err, ErrRefused) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("rendering %s stopped: %w", pageURL, context.Cause(ctx))
	}
	if browserLost(b, err) {
		r.drop(b, "the browser exited or its connection was lost")
		return fmt.Errorf("rendering %s: %w (%v)", pageURL, errBrowserGone, err)
	}
	st.mu.Lock()
	crashed := st.crashed
	st.mu.Unlock()
	if crashed {
		return fmt.Errorf("the page %s crashed its tab", pageURL)
	}
	if pctx.Err() != nil {
		// The page's time ran out: is the browser still there?
		if !b.alive(3 * time.Second) {
			r.drop(b, "the browser stopped answering")
			return fmt.Errorf("rendering %s: %w", pageURL, errBrowserGone)
		}
		return fmt.Errorf("%s did not load within %s: %w", pageURL, r.cfg.PageTimeout, errPageTimeout)
	}
	return fmt.Errorf("rendering %s: %w", pageURL, err)
}

// isTransient says whether an evaluation failed only because the page was
// navigating (its context went away).
func isTransient(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Execution context was destroyed") || strings.Contains(s, "Cannot find context") ||
		strings.Contains(s, "Inspected target navigated or closed")
}

// closeTab closes the tab and disposes its browser context, waiting a
// little; a hung browser does not hold the caller.
func closeTab(cancel context.CancelFunc, wait time.Duration) {
	done := make(chan struct{})
	go func() { cancel(); close(done) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// browserLost says whether err came from losing the browser: its context
// ended, or the call says so before the allocator has ended that context.
func browserLost(b *browserProc, err error) bool {
	if b.ctx.Err() != nil {
		return true
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) || strings.Contains(err.Error(), "lost the connection to the browser") {
		return true
	}
	select { // the allocator's cancel may be a moment behind the call's error
	case <-b.ctx.Done():
		return true
	case <-time.After(100 * time.Millisecond):
		return false
	}
}
