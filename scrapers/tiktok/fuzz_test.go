package tiktok

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParsePage(f *testing.F) {
	for _, name := range []string{"video.html", "photo.html", "profile.html", "hashtag.html", "private.html", "verify.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":{"id":1,"author":[],"stats":{"playCount":"1e400"}}}}}}</script>`))
	f.Add([]byte(`<script id=__UNIVERSAL_DATA_FOR_REHYDRATION__>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		pg, err := parsePage(body, "https://www.tiktok.com/@x")
		if err == nil && pg.Video == nil && pg.Profile == nil && pg.Hashtag == nil {
			t.Fatal("no error and nothing parsed")
		}
		if err == nil && pg.Video != nil && pg.Video.URL == "" {
			t.Fatal("video without url")
		}
	})
}

func FuzzParseItemList(f *testing.F) {
	f.Add([]byte(`{"itemList":[{"id":"1","author":{"uniqueId":"a"},"stats":{"playCount":3}}],"hasMore":true,"cursor":"30"}`))
	f.Add([]byte(`{"itemList":[{"id":"1","author":"a","imagePost":{"images":[{"imageURL":{"urlList":[5]}}]}}],"hasMore":1}`))
	f.Add([]byte(`{"statusCode":10201}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		l, err := parseItemList(body, "s")
		if err == nil {
			for _, v := range l.Videos {
				if v.ID == "" || v.URL == "" {
					t.Fatalf("video without id or url: %+v", v)
				}
			}
		}
	})
}
