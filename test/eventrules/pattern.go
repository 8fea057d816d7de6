package eventrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"strings"
)

// Pattern is a compiled EventBridge event pattern, as described in the
// EventBridge User Guide's "Event patterns", "Content filtering in Amazon
// EventBridge event patterns" and "Comparison operators for use in event
// patterns" pages: fields are ANDed, the values listed for a field are
// ORed, a value matches an event array when it matches one of its
// elements, and a content filter is an object of one operator (prefix,
// suffix, equals-ignore-case, wildcard, anything-but, numeric, exists,
// cidr); "$or" lists alternative patterns. An operator it does not know is
// an error, never a silent match.
type Pattern struct{ root object }

// object is a pattern object: each field must match, and one of the
// alternatives of each $or.
type object struct {
	fields map[string]field
	ors    [][]object
}

// field is what one key of a pattern asks: a nested object, or values of
// which one must match.
type field struct {
	nested *object
	values []matcher
}

// matcher tests one leaf value; present is false when the event lacks the
// field (only exists: false and nothing else matches then).
type matcher func(v any, present bool) bool

// Compile parses an event pattern.
func Compile(pattern []byte) (*Pattern, error) {
	var raw map[string]any
	if err := decode(pattern, &raw); err != nil {
		return nil, fmt.Errorf("eventrules: pattern is not a JSON object: %w", err)
	}
	root, err := compileObject(raw)
	if err != nil {
		return nil, err
	}
	return &Pattern{root: root}, nil
}

// Match reports whether the event (a JSON object) matches.
func (p *Pattern) Match(event []byte) (bool, error) {
	var ev map[string]any
	if err := decode(event, &ev); err != nil {
		return false, fmt.Errorf("eventrules: event is not a JSON object: %w", err)
	}
	return p.root.match(ev), nil
}

// decode keeps numbers as json.Number, so that 5 and 5.0 compare equal
// as numbers while strings never equal numbers.
func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func compileObject(raw map[string]any) (object, error) {
	o := object{fields: map[string]field{}}
	for k, v := range raw {
		if k == "$or" {
			alts, ok := v.([]any)
			if !ok || len(alts) < 2 {
				return o, fmt.Errorf("eventrules: $or takes an array of at least two patterns, got %v", v)
			}
			var group []object
			for _, a := range alts {
				m, ok := a.(map[string]any)
				if !ok {
					return o, fmt.Errorf("eventrules: $or alternative %v is not an object", a)
				}
				alt, err := compileObject(m)
				if err != nil {
					return o, err
				}
				group = append(group, alt)
			}
			o.ors = append(o.ors, group)
			continue
		}
		f, err := compileField(k, v)
		if err != nil {
			return o, err
		}
		o.fields[k] = f
	}
	return o, nil
}

func compileField(key string, v any) (field, error) {
	switch v := v.(type) {
	case map[string]any:
		n, err := compileObject(v)
		return field{nested: &n}, err
	case []any:
		if len(v) == 0 {
			return field{}, fmt.Errorf("eventrules: %s: an empty array matches nothing and EventBridge refuses it", key)
		}
		var f field
		for _, e := range v {
			m, err := compileValue(key, e)
			if err != nil {
				return field{}, err
			}
			f.values = append(f.values, m)
		}
		return f, nil
	}
	return field{}, fmt.Errorf("eventrules: %s: a pattern's leaf must be an array of values, got %v", key, v)
}

// compileValue compiles one element of a field's array: a literal, or an
// object holding one operator.
func compileValue(key string, e any) (matcher, error) {
	op, ok := e.(map[string]any)
	if !ok {
		return func(v any, present bool) bool { return present && equal(e, v) }, nil
	}
	if len(op) != 1 {
		return nil, fmt.Errorf("eventrules: %s: a content filter holds one operator, got %v", key, op)
	}
	for name, arg := range op {
		return compileOperator(key, name, arg)
	}
	panic("unreachable")
}

func compileOperator(key, name string, arg any) (matcher, error) {
	bad := func() (matcher, error) {
		return nil, fmt.Errorf("eventrules: %s: %s does not take %v", key, name, arg)
	}
	switch name {
	case "prefix", "suffix", "equals-ignore-case", "wildcard":
		test, err := stringTest(name, arg)
		if err != nil {
			return bad()
		}
		return func(v any, present bool) bool {
			s, ok := v.(string)
			return present && ok && test(s)
		}, nil
	case "exists":
		want, ok := arg.(bool)
		if !ok {
			return bad()
		}
		return func(_ any, present bool) bool { return present == want }, nil
	case "numeric":
		return compileNumeric(key, arg)
	case "cidr":
		s, ok := arg.(string)
		prefix, err := netip.ParsePrefix(s)
		if !ok || err != nil {
			return bad()
		}
		return func(v any, present bool) bool {
			s, ok := v.(string)
			addr, err := netip.ParseAddr(s)
			return present && ok && err == nil && prefix.Contains(addr)
		}, nil
	case "anything-but":
		return compileAnythingBut(key, arg)
	}
	return nil, fmt.Errorf("eventrules: %s: unknown operator %q", key, name)
}

