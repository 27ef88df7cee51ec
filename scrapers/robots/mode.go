package robots

import (
	"fmt"
	"strings"
)

// ParseMode reads the ROBOTS_TXT setting: "" or "obey" (the default) obeys
// robots.txt, "ignore" sets it aside for sites the operator owns.
func ParseMode(s string) (ignore bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "obey":
		return false, nil
	case "ignore":
		return true, nil
	}
	return false, fmt.Errorf("ROBOTS_TXT=%q is not a mode: use \"obey\" (the default: robots.txt is followed) or \"ignore\" (only for sites you own)", s)
}
