package telemetry

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Redacted replaces whatever a rule took out.
const Redacted = "[redacted]"

// Redacting wraps exp so that every span it exports has been redacted by
// rule (RedactAttribute): the last line of defence, whatever the code that
// made a span put in it. The host puts nothing secret in spans; this makes
// sure a later change cannot either.
func Redacting(exp sdktrace.SpanExporter) sdktrace.SpanExporter { return redacting{exp} }

type redacting struct{ sdktrace.SpanExporter }

func (r redacting) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = redactedSpan{s}
	}
	return r.SpanExporter.ExportSpans(ctx, out)
}

// redactedSpan is a span whose attributes, events' attributes, name and
// status description pass through the rules.
type redactedSpan struct{ sdktrace.ReadOnlySpan }

func (s redactedSpan) Name() string { return RedactString(s.ReadOnlySpan.Name()) }

func (s redactedSpan) Attributes() []attribute.KeyValue {
	return RedactAttributes(s.ReadOnlySpan.Attributes())
}

func (s redactedSpan) Events() []sdktrace.Event {
	ev := s.ReadOnlySpan.Events()
	out := make([]sdktrace.Event, len(ev))
	for i, e := range ev {
		e.Name = RedactString(e.Name)
		e.Attributes = RedactAttributes(e.Attributes)
		out[i] = e
	}
	return out
}

func (s redactedSpan) Status() sdktrace.Status {
	st := s.ReadOnlySpan.Status()
	st.Description = RedactString(st.Description)
	return st
}

// RedactAttributes applies RedactAttribute to each.
func RedactAttributes(kvs []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = RedactAttribute(kv)
	}
	return out
}

// secretKey matches attribute keys that name a credential or a request's
// own values: their value is replaced whatever it is.
var secretKey = regexp.MustCompile(`(?i)(authorization|license[._-]?key|^license$|password|passwd|secret|token|cookie|api[._-]?key|credential|proxy[._-]?url|url\.query|arguments|key_hash)`)

// RedactAttribute is the rule for one attribute:
//   - a key naming a credential (authorization, license key, password,
//     secret, token, cookie, api key, proxy URL) or a request's own values
//     (url.query, arguments) keeps its key and loses its value;
//   - every string value passes through RedactString.
func RedactAttribute(kv attribute.KeyValue) attribute.KeyValue {
	if secretKey.MatchString(string(kv.Key)) {
		return kv.Key.String(Redacted)
	}
	switch kv.Value.Type() {
	case attribute.STRING:
		if v := kv.Value.AsString(); v != "" {
			if r := RedactString(v); r != v {
				return kv.Key.String(r)
			}
		}
	case attribute.STRINGSLICE:
		vs := kv.Value.AsStringSlice()
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = RedactString(v)
		}
		return kv.Key.StringSlice(out)
	}
	return kv
}

// authHeader is an Authorization header written out; credential is a
// scheme followed by a credential-sized token (a license key, a bearer
// token): "License ABCD-1234-…".
var (
	authHeader = regexp.MustCompile(`(?i)\bauthorization\s*[:=]\s*\S+(\s+\S+)?`)
	credential = regexp.MustCompile(`\b(License|Bearer|Basic|license|bearer|basic)\s+[A-Za-z0-9._~+/=:-]{12,}`)
)

// urlInText finds URLs inside text.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// RedactString is the rule for one text:
//   - "Authorization: …" loses its value; a scheme followed by a
//     credential-sized token ("License <key>", "Bearer <token>") loses the
//     token;
//   - every URL in it loses its user information, its query values (keys
//     kept: ?q=[redacted]) and its fragment.
func RedactString(s string) string {
	if s == "" {
		return s
	}
	s = authHeader.ReplaceAllString(s, "authorization: "+Redacted)
	s = credential.ReplaceAllString(s, "$1 "+Redacted)
	if strings.Contains(s, "://") {
		s = urlInText.ReplaceAllStringFunc(s, redactURL)
	}
	return s
}

// redactURL drops a URL's user information, query values and fragment.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Redacted
	}
	if u.User != nil {
		u.User = nil
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, url.QueryEscape(k)+"="+Redacted)
		}
		slices.Sort(keys)
		u.RawQuery = strings.Join(keys, "&")
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
