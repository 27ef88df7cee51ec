package main

import (
	"os"
	"strings"
	"testing"
)

// A run as `go test -json` writes it: one package passes with a skip in a
// subtest, one fails, one has no test files; and a line that is not JSON.
const run = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"run","Package":"a","Test":"TestRedis"}
{"Action":"run","Package":"a","Test":"TestRedis/sub"}
{"Action":"output","Package":"a","Test":"TestRedis/sub","Output":"    redis_test.go:12: redis-server is not installed\n"}
{"Action":"output","Package":"a","Test":"TestRedis/sub","Output":"--- SKIP: TestRedis/sub (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestRedis/sub"}
{"Action":"pass","Package":"a","Test":"TestRedis"}
{"Action":"output","Package":"a","Output":"PASS\n"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}
{"Action":"pass","Package":"a"}
{"Action":"run","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"    b_test.go:9: want 2, got 3\n"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestBad"}
{"Action":"run","Package":"b","Test":"TestChrome"}
{"Action":"output","Package":"b","Test":"TestChrome","Output":"    b_test.go:20: chromium is not installed\n"}
{"Action":"output","Package":"b","Test":"TestChrome","Output":"--- SKIP: TestChrome (0.00s)\n"}
{"Action":"skip","Package":"b","Test":"TestChrome"}
{"Action":"run","Package":"b","Test":"TestRedis2"}
{"Action":"output","Package":"b","Test":"TestRedis2","Output":"    r_test.go:3: redis-server is not installed\n"}
{"Action":"output","Package":"b","Test":"TestRedis2","Output":"--- SKIP: TestRedis2 (0.00s)\n"}
{"Action":"skip","Package":"b","Test":"TestRedis2"}
{"Action":"output","Package":"b","Output":"FAIL\n"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.02s\n"}
{"Action":"fail","Package":"b"}
{"Action":"output","Package":"c","Output":"?   \tc\t[no test files]\n"}
{"Action":"skip","Package":"c"}
go: warning: not JSON
`

func Example() {
	summarise(strings.NewReader(run), os.Stdout)
	// Output:
	// ok  	a	0.01s
	//     b_test.go:9: want 2, got 3
	// --- FAIL: TestBad (0.00s)
	// FAIL
	// FAIL	b	0.02s
	// ?   	c	[no test files]
	// go: warning: not JSON
	// skipped: 3 tests (redis-server is not installed ×2; chromium is not installed ×1)
}

func TestNoSkips(t *testing.T) {
	var b strings.Builder
	if err := summarise(strings.NewReader(`{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}`+"\n"), &b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "ok  \ta\t0.01s\nskipped: 0 tests\n" {
		t.Errorf("got %q", got)
	}
}

// FuzzSummarise: any input, JSON or not, is copied or summarised without a
// panic, and the closing line is always the skip line.
func FuzzSummarise(f *testing.F) {
	f.Add(run)
	f.Add(`{"Action":"skip","Package":"a","Test":"T/x/y"}`)
	f.Add(`{"Action":"output","Test":"T","Output":"    a.go:1: ` + strings.Repeat("é", 200) + `\n"}` + "\n" + `{"Action":"skip","Test":"T"}`)
	f.Add("{not json\n\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		var b strings.Builder
		if err := summarise(strings.NewReader(in), &b); err != nil {
			return // a line longer than the scanner's buffer
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "skipped: ") {
			t.Fatalf("the last line is %q", last)
		}
	})
}
