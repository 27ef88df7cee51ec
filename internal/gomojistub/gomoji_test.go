package gomoji

import "testing"

func TestRemoveEmojis(t *testing.T) {
	for in, want := range map[string]string{
		"Jane Doe 🚀":             "Jane Doe ",
		"👩‍💻 Ada Lovelace":       " Ada Lovelace",
		"🇫🇷 Marie Curie ✨":       " Marie Curie ",
		"👍🏽 ok":                  " ok",
		"José Müller, 東京 — №5 ©": "José Müller, 東京 — №5 ©",
		"1️⃣ first":              "1 first", // a keycap keeps its digit
	} {
		if got := RemoveEmojis(in); got != want {
			t.Errorf("RemoveEmojis(%q) = %q, want %q", in, got, want)
		}
	}
}
