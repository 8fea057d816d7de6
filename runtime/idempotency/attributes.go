package idempotency

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attributes names the attributes of a record. Both keys are strings; TTL
// is the table's time-to-live attribute (a Number of epoch seconds).
type Attributes struct {
	PartitionKey string // default "PK"
	SortKey      string // default "SK"
	TTL          string // default "expiresAt"
	EntityType   string // default "EntityType"; its value is "Idempotency"
	Operation    string // default "operation"
	Fingerprint  string // default "fingerprint"
	Status       string // default "responseStatus"
	Body         string // default "responseBody": a String, or Binary when not UTF-8
	Header       string // default "responseHeaders": a Map of Strings, only when headers are kept
	CreatedAt    string // default "createdAt"
	// State, LockedUntil and Owner are written by the external mode only.
	State       string // default "state"
	LockedUntil string // default "inProgressUntil"
	Owner       string // default "lockOwner"
}

// defaultAttributes are oncetable's own names (each field's default): the
// single table's key and TTL names, so records can share oncetable's table.
var defaultAttributes = Attributes{
	PartitionKey: "PK",
	SortKey:      "SK",
	TTL:          "expiresAt",
	EntityType:   "EntityType",
	Operation:    "operation",
	Fingerprint:  "fingerprint",
	Status:       "responseStatus",
	Body:         "responseBody",
	Header:       "responseHeaders",
	CreatedAt:    "createdAt",
	State:        "state",
	LockedUntil:  "inProgressUntil",
	Owner:        "lockOwner",
}

func (a Attributes) withDefaults() Attributes {
	d := defaultAttributes
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&a.PartitionKey, d.PartitionKey}, {&a.SortKey, d.SortKey}, {&a.TTL, d.TTL},
		{&a.EntityType, d.EntityType}, {&a.Operation, d.Operation}, {&a.Fingerprint, d.Fingerprint},
		{&a.Status, d.Status}, {&a.Body, d.Body}, {&a.Header, d.Header}, {&a.CreatedAt, d.CreatedAt},
		{&a.State, d.State}, {&a.LockedUntil, d.LockedUntil}, {&a.Owner, d.Owner},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return a
}

func (a Attributes) key(k itemKey) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		a.PartitionKey: &types.AttributeValueMemberS{Value: k.PK},
		a.SortKey:      &types.AttributeValueMemberS{Value: k.SK},
	}
}

func (a Attributes) encode(r Record) map[string]types.AttributeValue {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	item := map[string]types.AttributeValue{
		a.PartitionKey: s(r.PK), a.SortKey: s(r.SK), a.EntityType: s(EntityType),
		a.Operation: s(r.Operation), a.Fingerprint: s(r.Fingerprint), a.CreatedAt: s(r.CreatedAt), a.TTL: n(r.ExpiresAt),
	}
	if r.State != "" {
		item[a.State] = s(r.State)
		item[a.LockedUntil] = n(r.LockedUntil)
		item[a.Owner] = s(r.Owner)
		return item
	}
	item[a.Status] = n(int64(r.Status))
	item[a.Body] = bodyValue(r.Body)
	if h := headerValue(r.Header); h != nil {
		item[a.Header] = h
	}
	return item
}

// bodyValue stores a body as a String when it is UTF-8 (JSON, text) and
// as Binary otherwise (a codec's bytes).
func bodyValue(b []byte) types.AttributeValue {
	if utf8.Valid(b) {
		return &types.AttributeValueMemberS{Value: string(b)}
	}
	return &types.AttributeValueMemberB{Value: b}
}

// headerValue stores headers as a Map of Strings, several values of one
// header joined by ", " (RFC 9110 section 5.3); nil when there are none.
func headerValue(h http.Header) types.AttributeValue {
	if len(h) == 0 {
		return nil
	}
	m := make(map[string]types.AttributeValue, len(h))
	for k, vs := range h {
		m[http.CanonicalHeaderKey(k)] = &types.AttributeValueMemberS{Value: strings.Join(vs, ", ")}
	}
	return &types.AttributeValueMemberM{Value: m}
}

