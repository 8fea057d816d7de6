package expr

import (
	"testing"
)

const updateItem = `{
	"PK":  {"S": "k"},
	"n":   {"N": "10"},
	"s":   {"S": "str"},
	"ss":  {"SS": ["a", "b"]},
	"ns":  {"NS": ["1", "2"]},
	"bs":  {"BS": ["AQ=="]},
	"l":   {"L": [{"N": "0"}, {"N": "1"}, {"N": "2"}, {"N": "3"}]},
	"m":   {"M": {"a": {"N": "1"}, "l": {"L": [{"S": "x"}]}, "mm": {"M": {}}}},
	"huge": {"N": "9E+125"},
	"huge38": {"N": "9.9999999999999999999999999999999999999E+125"},
	"deep": {"L": [{"M": {"x": {"L": [{"N": "1"}, {"N": "2"}]}}}]}
}`

const updateValues = `{
	":one": {"N": "1"}, ":neg": {"N": "-2.5"}, ":s": {"S": "v"}, ":zero": {"N": "0"},
	":ssx": {"SS": ["x", "a"]}, ":ssab": {"SS": ["a", "b"]}, ":ssb": {"SS": ["b"]}, ":ssz": {"SS": ["z"]},
	":ns3": {"NS": ["3", "1.0"]}, ":bs2": {"BS": ["Ag=="]}, ":bs1": {"BS": ["AQ=="]},
	":l": {"L": [{"S": "y"}]}, ":empty": {"L": []}, ":m": {"M": {"k": {"S": "v"}}},
	":max": {"N": "9E+125"}, ":tiny2": {"N": "1.1E-130"},
	":max38": {"N": "9.9999999999999999999999999999999999999E+125"}, ":negmax38": {"N": "-9.9999999999999999999999999999999999999E+125"},
	":tiny": {"N": "1E-130"}, ":digits": {"N": "1234567890123456789012345678901234567.8"}
}`

