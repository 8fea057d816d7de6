package attr_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "0", want: "0"},
		{in: "-0", want: "0"},
		{in: "0.000", want: "0"},
		{in: "007", want: "7"},
		{in: "1.50", want: "1.5"},
		{in: "+12", want: "12"},
		{in: "1e2", want: "100"},
		{in: "-1.25E-3", want: "-0.00125"},
		{in: "12345678901234567890123456789012345678", want: "12345678901234567890123456789012345678"},
		{in: "1234567890123456789012345678901234567800000", want: "1234567890123456789012345678901234567800000"},
		{in: "123456789012345678901234567890123456789", err: "Attempting to store more than 38 significant digits in a Number"},
		{in: "9.9999999999999999999999999999999999999E+125", want: "99999999999999999999999999999999999999" + strings.Repeat("0", 88)},
		{in: "1E+126", err: "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{in: "-1E+126", err: "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{in: "1E-130", want: "0." + strings.Repeat("0", 129) + "1"},
		{in: "1E-131", err: "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{in: "NaN", err: "A value provided cannot be converted into a number"},
		{in: "Infinity", err: "A value provided cannot be converted into a number"},
		{in: "0x10", err: "A value provided cannot be converted into a number"},
		{in: "1..2", err: "A value provided cannot be converted into a number"},
		{in: "", err: "The parameter cannot be converted to a numeric value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := attr.CanonicalNumber(tt.in)
			if tt.err != "" {
				var ve *attr.ValidationError
				if !errors.As(err, &ve) || ve.Message != tt.err {
					t.Fatalf("CanonicalNumber(%q) error = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CanonicalNumber(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestArithmetic(t *testing.T) {
	big := attr.MustNum("99999999999999999999999999999999999999")
	tests := []struct {
		name    string
		a, b    attr.Value
		sub     bool
		want    string
		wantErr string
	}{
		{name: "exact decimal sum", a: attr.MustNum("0.1"), b: attr.MustNum("0.2"), want: "0.3"},
		{name: "difference goes negative", a: attr.MustNum("5"), b: attr.MustNum("7.5"), sub: true, want: "-2.5"},
		{name: "38 digits stay exact", a: big, b: attr.MustNum("-1"), want: "99999999999999999999999999999999999998"},
		{name: "carry to 39 places reduces to one digit", a: big, b: attr.MustNum("1"), want: "100000000000000000000000000000000000000"},
		{name: "precision lost", a: big, b: attr.MustNum("0.1"), wantErr: "Attempting to store more than 38 significant digits in a Number"},
		{name: "overflow reported before precision", a: attr.MustNum("9.9999999999999999999999999999999999999E+125"), b: attr.MustNum("1.1E+88"), wantErr: "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{name: "overflow", a: attr.MustNum("9E+125"), b: attr.MustNum("9E+125"), wantErr: "Number overflow. Attempting to store a number with magnitude larger than supported range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got attr.Value
			var err error
			if tt.sub {
				got, err = attr.SubNumbers(tt.a, tt.b)
			} else {
				got, err = attr.AddNumbers(tt.a, tt.b)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.S != tt.want {
				t.Fatalf("got %q, %v; want %q", got.S, err, tt.want)
			}
		})
	}
}

func TestUnmarshalValidation(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{name: "string", in: `{"S":"héllo"}`, want: `{"S":"héllo"}`},
		{name: "number canonical", in: `{"N":"010.50"}`, want: `{"N":"10.5"}`},
		{name: "binary", in: `{"B":"AAEC"}`, want: `{"B":"AAEC"}`},
		{name: "bool", in: `{"BOOL":false}`, want: `{"BOOL":false}`},
		{name: "null", in: `{"NULL":true}`, want: `{"NULL":true}`},
		{name: "nested", in: `{"M":{"b":{"L":[{"N":"1"},{"SS":["x"]}]},"a":{"NS":["2.0","1"]}}}`, want: `{"M":{"a":{"NS":["2","1"]},"b":{"L":[{"N":"1"},{"SS":["x"]}]}}}`},
		{name: "empty list and map", in: `{"L":[]}`, want: `{"L":[]}`},
		{name: "no type", in: `{}`, err: "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{name: "two types", in: `{"S":"a","N":"1"}`, err: "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{name: "null false", in: `{"NULL":false}`, err: "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{name: "empty string set", in: `{"SS":[]}`, err: "One or more parameter values were invalid: An string set  may not be empty"},
		{name: "empty number set", in: `{"NS":[]}`, err: "One or more parameter values were invalid: An number set  may not be empty"},
		{name: "duplicate set member", in: `{"SS":["a","b","a"]}`, err: "One or more parameter values were invalid: Input collection [a, b, a] contains duplicates."},
		{name: "numerically duplicate", in: `{"NS":["1","1.0"]}`, err: "One or more parameter values were invalid: Input collection [1, 1] contains duplicates."},
		{name: "bad number", in: `{"N":"abc"}`, err: "The parameter cannot be converted to a numeric value: abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v attr.Value
			err := json.Unmarshal([]byte(tt.in), &v)
			if tt.err != "" {
				var ve *attr.ValidationError
				if !errors.As(err, &ve) || ve.Message != tt.err {
					t.Fatalf("Unmarshal(%s) error = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			got, _ := json.Marshal(v)
			if string(got) != tt.want {
				t.Fatalf("round trip of %s\n got: %s\nwant: %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestCompareAndEqual(t *testing.T) {
	ss1, _ := attr.StrSet("a", "b")
	ss2, _ := attr.StrSet("b", "a")
	tests := []struct {
		name  string
		a, b  attr.Value
		cmp   int
		ok    bool
		equal bool
	}{
		{"numbers numerically", attr.MustNum("9"), attr.MustNum("10"), -1, true, false},
		{"negative numbers", attr.MustNum("-10"), attr.MustNum("-9"), -1, true, false},
		{"equal numbers", attr.MustNum("1.0"), attr.MustNum("1"), 0, true, true},
		{"strings bytewise", attr.Str("Z"), attr.Str("a"), -1, true, false},
		{"binary unsigned", attr.Bin([]byte{0x80}), attr.Bin([]byte{0x7f}), 1, true, false},
		{"types differ", attr.Str("1"), attr.MustNum("1"), 0, false, false},
		{"sets unordered", ss1, ss2, 0, false, true},
		{"lists ordered", attr.List(attr.Str("a"), attr.Str("b")), attr.List(attr.Str("b"), attr.Str("a")), 0, false, false},
		{"maps by key", attr.Map(map[string]attr.Value{"x": attr.Null()}), attr.Map(map[string]attr.Value{"x": attr.Null()}), 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmp, ok := attr.Compare(tt.a, tt.b)
			if cmp != tt.cmp || ok != tt.ok {
				t.Errorf("Compare = %d, %v; want %d, %v", cmp, ok, tt.cmp, tt.ok)
			}
			if got := attr.Equal(tt.a, tt.b); got != tt.equal {
				t.Errorf("Equal = %v, want %v", got, tt.equal)
			}
		})
	}
}

func TestItemSize(t *testing.T) {
	ns, _ := attr.NumSet("1", "22")
	tests := []struct {
		name string
		item attr.Item
		want int
	}{
		{"string counts name and UTF-8 bytes", attr.Item{"ab": attr.Str("é")}, 2 + 2},
		{"number one byte per two digits plus one", attr.Item{"n": attr.MustNum("12345")}, 1 + 3 + 1},
		{"number trailing zeros ignored", attr.Item{"n": attr.MustNum("1000")}, 1 + 1 + 1},
		{"number fraction", attr.Item{"n": attr.MustNum("-0.0012")}, 1 + 1 + 1},
		{"bool and null", attr.Item{"b": attr.Boolean(true), "z": attr.Null()}, 2 + 2},
		{"binary", attr.Item{"b": attr.Bin([]byte{1, 2, 3})}, 1 + 3},
		{"list overhead", attr.Item{"l": attr.List(attr.Str("ab"), attr.Null())}, 1 + 3 + (1 + 2) + (1 + 1)},
		{"map overhead", attr.Item{"m": attr.Map(map[string]attr.Value{"k": attr.Str("v")})}, 1 + 3 + 1 + 1 + 1},
		{"number set", attr.Item{"s": ns}, 1 + 2 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := attr.ItemSize(tt.item); got != tt.want {
				t.Errorf("ItemSize = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	var it attr.Item
	src := `{"PK":{"S":"USER#1"},"n":{"N":"-12.5"},"b":{"B":"AP8="},"t":{"BOOL":true},"z":{"NULL":true},
	"l":{"L":[{"S":"a"},{"L":[]},{"M":{}}]},"m":{"M":{"x":{"BS":["AQ==","Ag=="]},"y":{"NS":["1","2"]}}},"s":{"SS":["p","q"]}}`
	if err := json.Unmarshal([]byte(src), &it); err != nil {
		t.Fatal(err)
	}
	enc := attr.EncodeItem(nil, it)
	got, err := attr.DecodeItem(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !attr.EqualItems(got, it) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(it)
		t.Fatalf("round trip\n got: %s\nwant: %s", a, b)
	}
	if _, err := attr.DecodeItem(enc[:len(enc)-1]); !errors.Is(err, attr.ErrCorrupt) {
		t.Fatalf("truncated decode error = %v, want ErrCorrupt", err)
	}
	sized, size := attr.EncodeItemSized([]byte("prefix"), it)
	if size != attr.ItemSize(it) {
		t.Fatalf("EncodeItemSized: size %d, want %d", size, attr.ItemSize(it))
	}
	if again, err := attr.DecodeItem(sized[len("prefix"):]); err != nil || !attr.EqualItems(again, it) {
		t.Fatalf("EncodeItemSized does not decode to the item: %v", err)
	}
	// A cleared item's room is reused.
	reuse := attr.Item{"old": attr.Str("x"), "PK": attr.Str("y")}
	clear(reuse)
	into, err := attr.DecodeItemViewInto(enc, reuse)
	if err != nil || !attr.EqualItems(into, it) {
		t.Fatalf("DecodeItemViewInto: %v", err)
	}
	if into, err = attr.DecodeItemViewInto(enc, nil); err != nil || !attr.EqualItems(into, it) {
		t.Fatalf("DecodeItemViewInto nil: %v", err)
	}
	if _, err := attr.DecodeItemViewInto(enc[:len(enc)-1], attr.Item{}); !errors.Is(err, attr.ErrCorrupt) {
		t.Fatalf("truncated DecodeItemViewInto error = %v, want ErrCorrupt", err)
	}
}

func FuzzDecodeItem(f *testing.F) {
	f.Add(attr.EncodeItem(nil, attr.Item{"a": attr.Str("x"), "l": attr.List(attr.Int(1))}))
	f.Add([]byte{1, 1, 'a', 7, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := attr.DecodeItem(b)
		if err != nil {
			return
		}
		again, err := attr.DecodeItem(attr.EncodeItem(nil, it))
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		_ = again
	})
}

func FuzzUnmarshalValue(f *testing.F) {
	for _, s := range []string{`{"S":"a"}`, `{"N":"1e5"}`, `{"M":{"a":{"NS":["1","2"]}}}`, `{"L":[{"NULL":true}]}`, `{"BS":["AQ=="]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v attr.Value
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var again attr.Value
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("re-unmarshal %s: %v", b, err)
		}
		if !attr.Equal(v, again) {
			t.Fatalf("round trip changed value: %s", b)
		}
	})
}

func ExampleAddNumbers() {
	a := attr.MustNum("0.1")
	b := attr.MustNum("0.2")
	sum, _ := attr.AddNumbers(a, b)
	fmt.Println(sum.S)
	// Output: 0.3
}

func ExampleValue_UnmarshalJSON() {
	var it attr.Item
	err := json.Unmarshal([]byte(`{"tags":{"SS":["a","a"]}}`), &it)
	var ve *attr.ValidationError
	fmt.Println(errors.As(err, &ve), ve.Message)
	// Output: true One or more parameter values were invalid: Input collection [a, a] contains duplicates.
}

func BenchmarkUnmarshalItem(b *testing.B) {
	body := []byte(`{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"},"balance":{"N":"1000"},"name":{"S":"Ada"},"tags":{"SS":["a","b"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		var it attr.Item
		if err := json.Unmarshal(body, &it); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDepth(t *testing.T) {
	wrap := func(v attr.Value, n int, list bool) attr.Value {
		for range n {
			if list {
				v = attr.List(v)
			} else {
				v = attr.Map(map[string]attr.Value{"n": v})
			}
		}
		return v
	}
	for _, tc := range []struct {
		name string
		item attr.Item
		want int
	}{
		{"empty item", attr.Item{}, 0},
		{"scalars", attr.Item{"a": attr.Str("x"), "b": attr.Int(1)}, 1},
		{"empty map", attr.Item{"a": attr.Map(map[string]attr.Value{})}, 1},
		{"one map", attr.Item{"a": wrap(attr.Str("x"), 1, false)}, 2},
		{"31 maps", attr.Item{"a": wrap(attr.Str("x"), 31, false)}, 32},
		{"lists count", attr.Item{"a": wrap(attr.Str("x"), 32, true)}, 33},
		{"deepest attribute wins", attr.Item{"a": attr.Str("x"), "b": wrap(attr.Null(), 3, false)}, 4},
	} {
		if got := attr.Depth(tc.item); got != tc.want {
			t.Errorf("%s: Depth = %d, want %d", tc.name, got, tc.want)
		}
	}
}
