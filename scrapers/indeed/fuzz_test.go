package indeed

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParseSearchPage(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "search-page.html")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`providerData["mosaic-provider-jobcards"]={"metaData":{"mosaicProviderJobCardsModel":{"results":[{"jobkey":1,"title":2,"pubDate":"x","extractedSalary":{"min":1e999}}]}}}`))
	f.Add([]byte(`providerData['mosaic-provider-jobcards'] =`))
	f.Fuzz(func(t *testing.T, body []byte) {
		jobs, err := parseSearchPage(body, "www.indeed.com")
		if err != nil {
			return
		}
		for _, j := range jobs {
			if j.JobKey == "" || j.Title == "" || j.URL == "" {
				t.Fatalf("incomplete job %+v", j)
			}
		}
	})
}

func FuzzParseJobPage(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "job-page.html")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`_initialData={"jobInfoWrapperModel":{"jobInfoModel":{"jobInfoHeaderModel":{"jobTitle":"T"},"sanitizedJobDescription":"<ul><li><p>x"}},"baseUrl":"http://[::1"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		j, err := parseJobPage(body, "www.indeed.com")
		if err == nil && j.Title == "" {
			t.Fatalf("job without title: %+v", j)
		}
	})
}

func FuzzHTMLToText(f *testing.F) {
	f.Add("<ul><li><p>a</p></li><li>b</li></ul><br>&nbsp;x")
	f.Add("<script>unclosed")
	f.Fuzz(func(t *testing.T, s string) {
		out := htmlToText(s)
		if len(out) > 4*len(s)+16 {
			t.Fatalf("text grew from %d to %d bytes", len(s), len(out))
		}
	})
}
