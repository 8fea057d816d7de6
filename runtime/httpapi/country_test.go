package httpapi

import (
	"slices"
	"testing"
)

func TestCountries(t *testing.T) {
	cs := Countries()
	if len(cs) != 249 || !slices.IsSorted(cs) {
		t.Fatalf("%d codes (sorted %v), want the 249 of ISO 3166-1, sorted", len(cs), slices.IsSorted(cs))
	}
	for _, c := range []struct {
		code string
		ok   bool
	}{{"DE", true}, {"US", true}, {"GB", true}, {"SS", true}, {"D1", false}, {"de", false}, {"UK", false}, {"EU", false},
		{"XK", false}, {"ZZ", false}, {"AA", false}, {"SU", false}, {"DEU", false}, {"", false}} {
		if got := isCountry(c.code); got != c.ok {
			t.Errorf("isCountry(%q) = %v, want %v", c.code, got, c.ok)
		}
	}
}
