package amazon

import (
	"slices"
	"strings"
)

// marketCurrency is the currency each Amazon marketplace prices in, by the
// domain's suffix after "amazon.".
var marketCurrency = map[string]string{
	"com": "USD", "ca": "CAD", "com.mx": "MXN", "com.br": "BRL",
	"co.uk": "GBP", "de": "EUR", "fr": "EUR", "it": "EUR", "es": "EUR",
	"nl": "EUR", "ie": "EUR", "com.be": "EUR", "at": "EUR",
	"se": "SEK", "pl": "PLN", "com.tr": "TRY", "ae": "AED", "sa": "SAR",
	"eg": "EGP", "in": "INR", "co.jp": "JPY", "sg": "SGD", "com.au": "AUD",
	"cn": "CNY", "co.za": "ZAR", "com.ng": "NGN",
}

// domainCurrency returns the currency of the marketplace on host
// (www.amazon.co.jp → JPY), or "" when the marketplace is unknown.
func domainCurrency(host string) string {
	host = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(host, "www."), "smile."))
	tld, ok := strings.CutPrefix(host, "amazon.")
	if !ok {
		return ""
	}
	return marketCurrency[tld]
}

// currencySymbols maps the marks Amazon prints before or after an amount to
// ISO codes, longest first so that "R$" wins over "$".
var currencySymbols = []struct{ mark, code string }{
	{"US$", "USD"}, {"CA$", "CAD"}, {"C$", "CAD"}, {"A$", "AUD"}, {"AU$", "AUD"},
	{"S$", "SGD"}, {"MX$", "MXN"}, {"R$", "BRL"}, {"zł", "PLN"}, {"₺", "TRY"},
	{"₹", "INR"}, {"£", "GBP"}, {"€", "EUR"}, {"￥", "JPY"}, {"¥", "JPY"},
	{"kr", "SEK"}, {"د.إ", "AED"}, {"ر.س", "SAR"}, {"ج.م", "EGP"},
}

// isoCodes are codes Amazon sometimes prints instead of a symbol ("INR 1,500",
// "AED 99.00").
var isoCodes = []string{"USD", "CAD", "MXN", "BRL", "GBP", "EUR", "SEK", "PLN", "TRY", "AED", "SAR", "EGP", "INR", "JPY", "SGD", "AUD", "CNY", "ZAR", "NGN"}

// currencyOf says which currency a price text is in, reading its symbol or
// code and, for a bare "$" or "¥" or a text with no mark, the marketplace the
// page came from.
func currencyOf(priceText, host string) string {
	market := domainCurrency(host)
	for _, code := range isoCodes {
		if strings.Contains(priceText, code) {
			return code
		}
	}
	if strings.Contains(priceText, "TL") {
		return "TRY"
	}
	for _, s := range currencySymbols {
		if strings.Contains(priceText, s.mark) {
			if (s.code == "JPY" && market == "CNY") || (s.code == "SEK" && market != "" && market != "SEK") {
				return market
			}
			return s.code
		}
	}
	if strings.Contains(priceText, "$") {
		switch market {
		case "USD", "CAD", "MXN", "AUD", "SGD":
			return market
		}
		return "USD"
	}
	return market
}

// marketplaces lists the Amazon domains the plugin knows, amazon.com first.
func marketplaces() []string {
	out := []string{"amazon.com"}
	for tld := range marketCurrency {
		if tld != "com" {
			out = append(out, "amazon."+tld)
		}
	}
	slices.Sort(out[1:])
	return out
}
