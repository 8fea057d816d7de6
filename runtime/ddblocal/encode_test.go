package ddblocal

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// TestAppendItemRoundTrips checks the fast response encoder against the
// attr package's JSON decoder.
func TestAppendItemRoundTrips(t *testing.T) {
	ss, _ := attr.StrSet("a", "b\"c")
	ns, _ := attr.NumSet("1", "-2.5")
	bs, _ := attr.BinSet([]byte{0, 1, 2}, []byte("xyz"))
	tests := []struct {
		name string
		item attr.Item
	}{
		{"scalars", attr.Item{"s": attr.Str("hé \"quoted\" \\ \n\t\x01 <&>"), "n": attr.MustNum("-12.5"), "b": attr.Bin([]byte{0, 255, 7}), "t": attr.Boolean(true), "f": attr.Boolean(false), "z": attr.Null()}},
		{"sets", attr.Item{"ss": ss, "ns": ns, "bs": bs}},
		{"documents", attr.Item{"m": attr.Map(map[string]attr.Value{"l": attr.List(attr.Str("x"), attr.Map(nil), attr.List())})}},
		{"empty", attr.Item{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			appendItem(&buf, tc.item)
			var got attr.Item
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("decode %s: %v", buf.Bytes(), err)
			}
			if !attr.EqualItems(got, tc.item) {
				t.Fatalf("got %v, want %v", got, tc.item)
			}
		})
	}
}

// TestEncodedItemsTranscode checks that rows stored by attr.EncodeItem
// reach the wire unchanged without being decoded first.
func TestEncodedItemsTranscode(t *testing.T) {
	ss, _ := attr.StrSet("a", "b")
	bs, _ := attr.BinSet([]byte{1}, []byte{})
	items := []attr.Item{
		{"s": attr.Str("x\"y"), "n": attr.MustNum("1.5"), "b": attr.Bin([]byte("\x00\xff")), "t": attr.Boolean(true), "z": attr.Null()},
		{"m": attr.Map(map[string]attr.Value{"in": attr.List(attr.Str("a"), attr.Map(map[string]attr.Value{"deep": attr.Boolean(false)}))}), "ss": ss},
		{"bs": bs, "l": attr.List()},
		{},
	}
	for i, it := range items {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var buf bytes.Buffer
			if err := appendResponse(&buf, rawItems{attr.EncodeItem(nil, it)}); err != nil {
				t.Fatal(err)
			}
			var got []attr.Item
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("decode %s: %v", buf.Bytes(), err)
			}
			if len(got) != 1 || !attr.EqualItems(got[0], it) {
				t.Fatalf("got %v, want %v", got, it)
			}
			var direct bytes.Buffer
			if !appendEncodedItem(&direct, attr.EncodeItem(nil, it)) {
				t.Fatal("transcoder rejected attr's encoding; it has drifted from attr.EncodeItem")
			}
		})
	}
}

// TestTableTypesEncodeAsEncodingJSON checks the encoder's cases for the
// table description's types against encoding/json, byte for byte.
func TestTableTypesEncodeAsEncodingJSON(t *testing.T) {
	values := []any{
		int64(0), int64(-5), int64(1 << 62),
		0.0, 1764453600.123, -2.5, 1e-7, 1e21, 123456789012345678901.0, 0.000001,
		[]attributeDefinition{{"PK", "S"}, {"sk<&>", "N"}}, []attributeDefinition{{"PK", "S"}}, []attributeDefinition{}, []attributeDefinition(nil),
		[]keySchemaElement{{"PK", "HASH"}, {"SK", "RANGE"}}, []keySchemaElement{{"é", "HASH"}}, []keySchemaElement{}, []keySchemaElement(nil),
		map[string]any{"A": []keySchemaElement{{"a\"b", "HASH"}}, "B": 1.5, "C": int64(3)},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeResponse(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%#v: got %s, want %s", v, got, want)
		}
	}
}
