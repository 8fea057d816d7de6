package attr

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// DynamoDB's number limits: 38 significant digits, magnitudes from 1E-130
// up to (but excluding) 1E+126.
const (
	MaxDigits    = 38
	minExponent  = -130 // smallest magnitude is 1E-130
	maxMagnitude = 126  // magnitude must stay below 1E+126
)

// arith is exact enough for any sum or difference of two DynamoDB numbers:
// their digits span at most 126+130+1 places.
var arith = apd.Context{Precision: 300, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps}

// The messages DynamoDB returns for numbers it cannot store.
const (
	msgNotNumber      = "A value provided cannot be converted into a number"
	msgOverflow       = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgUnderflow      = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgTooManyDigits  = "Attempting to store more than 38 significant digits in a Number"
	msgEmptyNumberArg = "The parameter cannot be converted to a numeric value"
)

// ParseNumber parses decimal text (optionally signed, with an optional
// exponent) and checks it against DynamoDB's precision and range.
func ParseNumber(text string) (*apd.Decimal, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, &ValidationError{Message: msgEmptyNumberArg}
	}
	for _, r := range t {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return nil, &ValidationError{Message: msgNotNumber}
		}
	}
	d, _, err := apd.NewFromString(t)
	if err != nil || d.Form != apd.Finite {
		return nil, &ValidationError{Message: msgNotNumber}
	}
	if err := checkRange(d); err != nil {
		return nil, err
	}
	return d, nil
}

// checkRange reduces d in place and validates precision and magnitude.
func checkRange(d *apd.Decimal) error {
	d.Reduce(d)
	if d.IsZero() {
		d.Negative = false
		d.Exponent = 0
		return nil
	}
	// The value is coefficient * 10^exp with `digits` digits, so its
	// magnitude lies in [10^(exp+digits-1), 10^(exp+digits)). DynamoDB
	// reports an overflow before a precision loss.
	digits := d.NumDigits()
	top := int64(d.Exponent) + digits
	if top > maxMagnitude {
		return &ValidationError{Message: msgOverflow}
	}
	if digits > MaxDigits {
		return &ValidationError{Message: msgTooManyDigits}
	}
	if top-1 < minExponent {
		return &ValidationError{Message: msgUnderflow}
	}
	return nil
}

// CanonicalNumber returns the form the engine stores and returns for a
// number: no leading or trailing zeros, no exponent, "0" for zero.
func CanonicalNumber(text string) (string, error) {
	if isCanonical(text) {
		return text, nil
	}
	d, err := ParseNumber(text)
	if err != nil {
		return "", err
	}
	return formatNumber(d), nil
}

func formatNumber(d *apd.Decimal) string { return d.Text('f') }

// Decimal returns the number held by an N value (or an NS member).
func Decimal(canonical string) *apd.Decimal {
	d, _, err := apd.NewFromString(canonical)
	if err != nil {
		// Stored numbers were validated on the way in.
		panic("attr: invalid stored number " + canonical)
	}
	return d
}

func compareNumbers(a, b string) int {
	if a == b {
		return 0
	}
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			return cmpInt(x, y)
		}
	}
	return Decimal(a).Cmp(Decimal(b))
}

// CompareNumbers orders two canonical decimal texts numerically.
func CompareNumbers(a, b string) int { return compareNumbers(a, b) }

// AddNumbers returns a+b for two N values, exactly, or the error DynamoDB
// gives when the result cannot be stored.
func AddNumbers(a, b Value) (Value, error) { return arithmetic(a, b, false) }

// SubNumbers returns a-b for two N values.
func SubNumbers(a, b Value) (Value, error) { return arithmetic(a, b, true) }

func arithmetic(a, b Value, subtract bool) (Value, error) {
	// Counters are small integers: int64 arithmetic is exact for them.
	if x, ok := smallInt(a.S); ok {
		if y, ok := smallInt(b.S); ok {
			if subtract {
				y = -y
			}
			return Value{T: N, S: strconv.FormatInt(x+y, 10)}, nil
		}
	}
	var r apd.Decimal
	var err error
	if subtract {
		_, err = arith.Sub(&r, Decimal(a.S), Decimal(b.S))
	} else {
		_, err = arith.Add(&r, Decimal(a.S), Decimal(b.S))
	}
	if err != nil {
		return Value{}, &ValidationError{Message: msgOverflow}
	}
	if err := checkRange(&r); err != nil {
		return Value{}, err
	}
	return Value{T: N, S: formatNumber(&r)}, nil
}

// isCanonical reports whether text is already in canonical form and within
// range: an optional minus, an integer part without leading zeros, and an
// optional fraction not ending in zero, at most 38 digits in all. Most
// numbers sent are, and recognising them skips the decimal parser.
func isCanonical(text string) bool {
	i := 0
	if i < len(text) && text[i] == '-' {
		i++
	}
	start := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	intDigits := i - start
	if intDigits == 0 || (intDigits > 1 && text[start] == '0') {
		return false
	}
	digits := intDigits
	if i < len(text) {
		if text[i] != '.' {
			return false
		}
		i++
		fracStart := i
		for i < len(text) && text[i] >= '0' && text[i] <= '9' {
			i++
		}
		if i != len(text) || i == fracStart || text[i-1] == '0' {
			return false
		}
		digits += i - fracStart
	} else if text[start] == '0' && start > 0 {
		return false // "-0" is "0"
	}
	return digits <= MaxDigits
}

// smallInt parses a canonical integer of at most 18 digits, whose sums and
// differences cannot overflow an int64.
func smallInt(canonical string) (int64, bool) {
	s := canonical
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		if n == 0 {
			return 0, false
		}
		n = -n
	}
	return n, true
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
