package idempotency

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxItemSize is DynamoDB's item size limit, 400 KB, which a record (key,
// bookkeeping attributes and the stored answer) must fit in.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items
const MaxItemSize = 400 * 1024

// ResultTooLargeError is an answer too large to store in one record: Size
// is the record item's size in bytes as DynamoDB counts it, Limit is
// [MaxItemSize]. Nothing is written: in the transactional mode the effect
// does not commit; in the external mode the pending record is released.
// Store a large result elsewhere (S3) and answer with a pointer to it.
type ResultTooLargeError struct {
	Size, Limit int
}

func (e *ResultTooLargeError) Error() string {
	return fmt.Sprintf("idempotency: the record with this answer is %d bytes, over DynamoDB's item size limit of %d bytes; store a large result elsewhere (S3) and answer with a pointer to it", e.Size, e.Limit)
}

// checkSize refuses a record item over DynamoDB's limit.
func checkSize(item map[string]types.AttributeValue) error {
	if n := itemSize(item); n > MaxItemSize {
		return &ResultTooLargeError{Size: n, Limit: MaxItemSize}
	}
	return nil
}

// itemSize is an item's size as DynamoDB counts it: each attribute name's
// UTF-8 length plus its value's size.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize: strings and binaries by length; a number by its significant
// digits (one byte per two, plus one); booleans and nulls one byte; a list
// or map 3 bytes plus one per element and its elements (and a map's names).
func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int {
	s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	digits := len(strings.Replace(s, ".", "", 1))
	return (digits+1)/2 + 1
}