func (a Attributes) decode(item map[string]types.AttributeValue) (Record, error) {
	var r Record
	var err error
	fail := func(format string, args ...any) {
		if err == nil {
			err = fmt.Errorf(format, args...)
		}
	}
	str := func(name string, dst *string) {
		if v, ok := item[name].(*types.AttributeValueMemberS); ok {
			*dst = v.Value
		} else if _, present := item[name]; present {
			fail("attribute %s is not a string", name)
		}
	}
	num := func(name string, dst *int64) {
		if v, ok := item[name].(*types.AttributeValueMemberN); ok {
			n, perr := strconv.ParseInt(v.Value, 10, 64)
			if perr != nil {
				fail("attribute %s: %w", name, perr)
			}
			*dst = n
		} else if _, present := item[name]; present {
			fail("attribute %s is not a number", name)
		}
	}
	var status int64
	var entity string
	str(a.PartitionKey, &r.PK)
	str(a.SortKey, &r.SK)
	str(a.EntityType, &entity)
	str(a.Operation, &r.Operation)
	str(a.Fingerprint, &r.Fingerprint)
	num(a.Status, &status)
	str(a.CreatedAt, &r.CreatedAt)
	num(a.TTL, &r.ExpiresAt)
	str(a.State, &r.State)
	num(a.LockedUntil, &r.LockedUntil)
	str(a.Owner, &r.Owner)
	r.Status = int(status)
	switch v := item[a.Body].(type) {
	case nil:
	case *types.AttributeValueMemberS:
		r.Body = []byte(v.Value)
	case *types.AttributeValueMemberB:
		r.Body = v.Value
	default:
		fail("attribute %s is neither a string nor binary", a.Body)
	}
	r.Header, err = decodeHeader(item[a.Header], a.Header, err)
	if err != nil {
		return Record{}, fmt.Errorf("idempotency: decode record: %w", err)
	}
	if entity != EntityType {
		return Record{}, fmt.Errorf("idempotency: item %s/%s is a %q, not a record (or Options.Attributes.EntityType is not %q)", r.PK, r.SK, entity, a.EntityType)
	}
	if r.PK == "" || r.SK == "" {
		return Record{}, fmt.Errorf("idempotency: record has no %s/%s key: Options.Attributes.PartitionKey and SortKey must name the table's keys", a.PartitionKey, a.SortKey)
	}
	return r, nil
}

func decodeHeader(v types.AttributeValue, name string, err error) (http.Header, error) {
	if err != nil || v == nil {
		return nil, err
	}
	m, ok := v.(*types.AttributeValueMemberM)
	if !ok {
		return nil, fmt.Errorf("attribute %s is not a map", name)
	}
	h := make(http.Header, len(m.Value))
	for k, e := range m.Value {
		s, ok := e.(*types.AttributeValueMemberS)
		if !ok {
			return nil, fmt.Errorf("attribute %s.%s is not a string", name, k)
		}
		h.Set(k, s.Value)
	}
	return h, nil
}

// condition is the write condition of a record: absent or expired at now.
// A record stops blocking its key at the second its TTL names (TTL <=
// now), so InProgressError.Until is the first moment a retry succeeds.
func (a Attributes) condition(now time.Time) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(a.PartitionKey)).
		Or(expression.Name(a.TTL).LessThanEqual(expression.Value(now.Unix())))
}

func (a Attributes) put(table string, r Record, now time.Time) (*types.Put, error) {
	expr, err := expression.NewBuilder().WithCondition(a.condition(now)).Build()
	if err != nil {
		return nil, err
	}
	return &types.Put{
		TableName:                           aws.String(table),
		Item:                                a.encode(r),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, nil
}

// freeCheck is the ConditionCheck that k holds no live record at now, and
// returns the record that does on failure.
func (a Attributes) freeCheck(table string, k itemKey, now time.Time) (*types.ConditionCheck, error) {
	expr, err := expression.NewBuilder().WithCondition(a.condition(now)).Build()
	if err != nil {
		return nil, err
	}
	return &types.ConditionCheck{
		TableName:                           aws.String(table),
		Key:                                 a.key(k),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, nil
}
