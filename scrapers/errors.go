package scrapers

import (
	"errors"
	"fmt"
)

// ArgError is a bad argument: the tool error names the argument and the rule.
type ArgError struct {
	Arg  string // the argument's name as the schema spells it (start_urls, max_items)
	Rule string // the rule it broke, in words ("must be between 1 and 20")
}

func (e *ArgError) Error() string { return fmt.Sprintf("invalid argument %s: %s", e.Arg, e.Rule) }

// Argf returns an *ArgError for arg with a formatted rule.
func Argf(arg, format string, a ...any) error {
	return &ArgError{Arg: arg, Rule: fmt.Sprintf(format, a...)}
}

// Block kinds a site can answer with instead of content.
const (
	BlockCaptcha     = "captcha"
	BlockConsentWall = "consent wall"
	BlockRobotCheck  = "robot check"
	BlockLoginWall   = "login wall"
	BlockRateLimited = "rate limited"
)

// BlockedError says a site answered with a block page instead of content.
type BlockedError struct {
	Site string // the plugin id or site name (Amazon, Google)
	Kind string // one of the Block* kinds
	URL  string // the page that was blocked, when known
}

func (e *BlockedError) Error() string {
	msg := fmt.Sprintf("%s blocked the request with a %s", e.Site, e.Kind)
	if e.URL != "" {
		msg += " (" + e.URL + ")"
	}
	return msg + "; try again later"
}

// SiteError says a site was down, answered with an error, or was too slow.
type SiteError struct {
	Site   string
	URL    string
	Status int // HTTP status, 0 when none came
	Err    error
}

func (e *SiteError) Error() string {
	var held *HeldError
	switch {
	case errors.As(e.Err, &held):
		return fmt.Sprintf("%s was not asked for %s: %v", e.Site, e.URL, e.Err)
	case e.Status != 0:
		return fmt.Sprintf("%s answered HTTP %d for %s", e.Site, e.Status, e.URL)
	case e.Err != nil:
		return fmt.Sprintf("%s could not be reached for %s: %v", e.Site, e.URL, e.Err)
	default:
		return fmt.Sprintf("%s failed for %s", e.Site, e.URL)
	}
}

func (e *SiteError) Unwrap() error { return e.Err }

// ErrCancelled is the cause given to a call's context when POST /cancel ends it.
var ErrCancelled = errors.New("the call was cancelled")

// ErrShuttingDown is the cause given when the host stops and the drain ran out.
var ErrShuttingDown = errors.New("the plugin host is shutting down; call again")
