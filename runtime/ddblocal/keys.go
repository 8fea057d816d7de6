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

// describePartition renders the partition-key values encoded in part (by
// appendKey) for a person: a string as its text, a number as its digits,
// joined by " | ". The encoding does not carry the type: a segment that
// starts with a number's sign byte (0x01..0x03) and parses as a number is
// read as one, so a string starting with such a control character may be
// shown as a number. It is for diagnostics only.
func describePartition(part string) string {
	var out []string
	for len(part) > 0 {
		var seg string
		if n, rest, ok := decodeNumberKey(part); ok {
			seg, part = n, rest
		} else {
			seg, part = decodeStringKey(part)
		}
		out = append(out, seg)
	}
	return strings.Join(out, " | ")
}

// decodeStringKey reads one terminated string segment of a key.
func decodeStringKey(k string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if k[i] != 0 || i+1 >= len(k) {
			b.WriteByte(k[i])
			continue
		}
		i++
		if k[i] == 0x01 {
			return b.String(), k[i+1:]
		}
		b.WriteByte(0) // 0x00 0xFF
	}
	return b.String(), ""
}

// decodeNumberKey reads one number segment of a key (see appendNumberKey).
func decodeNumberKey(k string) (string, string, bool) {
	switch {
	case k == "":
		return "", k, false
	case k[0] == numZero:
		return "0", k[1:], true
	case (k[0] != numPositive && k[0] != numNegative) || len(k) < 4:
		return "", k, false
	}
	neg := k[0] == numNegative
	e := int(binary.BigEndian.Uint16([]byte(k[1:3]))) - expBias
	if neg {
		e = -e
	}
	var digits []byte
	i := 3
	for ; i < len(k); i++ {
		c := k[i]
		if (!neg && c == 0x00) || (neg && c == 0xFF) {
			break
		}
		d := c - 1
		if neg {
			d = 10 - c
		}
		if d > 9 {
			return "", k, false
		}
		digits = append(digits, '0'+d)
	}
	if i >= len(k) || len(digits) == 0 {
		return "", k, false
	}
	var d apd.Decimal
	if _, _, err := d.SetString("0." + string(digits)); err != nil {
		return "", k, false
	}
	d.Exponent += int32(e)
	d.Negative = neg
	return d.Text('f'), k[i+1:], true
}
