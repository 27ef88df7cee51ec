// Package trafdev reads the multilingual main-content development set
// (../shared/fixtures/traf-dev: real pages, mostly not English, each with
// snippets of main content that must appear and of boilerplate that must
// not) and scores extracted text as trafilatura's tests/eval_common.py
// does: whitespace normalised, snippets matched as substrings, true and
// false positives and negatives summed over all pages.
package trafdev

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// Page is one page of the set and its snippets.
type Page struct {
	ID      string // "001f43cb87b4"
	URL     string
	With    []string // main content: must be found
	Without []string // boilerplate: must not be found
}

// Load reads the set's snippets under dir (the traf-dev folder), sorted by
// id. The HTML is read separately with [HTML].
func Load(dir string) ([]Page, error) {
	b, err := os.ReadFile(filepath.Join(dir, "evaldata-dev.json"))
	if err != nil {
		return nil, err
	}
	var raw map[string]struct {
		URL     string   `json:"url"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("trafdev: %s: %w", dir, err)
	}
	pages := make([]Page, 0, len(raw))
	for id, r := range raw {
		pages = append(pages, Page{ID: id, URL: r.URL, With: r.With, Without: r.Without})
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("trafdev: no pages in %s", dir)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].ID < pages[j].ID })
	return pages, nil
}

// HTML reads one page's saved bytes (any charset: none is declared to the
// extractor, which decides).
func HTML(dir, id string) ([]byte, error) {
	return scrapertest.ReadGzip(filepath.Join(dir, "pages", id+".html.gz"))
}

// Normalize turns every run of white space into one space and trims the
// ends, as the scoring does to the text and to each snippet.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// Count is a page's (or a set's) snippets found and missed.
type Count struct {
	TP, FP, FN, TN int
}

// Score counts p's snippets in text (plain text, not yet normalised). An
// empty text counts every "with" snippet missed and every "without" one
// rightly absent.
func Score(p Page, text string) Count {
	t := Normalize(text)
	var c Count
	for _, s := range p.With {
		if t != "" && strings.Contains(t, Normalize(s)) {
			c.TP++
		} else {
			c.FN++
		}
	}
	for _, s := range p.Without {
		if t != "" && strings.Contains(t, Normalize(s)) {
			c.FP++
		} else {
			c.TN++
		}
	}
	return c
}

// Add sums two counts.
func (c Count) Add(d Count) Count {
	return Count{c.TP + d.TP, c.FP + d.FP, c.FN + d.FN, c.TN + d.TN}
}

// Precision is tp/(tp+fp), 0 when nothing was found.
func (c Count) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is tp/(tp+fn).
func (c Count) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 is 2tp/(2tp+fp+fn).
func (c Count) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
