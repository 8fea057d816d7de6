package attr

import (
	"fmt"
	"slices"
)

var sprintf = fmt.Sprintf

// Type is a DynamoDB attribute type.
type Type uint8

// The attribute types, named as on the wire.
const (
	S Type = iota + 1
	N
	B
	BOOL
	NULL
	L
	M
	SS
	NS
	BS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"}

func (t Type) String() string {
	if int(t) < len(typeNames) && t != 0 {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// ParseType maps a wire name such as "SS" to its Type.
func ParseType(name string) (Type, bool) {
	for i, n := range typeNames {
		if n == name && i > 0 {
			return Type(i), true
		}
	}
	return 0, false
}

// IsSet reports whether t is one of the set types.
func (t Type) IsSet() bool { return t == SS || t == NS || t == BS }

// Value is one attribute value. Which fields are meaningful depends on T:
//
//	S, N, B      S holds the string, the canonical decimal text, or the raw bytes
//	BOOL         Bool
//	NULL         nothing (a NULL is always true)
//	L            L
//	M            M
//	SS, NS, BS   Set holds the members (canonical decimal text for NS, raw
//	             bytes for BS), unique, in no particular order
//
// The zero Value (T == 0) means "no value" and never appears in an item.
type Value struct {
	T    Type
	S    string
	Bool bool
	L    []Value
	M    map[string]Value
	Set  []string
}

// Item is a DynamoDB item: attribute names to values.
type Item map[string]Value

// Str returns an S value.
func Str(s string) Value { return Value{T: S, S: s} }

// Bin returns a B value holding a copy of b.
func Bin(b []byte) Value { return Value{T: B, S: string(b)} }

// Boolean returns a BOOL value.
func Boolean(b bool) Value { return Value{T: BOOL, Bool: b} }

// Null returns a NULL value.
func Null() Value { return Value{T: NULL} }

// List returns an L value.
func List(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{T: L, L: vs}
}

// Map returns an M value.
func Map(m map[string]Value) Value {
	if m == nil {
		m = map[string]Value{}
	}
	return Value{T: M, M: m}
}

// Num returns an N value from decimal text, validated and made canonical.
func Num(text string) (Value, error) {
	c, err := CanonicalNumber(text)
	if err != nil {
		return Value{}, err
	}
	return Value{T: N, S: c}, nil
}

// MustNum is Num for literals known to be valid; it panics otherwise.
func MustNum(text string) Value {
	v, err := Num(text)
	if err != nil {
		panic(err)
	}
	return v
}

// Int returns an N value for an integer.
func Int(i int64) Value { return Value{T: N, S: fmt.Sprint(i)} }

// StrSet returns an SS value. It reports duplicate or missing members.
func StrSet(members ...string) (Value, error) { return newSet(SS, members) }

// NumSet returns an NS value with canonical members.
func NumSet(members ...string) (Value, error) {
	canon := make([]string, len(members))
	for i, m := range members {
		c, err := CanonicalNumber(m)
		if err != nil {
			return Value{}, err
		}
		canon[i] = c
	}
	return newSet(NS, canon)
}

// BinSet returns a BS value.
func BinSet(members ...[]byte) (Value, error) {
	ms := make([]string, len(members))
	for i, m := range members {
		ms[i] = string(m)
	}
	return newSet(BS, ms)
}

func newSet(t Type, members []string) (Value, error) {
	if len(members) == 0 {
		return Value{}, emptySetError(t)
	}
	seen := make(map[string]struct{}, len(members))
	for _, m := range members {
		if _, dup := seen[m]; dup {
			return Value{}, Invalidf("One or more parameter values were invalid: Input collection %s contains duplicates.", collection(t, members))
		}
		seen[m] = struct{}{}
	}
	return Value{T: t, Set: slices.Clone(members)}, nil
}

func emptySetError(t Type) error {
	switch t {
	case NS:
		return Invalidf("One or more parameter values were invalid: An number set  may not be empty")
	case BS:
		return Invalidf("One or more parameter values were invalid: Binary sets should not be empty")
	default:
		return Invalidf("One or more parameter values were invalid: An string set  may not be empty")
	}
}

func collection(t Type, members []string) string {
	out := "["
	for i, m := range members {
		if i > 0 {
			out += ", "
		}
		if t == BS {
			out += fmt.Sprintf("java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", len(m), len(m))
		} else {
			out += m
		}
	}
	return out + "]"
}

// Has reports whether the set value v contains member (canonical form for NS).
func (v Value) Has(member string) bool { return slices.Contains(v.Set, member) }

// Clone returns a deep copy of v.
func (v Value) Clone() Value {
	switch v.T {
	case L:
		l := make([]Value, len(v.L))
		for i, e := range v.L {
			l[i] = e.Clone()
		}
		v.L = l
	case M:
		m := make(map[string]Value, len(v.M))
		for k, e := range v.M {
			m[k] = e.Clone()
		}
		v.M = m
	case SS, NS, BS:
		v.Set = slices.Clone(v.Set)
	}
	return v
}

// Clone returns a deep copy of it.
func (it Item) Clone() Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v.Clone()
	}
	return out
}

// Equal reports whether a and b are the same DynamoDB value: numbers compare
// numerically, sets regardless of order, lists in order, maps by key.
func Equal(a, b Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case S, B:
		return a.S == b.S
	case N:
		return a.S == b.S || compareNumbers(a.S, b.S) == 0
	case BOOL:
		return a.Bool == b.Bool
	case NULL:
		return true
	case L:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !Equal(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case M:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, av := range a.M {
			bv, ok := b.M[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case SS, NS, BS:
		if len(a.Set) != len(b.Set) {
			return false
		}
		for _, m := range a.Set {
			if !b.Has(m) {
				return false
			}
		}
		return true
	}
	return a.T == 0
}

// EqualItems reports whether two items hold the same attributes and values.
func EqualItems(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

// Compare orders two scalar values of the same type the way DynamoDB orders
// them: S by UTF-8 bytes, N numerically, B by unsigned bytes. ok is false
// when the types differ or are not S, N or B.
func Compare(a, b Value) (cmp int, ok bool) {
	if a.T != b.T {
		return 0, false
	}
	switch a.T {
	case S, B:
		switch {
		case a.S < b.S:
			return -1, true
		case a.S > b.S:
			return 1, true
		}
		return 0, true
	case N:
		return compareNumbers(a.S, b.S), true
	}
	return 0, false
}
