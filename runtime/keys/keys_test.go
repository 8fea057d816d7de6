package keys_test

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/keys"
)

func TestValidateID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		ok   bool
	}{
		{"simple", "u1", true},
		{"dashes and dots", "user-42.eu_west", true},
		{"unicode", "jürgen", true},
		{"max length", strings.Repeat("a", 128), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", 129), false},
		{"hash delimiter", "u1#LEDGER", false},
		{"slash", "u1/x", false},
		{"newline", "u1\n", false},
		{"nul", "u\x001", false},
		{"del", "u\x7f1", false},
		{"space", "u 1", false},
		{"invalid utf8", "u\xff", false},
		{"decomposed (not NFC)", "rene\u0301", false},
		{"precomposed (NFC)", "ren\u00e9", true},
		{"CJK", "\u7528\u6237", true},
		{"emoji", "u\U0001f600", true},
		{"zero width space", "a\u200bb", false},
		{"zero width joiner", "a\u200db", false},
		{"byte order mark", "\ufeffa", false},
		{"soft hyphen", "a\u00adb", false},
		{"right-to-left override", "a\u202eb", false},
		{"left-to-right isolate", "a\u2066b", false},
		{"arabic letter mark", "a\u061cb", false},
		{"combining grapheme joiner", "a\u034fb", false},
		{"variation selector", "a\ufe0f", false},
		{"Hangul filler", "a\u3164", false},
		{"tag", "a\U000e0041", false},
		{"unassigned", "a\u0378", false},
		{"private use", "a\ue000", false},
		{"noncharacter", "a\uffff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := keys.ValidateID("userId", tt.id)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
			}
			if err != nil {
				var ie *keys.InvalidIDError
				if !errors.As(err, &ie) || !errors.Is(err, keys.ErrInvalidID) || ie.Kind != "userId" {
					t.Errorf("error %v does not match *InvalidIDError{Kind: userId}", err)
				}
			}
		})
	}
}

func TestCanonicalID(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"rene\u0301", "ren\u00e9"},
		{"ren\u00e9", "ren\u00e9"},
		{"\u212b", "\u00c5"}, // ANGSTROM SIGN is canonically A WITH RING ABOVE
		{"alice", "alice"},
	} {
		got, err := keys.CanonicalID("userId", tt.in)
		if err != nil || got != tt.want {
			t.Errorf("CanonicalID(%+q) = %+q, %v; want %+q", tt.in, got, err, tt.want)
		}
	}
	if _, err := keys.CanonicalID("userId", "a\u200bb"); !errors.Is(err, keys.ErrInvalidID) {
		t.Errorf("CanonicalID with a zero width space: %v, want ErrInvalidID", err)
	}
}

