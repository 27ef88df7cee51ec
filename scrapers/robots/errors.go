package robots

import (
	"errors"
	"fmt"
)

// Sentinels the typed errors match with errors.Is.
var (
	// ErrDisallowed: robots.txt disallows the URL for the agent.
	ErrDisallowed = errors.New("disallowed by robots.txt")
	// ErrContentSignal: the site's Content-Signal asks that the URL not be
	// read as input for an AI agent (ai-input=no).
	ErrContentSignal = errors.New("refused by the site's Content-Signal")
	// ErrUnreachable: robots.txt could not be read (5xx, 429 or a network
	// error), so RFC 9309 asks that nothing be fetched until it can be.
	ErrUnreachable = errors.New("robots.txt unreachable")
)

// DisallowedError says robots.txt disallows a URL.
type DisallowedError struct {
	Host string // the URL's host (and port, when not the default)
	Path string // the URL's path and query, as asked
	Rule string // the deciding line, such as "Disallow: /private/"
}

func (e *DisallowedError) Error() string {
	return fmt.Sprintf("robots.txt of %s disallows %s", e.Host, e.Path)
}

// Is makes errors.Is(err, ErrDisallowed) true.
func (e *DisallowedError) Is(target error) bool { return target == ErrDisallowed }

// ContentSignalError says the site's Content-Signal refuses a URL to an
// agent.
type ContentSignalError struct {
	Host, Path string
	Signal     string // the key=value that refused it, such as "ai-input=no"
}

func (e *ContentSignalError) Error() string {
	return fmt.Sprintf("robots.txt of %s says Content-Signal %s for %s: the site asks that its pages not be read as input for an AI agent",
		e.Host, e.Signal, e.Path)
}

// Is makes errors.Is(err, ErrContentSignal) true.
func (e *ContentSignalError) Is(target error) bool { return target == ErrContentSignal }

// UnreachableError says robots.txt could not be read, so nothing on the
// host is fetched until it can be (RFC 9309 2.3.1.4).
type UnreachableError struct {
	Host  string
	Cause string // "HTTP 503", or the network error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("robots.txt of %s could not be read (%s); RFC 9309 asks that nothing on the site be fetched until it can, so try again in a few minutes",
		e.Host, e.Cause)
}

// Is makes errors.Is(err, ErrUnreachable) true.
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }
