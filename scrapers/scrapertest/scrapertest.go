// Package scrapertest holds what the scraper sites' tests share: the shared
// real-page fixtures (found beside the repository, the test skipped when they
// are absent), a package's own testdata, plugins built against stand-in
// origins, running a tool the way the host does, and reading what it gives,
// from a [scrapers.Call] or from an MCP tool result.
//
// Tests import it, a site's internal tests included, so it must not import
// the host: host imports scrapers/all, which imports every site, and an
// internal test of a site importing the site again is an import cycle. The
// end-to-end tests that run a real host (host/hosttest) live in external
// test packages (package amazon_test) for the same reason.
package scrapertest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FixturesEnv names the variable that, when set, is the shared fixtures
// folder; unset, the folder is ../shared/fixtures beside the repository root.
const FixturesEnv = "SCRAPER_FIXTURES_DIR"

// RepoRoot walks up from the working directory (a test's is its package's
// folder) to the folder holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FixturesDir returns the shared real-page fixtures folder: $SCRAPER_FIXTURES_DIR,
// or ../shared/fixtures beside the repository root. It does not check that
// the folder exists.
func FixturesDir() (string, error) {
	if d := os.Getenv(FixturesEnv); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "..", "shared", "fixtures"), nil
}

// ReadFixture reads the shared fixture rel (a path inside the fixtures
// folder: "amazon/search.html"). It never skips, so it is safe off the
// test's goroutine (in a stand-in's handler) and for fuzz seeds.
func ReadFixture(rel string) ([]byte, error) {
	dir, err := FixturesDir()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, rel))
}

// ReadGzip reads the gzip file at path whole, uncompressed (the
// development sets keep their pages so).
func ReadGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, zr); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Fixture reads the shared fixture rel, skipping the test when it is absent.
func Fixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := ReadFixture(rel)
	if err != nil {
		tb.Skipf("real fixture %s not available (set %s or put the shared fixtures at ../shared/fixtures beside the repository): %v", rel, FixturesEnv, err)
	}
	return b
}

// RequireFixtures returns the shared fixtures folder, skipping the test when
// it is not there.
func RequireFixtures(tb testing.TB) string {
	tb.Helper()
	dir, err := FixturesDir()
	if err == nil {
		_, err = os.Stat(dir)
	}
	if err != nil {
		tb.Skipf("real fixtures not available (set %s or put the shared fixtures at ../shared/fixtures beside the repository): %v", FixturesEnv, err)
	}
	return dir
}

// Testdata reads the package's own testdata/name, failing the test when it
// cannot.
func Testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
