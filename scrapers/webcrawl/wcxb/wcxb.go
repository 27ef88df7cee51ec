// Package wcxb reads the WCXB development split (real pages with
// human-reviewed main content, ../shared/fixtures/wcxb-dev) and scores
// extracted text exactly as the benchmark's evaluate.py does: word-level F1
// of lower-cased \w+ tokens as a bag of words, averaged over pages, overall
// and per page type.
package wcxb

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// Page is one page of the split and its ground truth.
type Page struct {
	ID        string // "0001"
	URL       string
	Type      string // article, service, product, collection, forum, listing, documentation
	Reference string // the main content as plain text
	With      []string
	Without   []string
	Title     string
}

// Types are the page types in the benchmark's order.
var Types = []string{"article", "forum", "product", "collection", "listing", "documentation", "service"}

type groundTruth struct {
	URL      string `json:"url"`
	Internal struct {
		PageType json.RawMessage `json:"page_type"`
	} `json:"_internal"`
	GroundTruth struct {
		Title       string   `json:"title"`
		MainContent string   `json:"main_content"`
		With        []string `json:"with"`
		Without     []string `json:"without"`
	} `json:"ground_truth"`
}

// Load reads every page's ground truth under dir (the wcxb-dev folder),
// sorted by id. The HTML is read separately with [HTML].
func Load(dir string) ([]Page, error) {
	files, err := filepath.Glob(filepath.Join(dir, "dev", "ground-truth", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("wcxb: no ground truth under %s", dir)
	}
	sort.Strings(files)
	pages := make([]Page, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var gt groundTruth
		if err := json.Unmarshal(b, &gt); err != nil {
			return nil, fmt.Errorf("wcxb: %s: %w", f, err)
		}
		pages = append(pages, Page{
			ID:        strings.TrimSuffix(filepath.Base(f), ".json"),
			URL:       gt.URL,
			Type:      pageType(gt.Internal.PageType),
			Reference: gt.GroundTruth.MainContent,
			With:      gt.GroundTruth.With,
			Without:   gt.GroundTruth.Without,
			Title:     gt.GroundTruth.Title,
		})
	}
	return pages, nil
}

// pageType reads _internal.page_type as evaluate.py does: its primary
// member (or the string itself), article when absent, category as collection.
func pageType(raw json.RawMessage) string {
	pt := "article"
	var obj struct {
		Primary *string `json:"primary"`
	}
	var s string
	switch {
	case json.Unmarshal(raw, &obj) == nil && obj.Primary != nil:
		pt = *obj.Primary
	case json.Unmarshal(raw, &s) == nil:
		pt = s
	}
	if pt == "category" {
		pt = "collection"
	}
	return pt
}

// HTML reads one page's saved HTML.
func HTML(dir, id string) ([]byte, error) {
	return scrapertest.ReadGzip(filepath.Join(dir, "dev", "html", id+".html.gz"))
}
