package registry

import (
	"fmt"
	"strings"
)

// ListLabel is the entry part of a problem with the file as a whole
// (schema_version, generated_at, malformed JSON).
const ListLabel = "(list)"

// Problem is one broken rule: the entry it concerns (its id, or
// plugins[i] / removed[i] when the id itself is unusable, or [ListLabel]),
// the field (dotted, with indexes: auth.title, hosts[1]) and what is wrong.
type Problem struct {
	Entry   string
	Field   string
	Message string
}

// String formats the problem as "<entry>: <field>: <problem>".
func (p Problem) String() string {
	return p.Entry + ": " + p.Field + ": " + p.Message
}

// Problems are every rule a list breaks, in the order found. A nil or empty
// Problems means the list passed.
type Problems []Problem

// Error lists the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns ps as an error, or nil when there are none.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// add appends a problem; format follows fmt.Sprintf.
func (ps *Problems) add(entry, field, format string, args ...any) {
	*ps = append(*ps, Problem{Entry: entry, Field: field, Message: fmt.Sprintf(format, args...)})
}