func TestUpdateApply(t *testing.T) {
	names := Names{"#n": "n", "#m": "m", "#dot": "a.b"}
	tests := []struct {
		name, expr string
		want       string // the changed attributes of the new item, as wire JSON; others are unchanged
		removed    []string
	}{
		{"set new", "SET x = :s", `{"x":{"S":"v"}}`, nil},
		{"set replace", "SET s = :one", `{"s":{"N":"1"}}`, nil},
		{"set from path", "SET x = s", `{"x":{"S":"str"}}`, nil},
		{"set placeholder with dot", "SET #dot = :s", `{"a.b":{"S":"v"}}`, nil},
		{"set plus", "SET n = n + :one", `{"n":{"N":"11"}}`, nil},
		{"set minus", "SET #n = #n - :neg", `{"n":{"N":"12.5"}}`, nil},
		{"set value minus path", "SET x = :one - n", `{"x":{"N":"-9"}}`, nil},
		{"set parenthesised", "SET x = (n + :one) - :one", `{"x":{"N":"10"}}`, nil},
		{"exact decimals", "SET x = :digits + :one", `{"x":{"N":"1234567890123456789012345678901234568.8"}}`, nil},
		{"if_not_exists absent", "SET x = if_not_exists(x, :zero) + :one", `{"x":{"N":"1"}}`, nil},
		{"if_not_exists present", "SET n = if_not_exists(n, :zero) + :one", `{"n":{"N":"11"}}`, nil},
		{"if_not_exists nested", "SET x = if_not_exists(m.a, :s)", `{"x":{"N":"1"}}`, nil},
		{"list_append end", "SET l = list_append(l, :l)", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"},{"S":"y"}]}}`, nil},
		{"list_append front", "SET m.l = list_append(:l, m.l)", `{"m":{"M":{"a":{"N":"1"},"l":{"L":[{"S":"y"},{"S":"x"}]},"mm":{"M":{}}}}}`, nil},
		{"list_append new list", "SET x = list_append(if_not_exists(x, :empty), :l)", `{"x":{"L":[{"S":"y"}]}}`, nil},
		{"set list element", "SET l[1] = :s", `{"l":{"L":[{"N":"0"},{"S":"v"},{"N":"2"},{"N":"3"}]}}`, nil},
		{"set past list end appends", "SET l[10] = :s", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"},{"S":"v"}]}}`, nil},
		{"set nested map", "SET m.mm.k = :s, #m.a = :zero", `{"m":{"M":{"a":{"N":"0"},"l":{"L":[{"S":"x"}]},"mm":{"M":{"k":{"S":"v"}}}}}}`, nil},
		{"set nested list element", "SET m.l[0] = :m", `{"m":{"M":{"a":{"N":"1"},"l":{"L":[{"M":{"k":{"S":"v"}}}]},"mm":{"M":{}}}}}`, nil},
		{"set reads the old item", "SET a1 = n, n = :one, a2 = n", `{"a1":{"N":"10"},"n":{"N":"1"},"a2":{"N":"10"}}`, nil},
		{"swap", "SET n = s, s = n", `{"n":{"S":"str"},"s":{"N":"10"}}`, nil},
		{"remove", "REMOVE s, n", `{}`, []string{"s", "n"}},
		{"remove absent", "REMOVE nope", `{}`, nil},
		{"set past list end appends in index order", "SET l[84] = :s, l[37] = :one, l[17] = :zero, l[50] = :neg",
			`{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"},{"N":"0"},{"N":"1"},{"N":"-2.5"},{"S":"v"}]}}`, nil},
		{"remove and set use original list positions", "REMOVE l[1] SET l[3] = :s", `{"l":{"L":[{"N":"0"},{"N":"2"},{"S":"v"}]}}`, nil},
		{"set and remove use original list positions", "SET l[3] = :s REMOVE l[1]", `{"l":{"L":[{"N":"0"},{"N":"2"},{"S":"v"}]}}`, nil},
		{"remove then read", "REMOVE s SET x = s", `{"x":{"S":"str"}}`, []string{"s"}},
		{"remove list elements shifts", "REMOVE l[1], l[2]", `{"l":{"L":[{"N":"0"},{"N":"3"}]}}`, nil},
		{"remove list elements any order", "REMOVE l[0], l[3], l[1]", `{"l":{"L":[{"N":"2"}]}}`, nil},
		{"remove past list end", "REMOVE l[9]", `{}`, nil},
		{"remove nested", "REMOVE m.a, m.l[0], m.nope", `{"m":{"M":{"l":{"L":[]},"mm":{"M":{}}}}}`, nil},
		{"remove deep list element", "REMOVE deep[0].x[1]", `{"deep":{"L":[{"M":{"x":{"L":[{"N":"1"}]}}}]}}`, nil},
		{"remove deep map member", "REMOVE deep[0].x", `{"deep":{"L":[{"M":{}}]}}`, nil},
		{"set deep list element", "SET deep[0].x[0] = :s, deep[0].y = :one", `{"deep":{"L":[{"M":{"x":{"L":[{"S":"v"},{"N":"2"}]},"y":{"N":"1"}}}]}}`, nil},
		{"add to deep list element", "ADD deep[0].x[1] :one", `{"deep":{"L":[{"M":{"x":{"L":[{"N":"1"},{"N":"3"}]}}}]}}`, nil},
		{"add number", "ADD n :one", `{"n":{"N":"11"}}`, nil},
		{"add number creates", "ADD x :neg", `{"x":{"N":"-2.5"}}`, nil},
		{"add string set", "ADD ss :ssx", `{"ss":{"SS":["a","b","x"]}}`, nil},
		{"add number set", "ADD ns :ns3", `{"ns":{"NS":["1","2","3"]}}`, nil},
		{"add binary set", "ADD bs :bs2", `{"bs":{"BS":["AQ==","Ag=="]}}`, nil},
		{"add set creates", "ADD x :ssz", `{"x":{"SS":["z"]}}`, nil},
		{"add nested", "ADD m.a :one, m.mm.c :one", `{"m":{"M":{"a":{"N":"2"},"l":{"L":[{"S":"x"}]},"mm":{"M":{"c":{"N":"1"}}}}}}`, nil},
		{"delete members", "DELETE ss :ssb", `{"ss":{"SS":["a"]}}`, nil},
		{"delete absent members", "DELETE ss :ssz", `{}`, nil},
		{"delete last members removes", "DELETE ss :ssab, bs :bs1", `{}`, []string{"ss", "bs"}},
		{"delete number members", "DELETE ns :ns3", `{"ns":{"NS":["2"]}}`, nil},
		{"delete on absent attribute", "DELETE nope :ssb", `{}`, nil},
		{"all clauses", "SET x = :s REMOVE s ADD n :one DELETE ss :ssb", `{"x":{"S":"v"},"n":{"N":"11"},"ss":{"SS":["a"]}}`, []string{"s"}},
	}
	vals := values(t, updateValues)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := item(t, updateItem)
			before := itemJSON(t, old)
			u, err := ParseUpdate(tt.expr)
			if err != nil {
				t.Fatalf("ParseUpdate(%q): %v", tt.expr, err)
			}
			got, changed, err := u.Apply(old, names, vals)
			if err != nil {
				t.Fatalf("Apply(%q): %v", tt.expr, err)
			}
			if after := itemJSON(t, old); after != before {
				t.Errorf("Apply modified its input:\n got %s\nwant %s", after, before)
			}
			want := item(t, updateItem)
			for k, v := range item(t, tt.want) {
				want[k] = v
			}
			for _, k := range tt.removed {
				delete(want, k)
			}
			sameItem(t, got, itemJSON(t, want))
			if len(changed) != len(u.targets()) {
				t.Errorf("changed = %v, want one path per action", changed)
			}
			// Applied in place to an item the caller gives up, the result is the same.
			owned, _, err := u.apply(item(t, updateItem), names, vals, applyOpts{owned: true})
			if err != nil {
				t.Fatalf("apply owned (%q): %v", tt.expr, err)
			}
			sameItem(t, owned, itemJSON(t, want))
		})
	}
}

