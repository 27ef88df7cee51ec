package amazon

import "testing"

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"₹66,990", 66990, true},
		{"$1,299.99", 1299.99, true},
		{"$39.99", 39.99, true},
		{"1.299,99 €", 1299.99, true},
		{"12,99 €", 12.99, true},
		{"€1.000", 1000, true},
		{"￥37,980", 37980, true},
		{"1 299,99 kr", 1299.99, true},
		{"1\u00a0299,00\u00a0zł", 1299, true},
		{"$19.99 - $29.99", 19.99, true},
		{"$0.99", 0.99, true},
		{"$1,298.00", 1298, true},
		{"R$ 2.499,00", 2499, true},
		{"1.234.567 ₫", 1234567, true},
		{"", 0, false},
		{"Currently unavailable.", 0, false},
		{"$", 0, false},
		{"$.", 0, false},
	} {
		got, ok := parsePrice(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parsePrice(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseRating(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"4.6 out of 5 stars", 4.6, true},
		{"4,6 von 5 Sternen", 4.6, true},
		{"5つ星のうち4.6", 4.6, true},
		{"5.0 out of 5 stars", 5, true},
		{"3.7 out of 5 stars", 3.7, true},
		{"no rating", 0, false},
		{"17 out of 20", 0, false},
	} {
		got, ok := parseRating(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseRating(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"5,086", 5086, true},
		{"5,086 ratings", 5086, true},
		{"(24.5K)", 24500, true},
		{"2K+ bought", 2000, true},
		{"1.234 Sternebewertungen", 1234, true},
		{"12,345個の評価", 12345, true},
		{"(1.2M)", 1200000, true},
		{"ratings", 0, false},
		{"99999999999999", 0, false},
	} {
		got, ok := parseCount(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseCount(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCurrencyOf(t *testing.T) {
	for _, tc := range []struct{ text, host, want string }{
		{"₹66,990", "amazon.in", "INR"},
		{"$39.99", "www.amazon.com", "USD"},
		{"$39.99", "www.amazon.ca", "CAD"},
		{"$39.99", "amazon.com.mx", "MXN"},
		{"$39.99", "amazon.de", "USD"},
		{"R$ 2.499,00", "amazon.com.br", "BRL"},
		{"12,99 €", "amazon.de", "EUR"},
		{"￥37,980", "www.amazon.co.jp", "JPY"},
		{"£12.00", "amazon.co.uk", "GBP"},
		{"AED 99.00", "amazon.ae", "AED"},
		{"1 299,00 kr", "amazon.se", "SEK"},
		{"12.00", "amazon.co.uk", "GBP"},
		{"12.00", "example.com", ""},
	} {
		if got := currencyOf(tc.text, tc.host); got != tc.want {
			t.Errorf("currencyOf(%q, %q) = %q, want %q", tc.text, tc.host, got, tc.want)
		}
	}
}
