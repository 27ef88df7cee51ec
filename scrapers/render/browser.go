package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// blackHoleProxy is the browser-wide proxy of a local Chromium: a discard
// port nothing listens on, so that anything outside the per-render browser
// contexts (which name their own guarded proxy) reaches nothing.
const blackHoleProxy = "http://127.0.0.1:9"

// browserProc is one browser: a process the renderer started or a
// connection to one beside the host. A crashed or hung one is dropped and
// the next render gets a new one.
type browserProc struct {
	gen     int
	ctx     context.Context // the chromedp context holding the browser
	cancel  func()
	product string // Chrome/156.0…
	pid     int    // 0 for a remote browser
	dir     string // a local browser's profile, removed when it stops
}

// GuardFlags are the Chromium switches every renderer's browser runs with,
// local or beside the host (deploy/ passes the same to the browser
// container; deploy_test.go checks): no QUIC, no background traffic, no
// popups, no permission prompts, no WebRTC outside the proxy, a browser-wide
// proxy that reaches nothing (only the per-render browser contexts name the
// guarded one, loopback included), and no name resolution of its own (the
// proxy resolves and judges).
var GuardFlags = []string{
	"--disable-quic",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-domain-reliability",
	"--no-pings",
	"--block-new-web-contents",
	"--deny-permission-prompts",
	"--disable-notifications",
	"--mute-audio",
	"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--proxy-server=" + blackHoleProxy,
	"--proxy-bypass-list=<-loopback>",
	"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
	"--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,DnsOverHttps",
}

// localFlags are the options of a local Chromium: chromedp's defaults
// (headless, no first run, a fresh temporary profile, --no-sandbox as root),
// no GPU, popups blocked, and GuardFlags.
func localFlags(bin string) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromedp.ExecPath(bin), chromedp.DisableGPU, chromedp.Flag("disable-popup-blocking", false))
	for _, f := range GuardFlags {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if hasValue {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	return opts
}

// start starts (or attaches to) a browser and waits until it answers.
func (r *Renderer) start(gen int) (*browserProc, error) {
	var allocCtx context.Context
	var allocCancel context.CancelFunc
	if r.cfg.URL != "" {
		allocCtx, allocCancel = remote.NewAllocator(context.Background(), r.cfg.URL, remote.WithDialTimeout(10*time.Second))
	}
	var dir string
	if r.cfg.URL == "" {
		// A fresh profile per browser, ours to remove: a browser that is
		// killed (crashed, hung) leaves none behind.
		var err error
		if dir, err = os.MkdirTemp("", "pluginhost-render-"); err != nil {
			return nil, r.startError(err)
		}
		allocCtx, allocCancel = chromedp.NewExecAllocator(context.Background(), append(localFlags(r.cfg.Bin), chromedp.UserDataDir(dir))...)
	}
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browserProc{gen: gen, ctx: ctx, cancel: func() { cancel(); allocCancel() }, dir: dir}
	started := make(chan error, 1)
	go func() {
		if err := chromedp.Do(ctx); err != nil {
			started <- err
			return
		}
		v, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
		if err == nil {
			b.product = v.Product
		}
		started <- err
	}()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			b.stop()
			return nil, r.startError(err)
		}
	case <-timer.C:
		b.stop()
		return nil, r.startError(errors.New("it did not answer within 30s"))
	}
	if p := chromedp.FromContext(ctx).Browser.Process(); p != nil {
		b.pid = p.Pid
	}
	return b, nil
}

func (r *Renderer) startError(err error) error {
	if r.cfg.URL != "" {
		return fmt.Errorf("the browser at RENDERER_URL (%s) cannot be reached: %v; check that the browser container runs and shares the host's network", r.cfg.URL, err)
	}
	return fmt.Errorf("the local Chromium (CHROMIUM_BIN=%s) did not start: %v", r.cfg.Bin, err)
}

// alive reports whether the browser still answers, within d.
func (b *browserProc) alive(d time.Duration) bool {
	if b.ctx.Err() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
	return err == nil
}

// stop ends the browser: a local process is killed if it does not close.
func (b *browserProc) stop() {
	done := make(chan struct{})
	go func() { b.cancel(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		if b.pid > 0 {
			if p, err := os.FindProcess(b.pid); err == nil {
				_ = p.Kill()
			}
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	if b.dir != "" {
		// Its child processes may write a moment after it exits.
		for range 50 {
			if os.RemoveAll(b.dir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
