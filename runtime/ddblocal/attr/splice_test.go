package attr_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// spliceItem is an item with a value of every type, nested ones included.
func spliceItem() attr.Item {
	ss, _ := attr.StrSet("a", "b")
	ns, _ := attr.NumSet("1", "-2.5")
	bs, _ := attr.BinSet([]byte{0, 1}, []byte("xyz"))
	return attr.Item{
		"pk": attr.Str("USER#1"), "n": attr.MustNum("12.5"), "b": attr.Bin([]byte{0, 0xff}), "t": attr.Boolean(true),
		"z": attr.Null(), "ss": ss, "ns": ns, "bs": bs, "l": attr.List(attr.Str("x"), attr.List(), attr.MustNum("1")),
		"m": attr.Map(map[string]attr.Value{"in": attr.Map(map[string]attr.Value{"deep": attr.Boolean(false)}), "s": ss}),
	}
}

// TestSpliceIsDecodeChangeEncode checks Splice and DecodeSomeViewInto
// against decoding the whole item, changing it and encoding it again, for
// every subset of attributes dropped and a few set.
func TestSpliceIsDecodeChangeEncode(t *testing.T) {
	base := spliceItem()
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range base {
			if !yield(k) {
				return
			}
		}
	})
	src := attr.EncodeItem(nil, base)
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 500 {
		var drop []string
		for _, k := range names {
			if r.IntN(3) == 0 {
				drop = append(drop, k)
			}
		}
		add := attr.Item{}
		for _, k := range drop {
			if r.IntN(2) == 0 {
				add[k] = attr.MustNum(strconv.Itoa(round))
			}
		}
		if r.IntN(2) == 0 {
			add["new"+strconv.Itoa(round)] = attr.Str("added")
			drop = append(drop, "new"+strconv.Itoa(round)) // absent from src: dropping it is harmless
		}
		some, err := attr.DecodeSomeViewInto(src, drop, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range drop {
			if v, ok := base[k]; ok != (some[k].T != 0) || ok && !attr.Equal(v, some[k]) {
				t.Fatalf("DecodeSomeViewInto(%v): %s = %v, want %v", drop, k, some[k], v)
			}
		}
		if len(some) > len(drop) {
			t.Fatalf("DecodeSomeViewInto(%v) decoded %d attributes", drop, len(some))
		}
		got, err := attr.Splice(nil, src, drop, add)
		if err != nil {
			t.Fatal(err)
		}
		want := base.Clone()
		for _, k := range drop {
			delete(want, k)
		}
		for k, v := range add {
			want[k] = v
		}
		dec, err := attr.DecodeItem(got)
		if err != nil || !attr.EqualItems(dec, want) {
			t.Fatalf("Splice(drop %v, add %v) = %v (%v), want %v", drop, add, dec, err, want)
		}
	}
}

// TestSpliceRefusesCorruptInput checks that a truncated encoding is
// ErrCorrupt for both functions, at every length.
func TestSpliceRefusesCorruptInput(t *testing.T) {
	src := attr.EncodeItem(nil, spliceItem())
	for n := range len(src) {
		if _, err := attr.Splice(nil, src[:n], []string{"pk"}, nil); !errors.Is(err, attr.ErrCorrupt) {
			t.Fatalf("Splice of %d of %d bytes: %v, want ErrCorrupt", n, len(src), err)
		}
		if _, err := attr.DecodeSomeViewInto(src[:n], []string{"pk"}, nil); !errors.Is(err, attr.ErrCorrupt) {
			t.Fatalf("DecodeSomeViewInto of %d of %d bytes: %v, want ErrCorrupt", n, len(src), err)
		}
	}
}
