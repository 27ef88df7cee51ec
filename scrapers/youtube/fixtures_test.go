package youtube

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedFixture reads a real page from the shared fixtures folder beside the
// repository (../shared/fixtures/youtube from the directory holding go.mod),
// or from $SCRAPER_FIXTURES_DIR/youtube. The test is skipped when it is absent.
func sharedFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	var dirs []string
	if d := os.Getenv("SCRAPER_FIXTURES_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "youtube"))
	}
	if root := repoRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, "..", "shared", "fixtures", "youtube"))
	}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, name))
		if err == nil {
			return b
		}
	}
	tb.Skipf("shared fixture youtube/%s is absent (looked in %v); set SCRAPER_FIXTURES_DIR to run this test", name, dirs)
	return nil
}

// repoRoot walks up from the test's directory to the one holding go.mod.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// testdata reads one of this package's own fixtures.
func testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
