package expr

import (
	"slices"
	"testing"
)

// TestTopNames checks that every path of every kind of expression gives
// its first attribute name, placeholders resolved: a write that decodes
// only these attributes (the engine's partial update) must see every one
// the condition and the update read or write.
func TestTopNames(t *testing.T) {
	v := `{":v":{"N":"1"}}`
	tests := []struct {
		name      string
		in        Input
		usedVals  string
		wantNames []string
	}{
		{"comparison and arithmetic", Input{Condition: ptr("a > :v"), Update: ptr("SET b = c + :v, d = :v - e")}, v, []string{"a", "b", "c", "d", "e"}},
		{"functions", Input{Condition: ptr("attribute_exists(f) AND begins_with(g, :s) AND contains(h, :s) AND size(i) > :v AND attribute_type(j, :ty)")}, `{":v":{"N":"1"},":s":{"S":"x"},":ty":{"S":"N"}}`, []string{"f", "g", "h", "i", "j"}},
		{"BETWEEN, IN, NOT, OR", Input{Condition: ptr("NOT (k BETWEEN l AND m) OR n IN (o, :v)")}, v, []string{"k", "l", "m", "n", "o"}},
		{"nested and indexed paths", Input{Condition: ptr("p.q[1].r = :v"), Update: ptr("SET s[0] = t.u, v.w = :v")}, v, []string{"p", "s", "t", "v"}},
		{"placeholders", Input{Names: Names{"#a": "alpha", "#b": "beta"}, Condition: ptr("#a.#b = :v"), Update: ptr("REMOVE #b")}, v, []string{"alpha", "beta"}},
		{"update functions", Input{Update: ptr("SET x = if_not_exists(y, :v), z = list_append(z2, :l)")}, `{":v":{"N":"1"},":l":{"L":[]}}`, []string{"x", "y", "z", "z2"}},
		{"ADD and DELETE", Input{Update: ptr("ADD cnt :v DELETE tags :t")}, `{":v":{"N":"1"},":t":{"SS":["a"]}}`, []string{"cnt", "tags"}},
		{"each name once", Input{Condition: ptr("cnt >= :v AND cnt < :v"), Update: ptr("SET cnt = cnt + :v")}, v, []string{"cnt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Values = values(t, tt.usedVals)
			c, err := Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := c.TopNames()
			if !ok || !slices.Equal(slices.Sorted(slices.Values(got)), tt.wantNames) {
				t.Errorf("TopNames() = %v, %v; want %v", got, ok, tt.wantNames)
			}
		})
	}
	c, err := Compile(Input{Update: ptr("SET a = :v"), Values: values(t, `{":v":{"N":"1"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddLegacy(&Legacy{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.TopNames(); ok {
		t.Error("TopNames known after AddLegacy")
	}
}
