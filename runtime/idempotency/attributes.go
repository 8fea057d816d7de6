package idempotency

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
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
	Body         string // default "responseBody"
	CreatedAt    string // default "createdAt"
	// State, LockedUntil and Owner are written by the external mode only.
	State       string // default "state"
	LockedUntil string // default "inProgressUntil"
	Owner       string // default "lockOwner"
}

// DefaultAttributes are oncetable's own names.
var DefaultAttributes = Attributes{
	PartitionKey: schema.PartitionKey,
	SortKey:      schema.SortKey,
	TTL:          schema.TTLAttribute,
	EntityType:   schema.EntityType,
	Operation:    "operation",
	Fingerprint:  "fingerprint",
	Status:       "responseStatus",
	Body:         "responseBody",
	CreatedAt:    schema.CreatedAt,
	State:        "state",
	LockedUntil:  "inProgressUntil",
	Owner:        "lockOwner",
}

func (a Attributes) withDefaults() Attributes {
	d := DefaultAttributes
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&a.PartitionKey, d.PartitionKey}, {&a.SortKey, d.SortKey}, {&a.TTL, d.TTL},
		{&a.EntityType, d.EntityType}, {&a.Operation, d.Operation}, {&a.Fingerprint, d.Fingerprint},
		{&a.Status, d.Status}, {&a.Body, d.Body}, {&a.CreatedAt, d.CreatedAt},
		{&a.State, d.State}, {&a.LockedUntil, d.LockedUntil}, {&a.Owner, d.Owner},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return a
}

func (a Attributes) key(k keys.Key) map[string]types.AttributeValue {
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
		a.PartitionKey: s(r.PK), a.SortKey: s(r.SK), a.EntityType: s(r.EntityType),
		a.Operation: s(r.Operation), a.Fingerprint: s(r.Fingerprint), a.Status: n(int64(r.Status)),
		a.Body: s(r.Body), a.CreatedAt: s(r.CreatedAt), a.TTL: n(r.ExpiresAt),
	}
	if r.State != "" {
		item[a.State] = s(r.State)
		item[a.LockedUntil] = n(r.LockedUntil)
		item[a.Owner] = s(r.Owner)
	}
	return item
}

func (a Attributes) decode(item map[string]types.AttributeValue) (Record, error) {
	var r Record
	var err error
	str := func(name string, dst *string) {
		if v, ok := item[name].(*types.AttributeValueMemberS); ok {
			*dst = v.Value
		} else if _, present := item[name]; present && err == nil {
			err = fmt.Errorf("attribute %s is not a string", name)
		}
	}
	num := func(name string, dst *int64) {
		if v, ok := item[name].(*types.AttributeValueMemberN); ok {
			n, perr := strconv.ParseInt(v.Value, 10, 64)
			if perr != nil && err == nil {
				err = fmt.Errorf("attribute %s: %w", name, perr)
			}
			*dst = n
		} else if _, present := item[name]; present && err == nil {
			err = fmt.Errorf("attribute %s is not a number", name)
		}
	}
	var status int64
	str(a.PartitionKey, &r.PK)
	str(a.SortKey, &r.SK)
	str(a.EntityType, &r.EntityType)
	str(a.Operation, &r.Operation)
	str(a.Fingerprint, &r.Fingerprint)
	num(a.Status, &status)
	str(a.Body, &r.Body)
	str(a.CreatedAt, &r.CreatedAt)
	num(a.TTL, &r.ExpiresAt)
	str(a.State, &r.State)
	num(a.LockedUntil, &r.LockedUntil)
	str(a.Owner, &r.Owner)
	r.Status = int(status)
	if err != nil {
		return Record{}, fmt.Errorf("idempotency: decode record: %w", err)
	}
	if r.EntityType != EntityType {
		return Record{}, fmt.Errorf("idempotency: item %s/%s is a %q, not a record", r.PK, r.SK, r.EntityType)
	}
	return r, nil
}

// condition is the write condition of a record: absent or expired at now.
func (a Attributes) condition(now time.Time) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(a.PartitionKey)).
		Or(expression.Name(a.TTL).LessThan(expression.Value(now.Unix())))
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
