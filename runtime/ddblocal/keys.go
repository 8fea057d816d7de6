package ddblocal

import (
	"encoding/binary"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Keys are stored as byte strings whose bytewise order is DynamoDB's order
// for the key type, and which are prefix-free so that a partition key can be
// followed by a sort key and an index key by the table key.
//
//	S, B  the bytes with 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x01
//	N     a sign byte, a 16-bit exponent and the significant digits, inverted
//	      for negative numbers so that larger magnitudes sort first

const (
	numNegative = 0x01
	numZero     = 0x02
	numPositive = 0x03
	expBias     = 1 << 14
)

// appendKey appends the order-preserving, prefix-free encoding of v.
func appendKey(dst []byte, v attr.Value) []byte {
	switch v.T {
	case attr.N:
		return appendNumberKey(dst, v.S)
	default:
		return appendEscaped(dst, v.S, true)
	}
}

// appendEscaped appends s with 0x00 escaped. terminate adds the 0x00 0x01
// terminator; without it the result is a prefix of every longer string's
// encoding, which begins_with relies on.
func appendEscaped(dst []byte, s string, terminate bool) []byte {
	if strings.IndexByte(s, 0) < 0 {
		dst = append(dst, s...)
		if terminate {
			dst = append(dst, 0x00, 0x01)
		}
		return dst
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		dst = append(dst, c)
		if c == 0 {
			dst = append(dst, 0xFF)
		}
	}
	if terminate {
		dst = append(dst, 0x00, 0x01)
	}
	return dst
}

func appendNumberKey(dst []byte, text string) []byte {
	var d apd.Decimal
	if _, _, err := d.SetString(text); err != nil || d.IsZero() {
		return append(dst, numZero)
	}
	digits := strings.TrimRight(d.Coeff.String(), "0")
	trailing := len(d.Coeff.String()) - len(digits)
	// value = 0.digits × 10^e
	e := int(d.Exponent) + trailing + len(digits)
	var exp [2]byte
	if d.Negative {
		dst = append(dst, numNegative)
		binary.BigEndian.PutUint16(exp[:], uint16(expBias-e))
		dst = append(dst, exp[:]...)
		for i := 0; i < len(digits); i++ {
			dst = append(dst, 10-(digits[i]-'0'))
		}
		return append(dst, 0xFF)
	}
	dst = append(dst, numPositive)
	binary.BigEndian.PutUint16(exp[:], uint16(expBias+e))
	dst = append(dst, exp[:]...)
	for i := 0; i < len(digits); i++ {
		dst = append(dst, digits[i]-'0'+1)
	}
	return append(dst, 0x00)
}

// prefixEnd returns the smallest byte string greater than every string that
// begins with p, or nil when there is none.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
