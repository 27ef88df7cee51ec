package scrapertest

import (
	"encoding/json"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// failedSchema is the schema of the item a failed source leaves
// ([scrapers.Call.Fail]), which any tool's result may hold beside its own.
var failedSchema = scrapers.ItemSchema[scrapers.Failed]()

// CheckItems checks that every item of o conforms, field by field, to the
// tool's declared ItemSchema, or is a failed source's item. A tool that
// declares no ItemSchema is a test error. [Run] and [RunTool] check the
// items of every tool that declares one.
func CheckItems(tb testing.TB, tool scrapers.Tool, o scrapers.Outcome) {
	tb.Helper()
	if tool.ItemSchema == nil {
		tb.Errorf("tool %s declares no ItemSchema", tool.Name)
		return
	}
	own, err := tool.ItemSchema.Resolve(nil)
	if err != nil {
		tb.Fatalf("tool %s: its ItemSchema does not resolve: %v", tool.Name, err)
	}
	failed, err := failedSchema.Resolve(nil)
	if err != nil {
		tb.Fatal(err)
	}
	for i, raw := range o.Items {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			tb.Errorf("tool %s: item %d is not JSON: %v", tool.Name, i, err)
			continue
		}
		if err := own.Validate(v); err != nil {
			if failed.Validate(v) == nil {
				continue
			}
			tb.Errorf("tool %s: item %d does not conform to its ItemSchema: %v\n%.600s", tool.Name, i, err, raw)
		}
	}
}

// checkDeclared runs CheckItems when the tool declares an ItemSchema.
func checkDeclared(tb testing.TB, tool scrapers.Tool, o scrapers.Outcome) {
	tb.Helper()
	if tool.ItemSchema != nil {
		CheckItems(tb, tool, o)
	}
}
