package store

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Builder builds the transaction items of one table laid out by a schema.
// The entities' struct tags carry schema.Default's attribute names; Builder
// renames them to the schema's. The zero Schema is schema.Default.
type Builder struct {
	Table  string
	Schema schema.Schema
}

// NewBuilder returns the builder of table under sch.
func NewBuilder(table string, sch schema.Schema) Builder {
	return Builder{Table: table, Schema: sch.WithDefaults()}
}

func (b Builder) schema() schema.Schema {
	if b.Schema.PartitionKey == "" {
		return b.Schema.WithDefaults()
	}
	return b.Schema
}

// Key is the attribute-value form of a primary key.
func (b Builder) Key(k keys.Key) map[string]types.AttributeValue {
	sch := b.schema()
	return map[string]types.AttributeValue{
		sch.PartitionKey: &types.AttributeValueMemberS{Value: k.PK},
		sch.SortKey:      &types.AttributeValueMemberS{Value: k.SK},
	}
}

// NotExists is the condition that the item does not exist yet.
func (b Builder) NotExists() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(b.schema().PartitionKey))
}

// Exists is the condition that the item exists.
func (b Builder) Exists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(b.schema().PartitionKey))
}

// Marshal encodes an entity under the schema's attribute names.
func (b Builder) Marshal(item any) (map[string]types.AttributeValue, error) {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return nil, err
	}
	return rename(av, b.schema().Renames()), nil
}

// Unmarshal decodes an item stored under the schema's names into an entity.
func (b Builder) Unmarshal(item map[string]types.AttributeValue, out any) error {
	back := map[string]string{}
	for from, to := range b.schema().Renames() {
		back[to] = from
	}
	return attributevalue.UnmarshalMap(rename(item, back), out)
}

func rename(item map[string]types.AttributeValue, names map[string]string) map[string]types.AttributeValue {
	if len(names) == 0 {
		return item
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		if to, ok := names[k]; ok {
			k = to
		}
		out[k] = v
	}
	return out
}

// PutNew is a transaction Put of item under the condition that its key is free.
func (b Builder) PutNew(item any) (types.TransactWriteItem, error) {
	av, err := b.Marshal(item)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return b.PutNewItem(av)
}

// PutNewItem is [Builder.PutNew] of an item already marshalled (with
// [Builder.Marshal]).
func (b Builder) PutNewItem(av map[string]types.AttributeValue) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(b.NotExists()).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName:                           aws.String(b.Table),
		Item:                                av,
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// Update is a transaction Update of key with an update and a condition that
// returns the old item when the condition fails.
func (b Builder) Update(k keys.Key, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(b.Table),
		Key:                                 b.Key(k),
		UpdateExpression:                    expr.Update(),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// ConditionCheck is a transaction ConditionCheck of key that returns the
// item when the condition fails.
func (b Builder) ConditionCheck(k keys.Key, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                           aws.String(b.Table),
		Key:                                 b.Key(k),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}
