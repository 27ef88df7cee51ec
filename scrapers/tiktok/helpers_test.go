package tiktok

import (
	"encoding/json"
	"testing"
)

// videoPage wraps an itemStruct object in a page the way TikTok serves it.
func videoPage(t testing.TB, itemStruct []byte) []byte {
	t.Helper()
	var it json.RawMessage
	if err := json.Unmarshal(itemStruct, &it); err != nil {
		t.Fatalf("itemStruct is not JSON: %v", err)
	}
	data, err := json.Marshal(map[string]any{"__DEFAULT_SCOPE__": map[string]any{
		"webapp.app-context":  map[string]any{"language": "en"},
		"webapp.video-detail": map[string]any{"itemInfo": map[string]any{"itemStruct": it}, "statusCode": 0, "statusMsg": ""},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>TikTok</title></head><body><div id="app"></div>` +
		`<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">` + string(data) + `</script></body></html>`)
}

func ofType(ms []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}
