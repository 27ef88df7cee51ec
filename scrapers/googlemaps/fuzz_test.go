package googlemaps

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParsePlace(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "place-page.html")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(")]}'\n[0,1,2,3,4,5,[null,null,[\"a\"],null,[null,null,\"$\",[\"u\"],null,null,null,\"4\",1e400],null,null,[1],null,[null,null,91,0],\"0x1:0x2\",\"T\"]]"))
	f.Add([]byte(`<script>APP_INITIALIZATION_STATE=[")]}'\n[0,0,0,0,0,0,[0,0,0,0,0,0,0,0,0,0,0,\"T\"]]"]</script>`))
	f.Add([]byte(`"` + ")]}'" + `\x`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parsePlace(body, "https://src")
		if err == nil && (p.Name == "" || p.URL == "") {
			t.Fatalf("place without title or url: %+v", p)
		}
	})
}

func FuzzParseSearch(f *testing.F) {
	f.Add([]byte(")]}'\n[[\"q\",[[\"q\"],[0,0,0,0,0,0,0,0,0,0,0,0,0,0,[null,null,null,null,null,null,null,null,null,null,\"0x1:0x2\",\"T\"]]]]]"))
	f.Add([]byte(`{"c":0,"d":")]}'\n[[]]"}/*""*/`))
	f.Add([]byte(`[[null,[1,[2,[3]]]]]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		places, err := parseSearch(body)
		if err != nil {
			return
		}
		for _, p := range places {
			if p.Name == "" {
				t.Fatalf("place without title: %+v", p)
			}
		}
	})
}

func FuzzParseReviewsPage(f *testing.F) {
	f.Add([]byte(")]}'\n[null,\"tok\",[[[\"id\",[null,null,1700000000000000,null,[null,null,[\"u\"],null,null,[\"N\"]]],[[5],null,null,null,null,null,null,null,null,null,null,null,null,null,[\"en\"],[[\"t\"]]],[null,1,null,\"now\"]]]]]"))
	f.Add([]byte(")]}'\n[null,null,[[[\"id\",[0,0,-5,9e99],[[\"x\"]],[0,\"x\",0,0,0,0,0,0,0,0,0,0,0,[],[[1]]]]]]]"))
	f.Fuzz(func(t *testing.T, body []byte) {
		pg, err := parseReviewsPage(body, "https://place", "")
		if err != nil {
			return
		}
		for _, r := range pg.Reviews {
			if r.ReviewID == "" || r.URL == "" {
				t.Fatalf("review without id or url: %+v", r)
			}
		}
	})
}

func FuzzJSStringAt(f *testing.F) {
	f.Add([]byte(`"a\x3db\u00e9\"c",x`))
	f.Add([]byte(`"\`))
	f.Fuzz(func(t *testing.T, b []byte) {
		jsStringAt(b)
		embeddedPayloads(b)
		dataIDFromURL(string(b))
	})
}
