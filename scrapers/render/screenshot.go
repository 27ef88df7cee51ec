package render

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Defaults of a Shot.
const (
	DefaultShotWidth     = 1280
	DefaultShotMaxHeight = 8000
	DefaultShotMaxBytes  = 5_000_000
	// shotViewHeight is the window's height while the page loads (what
	// "above the fold" means to its scripts and lazy images).
	shotViewHeight = 900
)

// Shot asks a render for a screenshot of the page: a PNG of the page's
// whole width from its top, at most MaxHeight pixels high and MaxBytes
// large. A page taller is cut at MaxHeight; a picture larger is cut shorter
// until it fits. Either cut is said in the Screenshot's Notes.
type Shot struct {
	Width     int // the window's width in CSS pixels (DefaultShotWidth)
	MaxHeight int // DefaultShotMaxHeight
	MaxBytes  int // DefaultShotMaxBytes
}

func (s Shot) withDefaults() Shot {
	if s.Width <= 0 {
		s.Width = DefaultShotWidth
	}
	if s.MaxHeight <= 0 {
		s.MaxHeight = DefaultShotMaxHeight
	}
	if s.MaxBytes <= 0 {
		s.MaxBytes = DefaultShotMaxBytes
	}
	return s
}

// Screenshot is a picture of a rendered page.
type Screenshot struct {
	PNG        []byte
	Width      int      // of the picture, in pixels
	Height     int      // of the picture
	PageHeight int      // of the whole page
	Notes      []string // what was cut, in words
}

// Options are what one render is asked beyond the page's HTML.
type Options struct {
	// Shot, when set, asks for a screenshot (Page.Screenshot).
	Shot *Shot
}

// sizeWindow gives the tab the screenshot's width before the page loads,
// so that the page lays itself out for it.
func sizeWindow(ctx context.Context, s Shot) error {
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(s.Width), Height: shotViewHeight, DeviceScaleFactor: 1, Mobile: false})
	return err
}

// capture takes the screenshot of the page loaded in ctx's tab.
func capture(ctx context.Context, s Shot) (*Screenshot, error) {
	full, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.ceil(Math.max(
		document.documentElement ? document.documentElement.scrollHeight : 0,
		document.body ? document.body.scrollHeight : 0, 1))`))
	if err != nil {
		return nil, fmt.Errorf("the page's height could not be read: %w", err)
	}
	shot := &Screenshot{Width: s.Width, PageHeight: int(full)}
	h := min(int(full), s.MaxHeight)
	if int(full) > s.MaxHeight {
		shot.Notes = append(shot.Notes, fmt.Sprintf("the page is %d px high; the screenshot shows its first %d px", int(full), s.MaxHeight))
	}
	for range 4 {
		res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			Clip:                  &page.Viewport{Width: float64(s.Width), Height: float64(h), Scale: 1},
			CaptureBeyondViewport: ptr(true),
			FromSurface:           ptr(true),
		})
		if err != nil {
			return nil, fmt.Errorf("the screenshot failed: %w", err)
		}
		if len(res.Data) <= s.MaxBytes {
			shot.PNG, shot.Height = res.Data, h
			return shot, nil
		}
		cut := max(1, int(float64(h)*float64(s.MaxBytes)/float64(len(res.Data))*0.9))
		shot.Notes = append(shot.Notes, fmt.Sprintf("the screenshot %d px high took %.1f MB, more than %.1f MB; it was cut to %d px",
			h, float64(len(res.Data))/1e6, float64(s.MaxBytes)/1e6, cut))
		h = cut
	}
	return nil, fmt.Errorf("the screenshot stayed larger than %.1f MB however it was cut", float64(s.MaxBytes)/1e6)
}

func ptr[T any](v T) *T { return &v }
