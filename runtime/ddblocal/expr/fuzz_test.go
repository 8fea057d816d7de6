package expr

import (
	"errors"
	"reflect"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The fuzz targets check that no input panics a parser, that a failed parse
// is an *Error, and that every parsed tree prints to text that parses back
// to the same tree (and prints the same again). Seed corpora live in
// testdata/fuzz/<FuzzName>/ and run with plain go test.

var fuzzItem = attr.Item{
	"a": attr.Str("abc"),
	"n": attr.Int(5),
	"l": attr.List(attr.Int(1), attr.Str("x"), attr.Map(map[string]attr.Value{"b": attr.Str("y")})),
	"m": attr.Map(map[string]attr.Value{"b": attr.List(attr.Int(0)), "c": attr.Boolean(true)}),
}

// fuzzEnv defines every placeholder a fuzzed expression uses, with values of
// rotating types, so evaluation goes past placeholder lookup.
func fuzzEnv(src string) (Names, Values) {
	names, vals := Names{}, Values{}
	ss, _ := attr.StrSet("x", "y")
	choices := []attr.Value{attr.Int(1), attr.Str("ab"), attr.List(attr.Int(2)), ss, attr.Str("S"), attr.Boolean(false)}
	i := 0
	for _, t := range lex(src) {
		switch t.kind {
		case tName:
			names[t.text] = t.text[1:]
		case tValue:
			if _, ok := vals[t.text]; !ok {
				vals[t.text] = choices[i%len(choices)]
				i++
			}
		}
	}
	return names, vals
}

func checkParseError(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("parse error %v (%T) is not an *Error with a message", err, err)
	}
}

func fuzzRoundTrip[T interface{ String() string }](t *testing.T, parse func(string) (T, error), src string, tree T) {
	t.Helper()
	printed := tree.String()
	again, err := parse(printed)
	if err != nil {
		t.Fatalf("%q printed as %q, which does not parse: %v", src, printed, err)
	}
	if !reflect.DeepEqual(again, tree) {
		t.Fatalf("%q printed as %q, which parses to a different tree (%q)", src, printed, again.String())
	}
	if again.String() != printed {
		t.Fatalf("printing is not stable: %q then %q", printed, again.String())
	}
}

func FuzzParseCondition(f *testing.F) {
	f.Add("a = :v AND (b < :w OR NOT attribute_exists(#c.d[1]))")
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseCondition(src)
		if err != nil {
			checkParseError(t, err)
			return
		}
		fuzzRoundTrip(t, ParseCondition, src, c)
		names, vals := fuzzEnv(src)
		_, _ = Compile(Input{Condition: &src, Names: names, Values: vals})
		_, _ = c.Eval(fuzzItem, names, vals)
	})
}

func FuzzParseKeyCondition(f *testing.F) {
	f.Add("PK = :pk AND begins_with(SK, :p)")
	f.Fuzz(func(t *testing.T, src string) {
		k, err := ParseKeyCondition(src)
		if err != nil {
			checkParseError(t, err)
			return
		}
		fuzzRoundTrip(t, ParseKeyCondition, src, k)
		names, vals := fuzzEnv(src)
		q, err := k.Resolve(names, vals, KeySchema{PartitionKey: "PK", PartitionType: attr.N, SortKey: "SK", SortType: attr.S})
		if err == nil && q.Sort != nil {
			q.Sort.Match(attr.Str("ab"))
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	f.Add("SET a = if_not_exists(a, :z) + :one REMOVE l[0] ADD s :set DELETE t :set2")
	f.Fuzz(func(t *testing.T, src string) {
		u, err := ParseUpdate(src)
		if err != nil {
			checkParseError(t, err)
			return
		}
		fuzzRoundTrip(t, ParseUpdate, src, u)
		names, vals := fuzzEnv(src)
		_, _ = Compile(Input{Update: &src, Names: names, Values: vals})
		before := fuzzItem.Clone()
		next, changed, err := u.Apply(fuzzItem, names, vals)
		if !attr.EqualItems(before, fuzzItem) {
			t.Fatalf("Apply(%q) modified its input", src)
		}
		if err == nil {
			Project(next, changed)
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	f.Add("a, #b.c[2], l[0][1]")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParseProjection(src)
		if err != nil {
			checkParseError(t, err)
			return
		}
		fuzzRoundTrip(t, ParseProjection, src, p)
		names, _ := fuzzEnv(src)
		p.Apply(fuzzItem, names)
	})
}
