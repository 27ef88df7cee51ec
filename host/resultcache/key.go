package resultcache

import (
	"crypto/sha256"
	"encoding/hex"
)

// Key names a question: the plugin, the tool and the call's canonical
// arguments (the tool's own encoding of its decoded arguments, defaults
// filled, so that two spellings of one question share a key). It is a hash,
// so that a key is short whatever the arguments.
func Key(plugin, tool string, canonicalArgs []byte) string {
	h := sha256.New()
	h.Write([]byte(plugin))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonicalArgs)
	return hex.EncodeToString(h.Sum(nil))
}
