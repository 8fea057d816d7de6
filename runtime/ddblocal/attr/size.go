package attr

import "unicode/utf8"

// MaxItemSize is DynamoDB's limit on one item: 400 KB, names included.
const MaxItemSize = 400 * 1024

// Size returns v's size in bytes by DynamoDB's documented rules: strings
// and binaries by length, numbers about one byte per two significant digits
// plus one, BOOL and NULL one byte, lists and maps 3 bytes plus one byte and
// the size of each element (and, for maps, each name).
func (v Value) Size() int {
	switch v.T {
	case S, B:
		return len(v.S)
	case N:
		return numberSize(v.S)
	case BOOL, NULL:
		return 1
	case L:
		n := 3
		for _, e := range v.L {
			n += 1 + e.Size()
		}
		return n
	case M:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + e.Size()
		}
		return n
	case SS, BS:
		n := 0
		for _, m := range v.Set {
			n += len(m)
		}
		return n
	case NS:
		n := 0
		for _, m := range v.Set {
			n += numberSize(m)
		}
		return n
	}
	return 0
}

// numberSize counts the significant digits of a canonical number.
func numberSize(canonical string) int {
	digits := 0
	lead := true
	trailingZeros := 0
	for i := 0; i < len(canonical); i++ {
		c := canonical[i]
		if c < '0' || c > '9' {
			continue
		}
		if lead && c == '0' {
			continue
		}
		lead = false
		digits++
		if c == '0' {
			trailingZeros++
		} else {
			trailingZeros = 0
		}
	}
	digits -= trailingZeros
	if digits == 0 {
		digits = 1
	}
	return (digits+1)/2 + 1
}

// ItemSize returns the item's size: the sum of each attribute name's UTF-8
// length and its value's size.
func ItemSize(it Item) int {
	n := 0
	for k, v := range it {
		n += len(k) + v.Size()
	}
	return n
}

// ValidUTF8 reports whether every string in v (names included) is valid
// UTF-8, as DynamoDB requires.
func (v Value) ValidUTF8() bool {
	switch v.T {
	case S:
		return utf8.ValidString(v.S)
	case SS:
		for _, m := range v.Set {
			if !utf8.ValidString(m) {
				return false
			}
		}
	case L:
		for _, e := range v.L {
			if !e.ValidUTF8() {
				return false
			}
		}
	case M:
		for k, e := range v.M {
			if !utf8.ValidString(k) || !e.ValidUTF8() {
				return false
			}
		}
	}
	return true
}

// Depth returns how deeply the item nests: an attribute is level 1, and
// each list or map adds a level to what it holds ({"a":{"M":{"b":{"S":"x"}}}}
// is 2).
func Depth(it Item) int {
	d := 0
	for _, v := range it {
		d = max(d, v.depth())
	}
	return d
}

func (v Value) depth() int {
	inner := 0
	switch v.T {
	case L:
		for _, e := range v.L {
			inner = max(inner, e.depth())
		}
	case M:
		for _, e := range v.M {
			inner = max(inner, e.depth())
		}
	}
	return 1 + inner
}
