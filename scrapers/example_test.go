package scrapers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// A site plugin in a few lines: a Fetcher for the site, a tool built with
// NewTool from its argument type, and items added to the Call as they come.
// The site's origin is pointed at a local stand-in through <ID>_BASE_URL, as
// the tests of every site do.
func Example_sitePlugin() {
	// The stand-in answers as the real site would.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":%q,"price":"4.99"}`, strings.TrimPrefix(r.URL.Path, "/item/"))
	}))
	defer site.Close()

	type args struct {
		IDs []string `json:"ids" jsonschema:"item ids, 1 to 5"`
	}
	type item struct {
		URL   string `json:"url"`
		Name  string `json:"name"`
		Price string `json:"price"`
	}
	newShop := func(env scrapers.Env) (scrapers.Plugin, error) {
		f, err := scrapers.NewFetcher(env, scrapers.Site{ID: "shop", Name: "Shop", Origin: "https://shop.example", Domains: []string{"shop.example"}})
		if err != nil {
			return scrapers.Plugin{}, err
		}
		tool := scrapers.NewTool("scrape", "Scrape items", "Returns each item's name and price.", func(s *jsonschema.Schema) { scrapers.ListMax(s, 5, "ids") },
			func(ctx context.Context, call *scrapers.Call, a args) error {
				if len(a.IDs) == 0 {
					return scrapers.Argf("ids", "give at least one id")
				}
				for _, id := range a.IDs {
					u := "https://shop.example/item/" + id
					resp, err := f.Get(ctx, u)
					if err != nil {
						call.Fail(u, err)
						continue
					}
					var it item
					if err := resp.JSON(&it); err != nil {
						call.Fail(u, err)
						continue
					}
					it.URL = u
					call.Add(it)
				}
				return nil
			})
		tool.ItemSchema = scrapers.ItemSchema[item]()
		return scrapers.Plugin{ID: "shop", Name: "Shop", Tools: []scrapers.Tool{tool}}, nil
	}

	env := scrapers.Env{
		Getenv:               envMap{"SHOP_BASE_URL": site.URL}.Get,
		AllowPrivateNetworks: true, // the stand-in is on loopback
	}
	p, err := newShop(env)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := scrapers.NewCall(nil)
	err = p.Tools[0].Run(context.Background(), call, json.RawMessage(`{"ids":["kettle","teapot"]}`))
	fmt.Println("error:", err)
	for _, it := range call.Snapshot().Items {
		fmt.Println(string(it))
	}
	// A bad argument is a tool error naming it.
	fmt.Println(p.Tools[0].Run(context.Background(), scrapers.NewCall(nil), json.RawMessage(`{"ids":[]}`)))
	// Output:
	// error: <nil>
	// {"url":"https://shop.example/item/kettle","name":"kettle","price":"4.99"}
	// {"url":"https://shop.example/item/teapot","name":"teapot","price":"4.99"}
	// invalid argument ids: give at least one id
}

type envMap map[string]string

func (m envMap) Get(k string) string { return m[k] }
