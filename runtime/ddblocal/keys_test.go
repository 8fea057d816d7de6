package ddblocal

import (
	"bytes"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

func TestKeyEncodingPreservesOrder(t *testing.T) {
	tests := []struct {
		name   string
		values []attr.Value // ascending, no two equal
	}{
		{"numbers", []attr.Value{
			attr.MustNum("-9.9999999999999999999999999999999999999E+125"),
			attr.MustNum("-1000"), attr.MustNum("-100.5"), attr.MustNum("-100"), attr.MustNum("-10"),
			attr.MustNum("-2"), attr.MustNum("-1.5"), attr.MustNum("-1.25"), attr.MustNum("-1"),
			attr.MustNum("-0.001"), attr.MustNum("-1E-130"), attr.MustNum("0"), attr.MustNum("1E-130"),
			attr.MustNum("0.001"), attr.MustNum("0.5"), attr.MustNum("1"), attr.MustNum("1.25"), attr.MustNum("1.5"),
			attr.MustNum("2"), attr.MustNum("9"), attr.MustNum("10"), attr.MustNum("10.01"), attr.MustNum("100"),
			attr.MustNum("12345678901234567890123456789012345678"),
			attr.MustNum("9.9999999999999999999999999999999999999E+125"),
		}},
		{"strings", []attr.Value{
			attr.Str("\x00"), attr.Str("\x00\x00"), attr.Str("\x01"), attr.Str("A"), attr.Str("a"),
			attr.Str("a\x00"), attr.Str("a\x00b"), attr.Str("ab"), attr.Str("b"), attr.Str("é"), attr.Str("日本"),
		}},
		{"binary", []attr.Value{
			attr.Bin([]byte{0}), attr.Bin([]byte{0, 0}), attr.Bin([]byte{0, 255}), attr.Bin([]byte{1}),
			attr.Bin([]byte{127}), attr.Bin([]byte{128}), attr.Bin([]byte{255}), attr.Bin([]byte{255, 0}),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := 1; i < len(tc.values); i++ {
				a, b := tc.values[i-1], tc.values[i]
				ka, kb := appendKey(nil, a), appendKey(nil, b)
				if bytes.Compare(ka, kb) >= 0 {
					t.Errorf("key(%q) = %x is not below key(%q) = %x", a.S, ka, b.S, kb)
				}
				// Prefix-free: a key followed by anything stays below the next key.
				if bytes.Compare(append(ka, 0xFF, 0xFF), kb) >= 0 {
					t.Errorf("key(%q) with a suffix reaches key(%q)", a.S, b.S)
				}
			}
		})
	}
}

func TestEqualNumbersEncodeEqually(t *testing.T) {
	tests := [][2]string{{"1", "1.0"}, {"100", "1E2"}, {"-0.50", "-0.5"}, {"0", "-0"}, {"0.0", "0"}}
	for _, tc := range tests {
		t.Run(tc[0]+"="+tc[1], func(t *testing.T) {
			a, b := appendKey(nil, attr.MustNum(tc[0])), appendKey(nil, attr.MustNum(tc[1]))
			if !bytes.Equal(a, b) {
				t.Fatalf("got %x and %x, want equal", a, b)
			}
		})
	}
}

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{[]byte("ab"), []byte("ac")},
		{[]byte{1, 0xFF}, []byte{2}},
		{[]byte{0xFF, 0xFF}, nil},
		{nil, nil},
	}
	for _, tc := range tests {
		if got := prefixEnd(tc.in); !bytes.Equal(got, tc.want) {
			t.Errorf("prefixEnd(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}

func TestCapacityUnits(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		write      bool
		consistent bool
		want       float64
	}{
		{"tiny write", 10, true, false, 1},
		{"1 KB write", 1024, true, false, 1},
		{"just over 1 KB write", 1025, true, false, 2},
		{"3.5 KB write", 3584, true, false, 4},
		{"consistent read 4 KB", 4096, false, true, 1},
		{"consistent read 4 KB + 1", 4097, false, true, 2},
		{"eventual read 4 KB", 4096, false, false, 0.5},
		{"eventual read 9 KB", 9 * 1024, false, false, 1.5},
		{"empty read", 0, false, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got float64
			if tc.write {
				got = writeUnits(tc.size)
			} else {
				got = readUnits(tc.size, tc.consistent)
			}
			if got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEntryOrderIsByteOrder checks that comparing rows by their inline key
// prefix first orders them exactly as their whole keys compare, around the
// 16-byte boundary, with zero bytes and with keys that are prefixes of
// others.
func TestEntryOrderIsByteOrder(t *testing.T) {
	keys := [][]byte{
		nil, {0}, {0, 0}, {0, 1}, {1}, []byte("A"), []byte("A\x00"), []byte("A\x00\x00"), []byte("A\x01"),
		[]byte("USER#00000000123"), []byte("USER#000000001234"), []byte("USER#000000001234\x00\x01ORDER#1"),
		[]byte("USER#000000001234\x00\x01ORDER#2"), []byte("USER#000000001235"), []byte("USER#00000000124"),
		[]byte("0123456789abcdef"), []byte("0123456789abcdef\x00"), []byte("0123456789abcdeg"),
		{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0},
	}
	for _, a := range keys {
		for _, b := range keys {
			want := bytes.Compare(a, b) < 0
			if got := entryLess(probe(a), probe(b)); got != want {
				t.Errorf("entryLess(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
