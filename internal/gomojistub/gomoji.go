// Package gomoji stands in for github.com/forPelevin/gomoji, whose emoji
// table (about 1 MB of maps built at every start) the host would hold for a
// function go-trafilatura calls only to clean author names, which web-crawl
// never reads from it. RemoveEmojis drops the same characters by their
// Unicode ranges instead of by a table.
package gomoji

import (
	"strings"
	"unicode"
)

// RemoveEmojis returns s without emoji: pictographs and symbols (Unicode's
// So category outside the letterlike and arrow blocks, the emoji blocks),
// regional indicators, skin-tone modifiers, variation selectors and the
// zero-width joiner that binds emoji sequences.
func RemoveEmojis(s string) string {
	return strings.Map(func(r rune) rune {
		if isEmoji(r) {
			return -1
		}
		return r
	}, s)
}

func isEmoji(r rune) bool {
	switch {
	case r == 0x200D, r == 0x20E3, r >= 0xFE00 && r <= 0xFE0F: // ZWJ, keycap, variation selectors
		return true
	case r >= 0x1F000 && r <= 0x1FAFF: // mahjong … symbols and pictographs extended-A
		return true
	case r >= 0x1F1E6 && r <= 0x1F1FF, r >= 0x1F3FB && r <= 0x1F3FF: // regional indicators, skin tones
		return true
	case r >= 0xE0020 && r <= 0xE007F: // tag characters (flag sequences)
		return true
	case r >= 0x2600 && r <= 0x27BF: // miscellaneous symbols, dingbats
		return true
	case r >= 0x2B00 && r <= 0x2BFF && unicode.Is(unicode.So, r): // stars, squares
		return true
	}
	return false
}