func TestValidateProductID(t *testing.T) {
	for _, tt := range []struct {
		id string
		ok bool
	}{
		{"mug", true}, {"SKU-42.eu_1:x~y", true},
		{"m\u0443g", false}, {"\uff2dug", false}, {"mug\u200b", false}, {"j\u00fcrgen", false}, {"a#b", false}, {"", false},
	} {
		err := keys.ValidateProductID("productId", tt.id)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, keys.ErrInvalidID)) {
			t.Errorf("ValidateProductID(%+q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
	if _, err := keys.Default.Product("m\u0443g"); !errors.Is(err, keys.ErrInvalidID) {
		t.Errorf("Product key of a Cyrillic id: %v, want ErrInvalidID", err)
	}
}

func TestBuilders(t *testing.T) {
	at := time.Date(2026, 11, 29, 20, 1, 2, 3, time.FixedZone("x", 3600))
	entry := keys.NewIDAt("cr", at)
	must := func(k keys.Key, err error) keys.Key {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	tests := []struct {
		got  keys.Key
		want keys.Key
	}{
		{must(keys.User("u1")), keys.Key{PK: "USER#u1", SK: "PROFILE"}},
		{must(keys.Address("u1", "home")), keys.Key{PK: "USER#u1", SK: "PROFILE#ADDR#home"}},
		{must(keys.UserOrder("u1", at, "o1")), keys.Key{PK: "USER#u1", SK: "ORDER#2026-11-29T19:01:02.000000003Z#o1"}},
		{must(keys.Ledger("u1", entry)), keys.Key{PK: "USER#u1", SK: "LEDGER#2026-11-29T19:01:02.000000000Z#" + entry}},
		{must(keys.Ledger("u1", entry+"-out")), keys.Key{PK: "USER#u1", SK: "LEDGER#2026-11-29T19:01:02.000000000Z#" + entry + "-out"}},
		{must(keys.Order("o1")), keys.Key{PK: "ORDER#o1", SK: "ORDER#o1"}},
		{must(keys.OrderItem("o1", 7)), keys.Key{PK: "ORDER#o1", SK: "ITEM#007"}},
		{must(keys.Payment("o1", "p1")), keys.Key{PK: "ORDER#o1", SK: "PAYMENT#p1"}},
		{must(keys.Product("p1")), keys.Key{PK: "PROD#p1", SK: "PROD#p1"}},
		{must(keys.Idempotency("USER#u1", "abc")), keys.Key{PK: "USER#u1", SK: "IDEM#abc"}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %+v, want %+v", tt.got, tt.want)
		}
	}
	for name, f := range map[string]func() error{
		"user":    func() error { _, err := keys.User("a#b"); return err },
		"address": func() error { _, err := keys.Address("u", "a/b"); return err },
		"order":   func() error { _, err := keys.Order(""); return err },
		"payment": func() error { _, err := keys.Payment("o", "p#x"); return err },
		"line":    func() error { _, err := keys.OrderItem("o", 0); return err },
		"product": func() error { _, err := keys.Product("p\t"); return err },
		"idem":    func() error { _, err := keys.Idempotency("USER#u", "a#b"); return err },
		"ledger":  func() error { _, err := keys.Ledger("u", "e1"); return err },
	} {
		if err := f(); !errors.Is(err, keys.ErrInvalidID) {
			t.Errorf("%s: error = %v, want ErrInvalidID", name, err)
		}
	}
}

// Key order must equal time order: the user's-orders and ledger queries rely on it.
func TestTimestampOrder(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ts []string
	for _, d := range []time.Duration{0, time.Nanosecond, 9 * time.Millisecond, time.Second, 10 * time.Hour} {
		ts = append(ts, keys.Timestamp(base.Add(d)))
	}
	if !sort.StringsAreSorted(ts) {
		t.Errorf("timestamps not in byte order: %v", ts)
	}
}

func TestNewIDSortsAndValidates(t *testing.T) {
	now := time.Now()
	a := keys.NewIDAt("pay", now)
	b := keys.NewIDAt("pay", now.Add(time.Millisecond))
	if !(a < b) {
		t.Errorf("NewID not time ordered: %s >= %s", a, b)
	}
	if err := keys.ValidateID("paymentId", a); err != nil {
		t.Errorf("NewID produced invalid id %q: %v", a, err)
	}
	// 9 characters hold 45 of the 48 bits of milliseconds.
	if c := keys.NewID("pay"); c[:4+9] < a[:4+9] || c[:4+9] > keys.NewIDAt("pay", time.Now())[:4+9] {
		t.Errorf("NewID %s is not stamped with the current time (%s..now)", c, a)
	}
	if !strings.HasPrefix(a, "pay_") || len(a) != 4+26 {
		t.Errorf("NewID = %q, want pay_ + 26 chars", a)
	}
}

func TestIDTime(t *testing.T) {
	at := time.Date(2026, 11, 29, 19, 1, 2, 345_678_901, time.UTC)
	id := keys.NewIDAt("cr", at)
	tests := []struct {
		id   string
		want time.Time // zero: an *InvalidIDError
	}{
		{id, at.Truncate(time.Millisecond)},
		{id + "-out", at.Truncate(time.Millisecond)},
		{"e1", time.Time{}},
		{"cr_", time.Time{}},
		{id[:len(id)-1], time.Time{}},
		{id + "x", time.Time{}},
		{"cr_" + strings.Repeat("u", 26), time.Time{}}, // 'u' is not in the alphabet
	}
	for _, tt := range tests {
		got, err := keys.IDTime(tt.id)
		switch {
		case tt.want.IsZero() && !errors.Is(err, keys.ErrInvalidID):
			t.Errorf("IDTime(%q) = %v, %v, want ErrInvalidID", tt.id, got, err)
		case !tt.want.IsZero() && (err != nil || !got.Equal(tt.want)):
			t.Errorf("IDTime(%q) = %v, %v, want %v", tt.id, got, err, tt.want)
		}
	}
}

// TestDerivedIDs: ids of one prefix and seed share their origin at any
// time, and keep that time; another seed or prefix, or NewIDAt, does not.
func TestDerivedIDs(t *testing.T) {
	at := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	seed := "3f1c…caller/debit/key-1"
	a := keys.DerivedIDAt("db", at, seed)
	tests := []struct {
		name     string
		id       string
		sameAsA  bool
		wantTime time.Time
	}{
		{"same request later, another Region", keys.DerivedIDAt("db", at.Add(3*time.Second), seed), true, at.Add(3 * time.Second)},
		{"same request, same millisecond", keys.DerivedIDAt("db", at, seed), true, at},
		{"another key", keys.DerivedIDAt("db", at, seed+"2"), false, at},
		{"another prefix", keys.DerivedIDAt("cr", at, seed), false, at},
		{"a random id", keys.NewIDAt("db", at), false, at},
		{"a suffixed leg", keys.DerivedIDAt("db", at, seed) + "-out", false, at},
	}
	originA, err := keys.IDOrigin(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := keys.IDOrigin(tt.id)
			if err != nil {
				t.Fatalf("IDOrigin(%q): %v", tt.id, err)
			}
			if got := o == originA; got != tt.sameAsA {
				t.Errorf("IDOrigin(%q) = %s, IDOrigin(%q) = %s: same = %v, want %v", tt.id, o, a, originA, got, tt.sameAsA)
			}
			if err := keys.ValidateID("entryId", tt.id); err != nil {
				t.Errorf("ValidateID(%q): %v", tt.id, err)
			}
			if got, err := keys.IDTime(tt.id); err != nil || !got.Equal(tt.wantTime) {
				t.Errorf("IDTime(%q) = %v, %v, want %v", tt.id, got, err, tt.wantTime)
			}
		})
	}
	if _, err := keys.IDOrigin("e1"); !errors.Is(err, keys.ErrInvalidID) {
		t.Errorf("IDOrigin(e1) = %v, want ErrInvalidID", err)
	}
}
