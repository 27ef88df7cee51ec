package walmart

import (
	"os"
	"path/filepath"
	"testing"
)

// fixture reads a real page saved under the shared fixtures folder
// (SCRAPER_FIXTURES_DIR, else ../shared/fixtures beside the repository), or
// skips the test when it is absent.
func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	dir := os.Getenv("SCRAPER_FIXTURES_DIR")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			tb.Skipf("shared fixtures not found (%v); set SCRAPER_FIXTURES_DIR", err)
		}
		dir = filepath.Join(root, "..", "shared", "fixtures")
	}
	b, err := os.ReadFile(filepath.Join(dir, "walmart", name))
	if err != nil {
		tb.Skipf("real fixture walmart/%s not available: %v", name, err)
	}
	return b
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() (string, error) {
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
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// testdata reads one of the package's own pages.
func testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// fixtureOrNil reads a real page for a fuzz seed, nil when absent.
func fixtureOrNil(name string) []byte {
	dir := os.Getenv("SCRAPER_FIXTURES_DIR")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return nil
		}
		dir = filepath.Join(root, "..", "shared", "fixtures")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "walmart", name))
	return b
}
