// Command testsummary reads `go test -json` on its standard input and writes
// what `go test` without -json writes (each package's closing line, the
// output of failed tests, build errors), then one line that counts the tests
// that skipped and says why, grouped by reason. .ci/run pipes the whole run
// through it, so that a green run says what it did not run.
//
//	go test -json ./... | go run ./internal/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	if err := summarise(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json), with the build
// events of `go build -json`.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// maxReasons is how many distinct skip reasons the closing line names.
const maxReasons = 8

// logLine is a test's log line as go test prints it: "    file_test.go:12: msg".
var logLine = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)

// summarise copies the run from r to w as go test would print it and
// closes with the skip line.
func summarise(r io.Reader, out io.Writer) error {
	w := &lineEnd{w: out, ended: true}
	type key struct{ pkg, test string }
	held := map[key][]string{} // a top-level test's lines, printed if it fails
	reasons := map[string]int{}
	skipped := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not JSON: the go command's own words
			continue
		}
		top := e.Test
		if i := strings.IndexByte(top, '/'); i >= 0 {
			top = top[:i]
		}
		k := key{e.Package, top}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "output" && e.Test == "":
			if o := strings.TrimSpace(e.Output); o != "PASS" && !strings.HasPrefix(o, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") {
				held[k] = append(held[k], e.Output)
			}
		case e.Action == "skip" && e.Test != "":
			skipped++
			reasons[skipReason(held[k], e.Test)]++
			if e.Test == top {
				delete(held, k)
			}
		case e.Action == "fail" && e.Test != "" && e.Test == top:
			for _, o := range held[k] {
				fmt.Fprint(w, o)
			}
			delete(held, k)
		case e.Action == "pass" && e.Test != "" && e.Test == top:
			delete(held, k)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if !w.ended { // output cut mid-line (a test binary that died)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, skipLine(skipped, reasons))
	return nil
}

// lineEnd is a writer that knows whether what it wrote ends a line.
type lineEnd struct {
	w     io.Writer
	ended bool
}

func (l *lineEnd) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.ended = p[len(p)-1] == '\n'
	}
	return l.w.Write(p)
}

// skipReason is the message of test's t.Skip: the last log line before its
// "--- SKIP: test" line.
func skipReason(lines []string, test string) string {
	reason := "no reason given"
	for _, l := range lines {
		if strings.Contains(l, "--- SKIP: "+test+" ") {
			break
		}
		if m := logLine.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
			reason = m[1]
		}
	}
	if r := []rune(reason); len(r) > 100 {
		reason = string(r[:99]) + "…"
	}
	return reason
}

// skipLine is the closing line: "skipped: N tests (reason ×n; …)".
func skipLine(n int, reasons map[string]int) string {
	if n == 0 {
		return "skipped: 0 tests"
	}
	type rc struct {
		r string
		n int
	}
	var all []rc
	for r, c := range reasons {
		all = append(all, rc{r, c})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].r < all[j].r
	})
	var parts []string
	for i, x := range all {
		if i == maxReasons {
			parts = append(parts, fmt.Sprintf("and %d other reasons", len(all)-maxReasons))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", x.r, x.n))
	}
	s := "tests"
	if n == 1 {
		s = "test"
	}
	return fmt.Sprintf("skipped: %d %s (%s)", n, s, strings.Join(parts, "; "))
}