// stringTest is prefix, suffix, equals-ignore-case or wildcard on a
// string argument, or prefix/suffix of {"equals-ignore-case": s}.
func stringTest(name string, arg any) (func(string) bool, error) {
	fold := false
	if m, ok := arg.(map[string]any); ok && len(m) == 1 && (name == "prefix" || name == "suffix") {
		arg, fold = m["equals-ignore-case"], true
	}
	s, ok := arg.(string)
	if !ok {
		return nil, fmt.Errorf("not a string")
	}
	norm := func(x string) string { return x }
	if fold {
		norm = strings.ToLower
	}
	switch name {
	case "prefix":
		return func(v string) bool { return strings.HasPrefix(norm(v), norm(s)) }, nil
	case "suffix":
		return func(v string) bool { return strings.HasSuffix(norm(v), norm(s)) }, nil
	case "equals-ignore-case":
		return func(v string) bool { return strings.EqualFold(v, s) }, nil
	default: // wildcard: * matches any run of characters, slashes included
		return func(v string) bool { return wildcard(s, v) }, nil
	}
}

// wildcard matches v against glob, where only * is special.
func wildcard(glob, v string) bool {
	parts := strings.Split(glob, "*")
	if len(parts) == 1 {
		return glob == v
	}
	if !strings.HasPrefix(v, parts[0]) {
		return false
	}
	v = v[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		j := strings.Index(v, p)
		if j < 0 {
			return false
		}
		v = v[j+len(p):]
	}
	return strings.HasSuffix(v, parts[len(parts)-1])
}

// compileAnythingBut: a value, a list of values, or one of prefix, suffix,
// equals-ignore-case and wildcard; an absent field never matches.
func compileAnythingBut(key string, arg any) (matcher, error) {
	if m, ok := arg.(map[string]any); ok {
		if len(m) != 1 {
			return nil, fmt.Errorf("eventrules: %s: anything-but holds one operator, got %v", key, m)
		}
		for name, a := range m {
			var tests []func(string) bool
			list, isList := a.([]any)
			if !isList {
				list = []any{a}
			}
			for _, e := range list {
				t, err := stringTest(name, e)
				if err != nil {
					return nil, fmt.Errorf("eventrules: %s: anything-but %s does not take %v", key, name, a)
				}
				tests = append(tests, t)
			}
			return func(v any, present bool) bool {
				s, ok := v.(string)
				if !present || !ok {
					return false
				}
				for _, t := range tests {
					if t(s) {
						return false
					}
				}
				return true
			}, nil
		}
	}
	list, isList := arg.([]any)
	if !isList {
		list = []any{arg}
	}
	return func(v any, present bool) bool {
		if !present {
			return false
		}
		for _, e := range list {
			if equal(e, v) {
				return false
			}
		}
		return true
	}, nil
}

// compileNumeric: [op, n] or [op, n, op, n] with <, <=, =, >=, >.
func compileNumeric(key string, arg any) (matcher, error) {
	list, ok := arg.([]any)
	if !ok || (len(list) != 2 && len(list) != 4) {
		return nil, fmt.Errorf("eventrules: %s: numeric takes [op, n] or [op, n, op, n], got %v", key, arg)
	}
	var tests []func(float64) bool
	for i := 0; i < len(list); i += 2 {
		op, _ := list[i].(string)
		n, ok := number(list[i+1])
		if !ok {
			return nil, fmt.Errorf("eventrules: %s: numeric bound %v is not a number", key, list[i+1])
		}
		var t func(float64) bool
		switch op {
		case "<":
			t = func(x float64) bool { return x < n }
		case "<=":
			t = func(x float64) bool { return x <= n }
		case "=":
			t = func(x float64) bool { return x == n }
		case ">=":
			t = func(x float64) bool { return x >= n }
		case ">":
			t = func(x float64) bool { return x > n }
		default:
			return nil, fmt.Errorf("eventrules: %s: numeric operator %v", key, list[i])
		}
		tests = append(tests, t)
	}
	return func(v any, present bool) bool {
		x, ok := number(v)
		if !present || !ok {
			return false
		}
		for _, t := range tests {
			if !t(x) {
				return false
			}
		}
		return true
	}, nil
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsInf(f, 0)
}

// equal compares a pattern literal with an event value: strings, booleans
// and null by value, numbers as numbers.
func equal(want, got any) bool {
	if a, ok := number(want); ok {
		b, ok := number(got)
		return ok && a == b
	}
	return want == got
}

func (o object) match(ev map[string]any) bool {
	for k, f := range o.fields {
		v, present := ev[k]
		if !f.match(v, present) {
			return false
		}
	}
	for _, group := range o.ors {
		if !anyMatch(group, ev) {
			return false
		}
	}
	return true
}

func anyMatch(alts []object, ev map[string]any) bool {
	for _, a := range alts {
		if a.match(ev) {
			return true
		}
	}
	return false
}

// match tests one event field; an array matches when one element does.
func (f field) match(v any, present bool) bool {
	if arr, ok := v.([]any); ok && present {
		for _, e := range arr {
			if f.match(e, true) {
				return true
			}
		}
		return f.nested == nil && len(arr) == 0 && f.matchLeaf(nil, false)
	}
	if f.nested != nil {
		m, ok := v.(map[string]any)
		if !present || !ok {
			// A nested pattern on an absent object sees every field absent.
			return f.nested.match(map[string]any{})
		}
		return f.nested.match(m)
	}
	return f.matchLeaf(v, present)
}

func (f field) matchLeaf(v any, present bool) bool {
	if _, isObject := v.(map[string]any); isObject {
		return false
	}
	for _, m := range f.values {
		if m(v, present) {
			return true
		}
	}
	return false
}
