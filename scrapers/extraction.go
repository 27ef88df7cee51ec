package scrapers

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// Extraction marks where a plugin turns a page into items, for the call's
// trace: it starts a span "extract <what>" under the call's (a no-op when
// the call is not traced) and returns its end. what names the kind of page
// ("search results", "product"), never a URL or a query.
//
//	end := scrapers.Extraction(ctx, "product")
//	item, err := parseProduct(resp.Body)
//	end()
func Extraction(ctx context.Context, what string) (end func()) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return func() {}
	}
	_, span := parent.TracerProvider().Tracer("github.com/surfsense/pluginhost/scrapers").Start(ctx, "extract "+what)
	return func() { span.End() }
}