func TestUpdateApplyNewItem(t *testing.T) {
	u, err := ParseUpdate("SET a = :s ADD n :one, ss :ssb")
	if err != nil {
		t.Fatal(err)
	}
	got, changed, err := u.Apply(nil, nil, values(t, updateValues))
	if err != nil {
		t.Fatal(err)
	}
	sameItem(t, got, `{"a":{"S":"v"},"n":{"N":"1"},"ss":{"SS":["b"]}}`)
	sameItem(t, Project(got, changed), `{"a":{"S":"v"},"n":{"N":"1"},"ss":{"SS":["b"]}}`)
}

func TestUpdateApplyMissingItem(t *testing.T) {
	// DynamoDB ignores REMOVE of nested paths when the item does not exist,
	// but refuses SET below a missing attribute.
	u, err := ParseUpdate("REMOVE x.y, z[0] SET a = :s")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := u.Apply(nil, nil, values(t, updateValues))
	if err != nil {
		t.Fatal(err)
	}
	sameItem(t, got, `{"a":{"S":"v"}}`)
	u, _ = ParseUpdate("SET c.c = :s")
	if _, _, err := u.Apply(nil, nil, values(t, updateValues)); err == nil || validationMessage(t, err) != msgInvalidPath {
		t.Errorf("SET c.c on a missing item: %v, want %q", err, msgInvalidPath)
	}
}

func TestUpdateApplyErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"SET x = nope", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET x = nope + :one", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET x = list_append(nope, :l)", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET x = m.nope", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET x = s + :one", "An operand in the update expression has an incorrect data type"},
		{"SET x = ss - :one", "An operand in the update expression has an incorrect data type"},
		{"SET x = list_append(s, :l)", "An operand in the update expression has an incorrect data type"},
		{"SET x = list_append(:l, m)", "An operand in the update expression has an incorrect data type"},
		{"ADD s :one", "An operand in the update expression has an incorrect data type"},
		{"ADD n :ssb", "An operand in the update expression has an incorrect data type"},
		{"ADD ss :ns3", "An operand in the update expression has an incorrect data type"},
		{"ADD ns :one", "An operand in the update expression has an incorrect data type"},
		{"DELETE ss :ns3", "An operand in the update expression has an incorrect data type"},
		{"DELETE n :ns3", "An operand in the update expression has an incorrect data type"},
		{"SET nope.a = :s", "The document path provided in the update expression is invalid for update"},
		{"SET nope[1] = :s", "The document path provided in the update expression is invalid for update"},
		{"SET s.a = :s", "The document path provided in the update expression is invalid for update"},
		{"SET l.a = :s", "The document path provided in the update expression is invalid for update"},
		{"SET m[0] = :s", "The document path provided in the update expression is invalid for update"},
		{"SET m.nope.x = :s", "The document path provided in the update expression is invalid for update"},
		{"SET l[7].x = :s", "The document path provided in the update expression is invalid for update"},
		{"REMOVE nope.a", "The document path provided in the update expression is invalid for update"},
		{"REMOVE s[1]", "The document path provided in the update expression is invalid for update"},
		{"REMOVE m[1]", "The document path provided in the update expression is invalid for update"},
		{"REMOVE deep[5].x", "The document path provided in the update expression is invalid for update"},
		{"REMOVE deep[0].nope.y", "The document path provided in the update expression is invalid for update"},
		{"REMOVE deep[0].x.y", "The document path provided in the update expression is invalid for update"},
		{"REMOVE deep[0][0]", "The document path provided in the update expression is invalid for update"},
		{"SET deep[0].nope.y = :s", "The document path provided in the update expression is invalid for update"},
		{"SET deep[0].x.y = :s", "The document path provided in the update expression is invalid for update"},
		{"REMOVE l.a", "The document path provided in the update expression is invalid for update"},
		{"ADD nope.a :one", "The document path provided in the update expression is invalid for update"},
		{"ADD s.a :one", "The document path provided in the update expression is invalid for update"},
		{"DELETE nope.a :ssb", "The document path provided in the update expression is invalid for update"},
		{"DELETE s[0] :ssb", "The document path provided in the update expression is invalid for update"},
		{"SET x = :max + :max", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"ADD x :max, huge :max", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"SET x = :max38 + :max38", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"SET x = :negmax38 - :max38", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"ADD x :max38, huge38 :max38", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"SET x = :tiny2 - :tiny", "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{"SET x = :tiny - :zero, y = :tiny - :tiny, z = :tiny - :one", "Attempting to store more than 38 significant digits in a Number"},
		{"SET x = :nope", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"SET #nope = :s", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
	}
	vals := values(t, updateValues)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			u, err := ParseUpdate(tt.expr)
			if err != nil {
				t.Fatalf("ParseUpdate(%q): %v", tt.expr, err)
			}
			_, _, err = u.Apply(item(t, updateItem), nil, vals)
			if err == nil {
				t.Fatalf("Apply(%q) succeeded, want %q", tt.expr, tt.want)
			}
			if got := validationMessage(t, err); got != tt.want {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestUpdateAttributesAndReturnValues(t *testing.T) {
	c, err := Compile(Input{
		Update: ptr("SET #a.b = :v, c = :v REMOVE d[0] ADD #a.e :one DELETE f :set"),
		Names:  Names{"#a": "a"},
		Values: values(t, `{":v":{"S":"new"},":one":{"N":"1"},":set":{"SS":["x"]}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := c.Update.Attributes(c.Names)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := list(attrs), "[a c d f]"; got != want {
		t.Errorf("Attributes = %s, want %s", got, want)
	}
	var paths []string
	for _, p := range c.UpdatedPaths() {
		paths = append(paths, p.Brackets())
	}
	if got, want := list(paths), "[[a, b] [c] [d, [0]] [a, e] [f]]"; got != want {
		t.Errorf("UpdatedPaths = %s, want %s", got, want)
	}
	old := item(t, `{"a":{"M":{"b":{"S":"old"},"e":{"N":"4"},"keep":{"S":"k"}}},"d":{"L":[{"S":"d0"},{"S":"d1"}]},"f":{"SS":["x","y"]},"g":{"S":"g"}}`)
	next, err := c.Apply(old)
	if err != nil {
		t.Fatal(err)
	}
	sameItem(t, next, `{"a":{"M":{"b":{"S":"new"},"e":{"N":"5"},"keep":{"S":"k"}}},"c":{"S":"new"},"d":{"L":[{"S":"d1"}]},"f":{"SS":["y"]},"g":{"S":"g"}}`)
	// UPDATED_OLD and UPDATED_NEW return only what the actions touched.
	sameItem(t, ProjectPaths(old, c.UpdatedPaths()), `{"a":{"M":{"b":{"S":"old"},"e":{"N":"4"}}},"d":{"L":[{"S":"d0"}]},"f":{"SS":["x","y"]}}`)
	sameItem(t, ProjectPaths(next, c.UpdatedPaths()), `{"a":{"M":{"b":{"S":"new"},"e":{"N":"5"}}},"c":{"S":"new"},"d":{"L":[{"S":"d1"}]},"f":{"SS":["y"]}}`)
}

func list(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
