package expr

import "testing"

func TestProjectionApply(t *testing.T) {
	const it = `{
		"a": {"S": "A"}, "b": {"N": "1"},
		"m": {"M": {"x": {"N": "1"}, "y": {"M": {"z": {"S": "deep"}, "w": {"S": "w"}}}, "l": {"L": [{"S": "l0"}, {"S": "l1"}]}}},
		"l": {"L": [{"S": "e0"}, {"M": {"k": {"S": "v"}, "j": {"S": "j"}}}, {"S": "e2"}, {"S": "e3"}]},
		"a.b": {"S": "dotted"}
	}`
	tests := []struct{ expr, want string }{
		{"a", `{"a":{"S":"A"}}`},
		{"a, b, nope", `{"a":{"S":"A"},"b":{"N":"1"}}`},
		{"#ab", `{"a.b":{"S":"dotted"}}`},
		{"m.x", `{"m":{"M":{"x":{"N":"1"}}}}`},
		{"m.y.z, m.x", `{"m":{"M":{"x":{"N":"1"},"y":{"M":{"z":{"S":"deep"}}}}}}`},
		{"m.l[1]", `{"m":{"M":{"l":{"L":[{"S":"l1"}]}}}}`},
		{"l[3], l[0]", `{"l":{"L":[{"S":"e0"},{"S":"e3"}]}}`},
		{"l[1].k", `{"l":{"L":[{"M":{"k":{"S":"v"}}}]}}`},
		{"l[9], m.nope, a.x, l.x, m[0]", `{}`},
		{"m", `{"m":{"M":{"x":{"N":"1"},"y":{"M":{"z":{"S":"deep"},"w":{"S":"w"}}},"l":{"L":[{"S":"l0"},{"S":"l1"}]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := ParseProjection(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			src := item(t, it)
			got := p.Apply(src, Names{"#ab": "a.b"})
			sameItem(t, got, tt.want)
			// The projection is a copy: changing it leaves the item alone.
			for _, v := range got {
				if v.M != nil {
					for k := range v.M {
						delete(v.M, k)
					}
				}
			}
			sameItem(t, src, it)
		})
	}
}
