package ddblocal

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
)

// The model constraints of each operation, in the order DynamoDB reports
// them (see validate.go). Sources: the DynamoDB API Reference's request
// parameters of each action (type, length, range and valid values).

// writeConstraints are the members PutItem, UpdateItem and DeleteItem
// share; target is "item" for PutItem and "key" otherwise.
func (w *writeOptions) writeConstraints(c *checker, target string, present bool) {
	c.tableName("tableName", "TableName", &w.TableName, 1, nullName)
	c.enum("returnConsumedCapacity", w.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.notNull(target, present)
	c.enum("returnValues", w.ReturnValues, enumReturnValues...)
	c.enum("returnItemCollectionMetrics", w.ReturnItemCollectionMetrics, enumReturnItemCollection...)
	c.enum("returnValuesOnConditionCheckFailure", w.ReturnValuesOnConditionCheckFailure, enumOnConditionFailure...)
}

func (in *putItemInput) validate(c *checker) {
	in.writeConstraints(c, "item", in.Item != nil)
	c.valuesNeedExpression(in.ExpressionAttributeValues != nil, namedExpr{"ConditionExpression", in.ConditionExpression != nil})
}

func (in *updateItemInput) validate(c *checker) {
	in.writeConstraints(c, "key", in.Key != nil)
	c.valuesNeedExpression(in.ExpressionAttributeValues != nil,
		namedExpr{"UpdateExpression", in.UpdateExpression != nil}, namedExpr{"ConditionExpression", in.ConditionExpression != nil})
}

func (in *deleteItemInput) validate(c *checker) {
	in.writeConstraints(c, "key", in.Key != nil)
	c.valuesNeedExpression(in.ExpressionAttributeValues != nil, namedExpr{"ConditionExpression", in.ConditionExpression != nil})
}

func (in *getItemInput) validate(c *checker) {
	c.tableName("tableName", "TableName", &in.TableName, 1, nullName)
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.notNull("key", in.Key != nil)
}

// readConstraints are the members Query and Scan share. Query names its
// limit 'Limit' and shows no value; Scan shows 'limit' and the value.
func (in *readInput) readConstraints(c *checker, query bool) {
	c.tableName("tableName", "TableName", &in.TableName, 1, nullName)
	if query {
		c.minValue("Limit", in.Limit, 1, showNone)
	} else {
		c.minValue("limit", in.Limit, 1, showValue)
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.enum("select", in.Select, enumSelect...)
}

func (in *queryInput) validate(c *checker) {
	in.readConstraints(c, true)
	c.valuesNeedExpression(in.ExpressionAttributeValues != nil,
		namedExpr{"FilterExpression", in.FilterExpression != nil}, namedExpr{"KeyConditionExpression", in.KeyConditionExpression != nil})
}

func (in *scanInput) validate(c *checker) {
	in.readConstraints(c, false)
	c.valuesNeedExpression(in.ExpressionAttributeValues != nil, namedExpr{"FilterExpression", in.FilterExpression != nil})
}

// tableNameInput serves DescribeTable, DeleteTable, DescribeTimeToLive
// and DescribeContinuousBackups.
func (in *tableNameInput) validate(c *checker) {
	c.tableName("tableName", "TableName", &in.TableName, 1, nullName)
}

// UpdateTimeToLive's specification (API Reference, TimeToLiveSpecification:
// AttributeName of 1 to 255 characters and Enabled, both required),
// reported together in the model's order.
func (in *updateTimeToLiveInput) validate(c *checker) {
	c.tableName("tableName", "TableName", &in.TableName, 1, nullName)
	if c.done() {
		return
	}
	spec := in.TimeToLiveSpecification
	if spec == nil {
		c.notNull("timeToLiveSpecification", false)
		return
	}
	const name = "timeToLiveSpecification.attributeName"
	switch n := utf8.RuneCountInString(spec.AttributeName); {
	case n == 0 && ttlAttributeNamePresent(c.raw("TimeToLiveSpecification")):
		c.add(showValue, "", name, "Member must have length greater than or equal to 1")
	case n == 0:
		c.notNull(name, false)
	case n > 255:
		c.add(showValue, spec.AttributeName, name, "Member must have length less than or equal to 255")
	}
	c.notNull("timeToLiveSpecification.enabled", spec.Enabled != nil)
}

// ttlAttributeNamePresent reports whether a TimeToLiveSpecification's JSON
// names an AttributeName, empty or not.
func ttlAttributeNamePresent(raw json.RawMessage) bool {
	var spec struct{ AttributeName *string }
	return json.Unmarshal(raw, &spec) == nil && spec.AttributeName != nil
}

func (in *createTableInput) validate(c *checker) {
	c.tableName("tableName", "TableName", &in.TableName, 3, requiredName)
	for i, d := range in.AttributeDefinitions {
		keyAttributeName(c, member("attributeDefinitions", i)+".attributeName", d.AttributeName)
		c.enum(member("attributeDefinitions", i)+".attributeType", d.AttributeType, enumAttributeType...)
	}
	if n := len(in.KeySchema); n > 2 {
		c.add(showValue, keySchemaString(in.KeySchema), "keySchema", "Member must have length less than or equal to 2")
	}
	keyTypes(c, "keySchema", in.KeySchema)
	for i, ix := range in.LocalSecondaryIndexes {
		keyTypes(c, member("localSecondaryIndexes", i)+".keySchema", ix.KeySchema)
	}
	for i, ix := range in.GlobalSecondaryIndexes {
		keyTypes(c, member("globalSecondaryIndexes", i)+".keySchema", ix.KeySchema)
	}
	c.enum("billingMode", in.BillingMode, enumBillingMode...)
	if in.BillingMode != "PAY_PER_REQUEST" {
		// On demand, any throughput given is refused by CreateTable itself.
		throughputConstraints(c, "provisionedThroughput", in.ProvisionedThroughput)
		for i, g := range in.GlobalSecondaryIndexes {
			throughputConstraints(c, member("globalSecondaryIndexes", i)+".provisionedThroughput", g.ProvisionedThroughput)
		}
		throughputBounds(c, in.ProvisionedThroughput, "")
		for _, g := range in.GlobalSecondaryIndexes {
			throughputBounds(c, g.ProvisionedThroughput, " for index "+g.IndexName)
		}
	}
}

// keyTypes checks the AttributeName and KeyType of every element of a key
// schema, the table's or an index's, reporting a bad one at its member path
// (for example globalSecondaryIndexes.1.member.keySchema.1.member.keyType).
func keyTypes(c *checker, path string, ks []keySchemaElement) {
	for i, k := range ks {
		keyAttributeName(c, member(path, i)+".attributeName", k.AttributeName)
		c.enum(member(path, i)+".keyType", k.KeyType, enumKeyType...)
	}
}

// keyAttributeName checks a key attribute's name against the model's
// KeySchemaAttributeName (1 to 255 characters). An absent name is left to
// the key schema's own checks.
func keyAttributeName(c *checker, path, name string) {
	if name != "" {
		mc := modelChecker{c: c, shapes: ddb.Shapes}
		mc.str(path, &ddb.Shapes[ddb.ShapeKeySchemaAttributeName], name)
	}
}

// requestItemKeys checks the table names that key a batch's RequestItems
// and resolves those given as table ARNs, recording in *given the ARN of
// each table so named. The map is rebuilt only when an ARN is among its
// keys.
func requestItemKeys[V any](c *checker, items map[string]V, given *map[string]string) map[string]V {
	bad, arns := false, false
	for name := range items {
		if strings.HasPrefix(name, "arn:") {
			_, ok := tableNameOfARN(name)
			bad, arns = bad || !ok, true
			continue
		}
		bad = bad || !validNameChars(name) || len(name) < minTableNameLen || len(name) > maxTableNameLen
	}
	if bad {
		c.add(showValue, javaString(c.raw("RequestItems")), "requestItems",
			"Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: "+tableNamePattern+"]")
	}
	if !arns || bad {
		return items
	}
	resolved := make(map[string]V, len(items))
	*given = map[string]string{}
	for name, v := range items {
		arn := name
		resolveTableARN(&name)
		if arn != name {
			(*given)[name] = arn
		}
		resolved[name] = v
	}
	return resolved
}

func (in *batchGetItemInput) validate(c *checker) {
	if len(in.RequestItems) == 0 {
		c.stop(validationf("The requestItems parameter is required for BatchGetItem"))
		return
	}
	in.RequestItems = requestItemKeys(c, in.RequestItems, &in.asGiven)
	for _, name := range sortedKeys(in.RequestItems) {
		if ka := in.RequestItems[name]; ka != nil && len(ka.Keys) > maxBatchGet {
			c.add(showNone, "", "RequestItems."+name+".member.Keys", "Member must have length less than or equal to "+strconv.Itoa(maxBatchGet))
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
}

func (in *batchWriteItemInput) validate(c *checker) {
	if len(in.RequestItems) == 0 {
		c.stop(validationf("The requestItems parameter is required for BatchWriteItem"))
		return
	}
	in.RequestItems = requestItemKeys(c, in.RequestItems, &in.asGiven)
	for _, reqs := range in.RequestItems {
		if len(reqs) == 0 || len(reqs) > maxBatchWrite {
			c.add(showValue, javaString(c.raw("RequestItems")), "requestItems",
				"Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
			break
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection...)
}

// transactItemsConstraint checks the length of TransactItems (1 to 100),
// echoing the list as DynamoDB does.
func transactItemsConstraint(c *checker, n int) {
	switch {
	case n == 0 && !c.present("TransactItems"):
		c.notNull("transactItems", false)
	case n == 0:
		c.add(showValue, "[]", "transactItems", "Member must have length greater than or equal to 1")
	case n > maxTransactItems:
		c.add(showValue, javaString(c.raw("TransactItems")), "transactItems", "Member must have length less than or equal to "+strconv.Itoa(maxTransactItems))
	}
}

func (in *transactWriteItemsInput) validate(c *checker) {
	transactItemsConstraint(c, len(in.TransactItems))
	for _, ti := range in.TransactItems {
		for _, a := range []*txAction{ti.ConditionCheck, ti.Put, ti.Delete, ti.Update} {
			if a != nil {
				resolveTableARN(&a.TableName)
			}
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnItemCollection...)
	if t := in.ClientRequestToken; t != nil {
		mc := modelChecker{c: c, shapes: ddb.Shapes}
		mc.str("clientRequestToken", &ddb.Shapes[ddb.ShapeClientRequestToken], *t)
	}
}

func (in *transactGetItemsInput) validate(c *checker) {
	transactItemsConstraint(c, len(in.TransactItems))
	for _, ti := range in.TransactItems {
		if ti.Get != nil {
			resolveTableARN(&ti.Get.TableName)
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
}

func (in *listTablesInput) validate(c *checker) {
	limit := &ddb.Shapes[ddb.ShapeListTablesInputLimit]
	c.minValue("limit", in.Limit, int(limit.Min), showValue)
	c.maxValue("limit", in.Limit, int(limit.Max))
	if in.ExclusiveStartTableName == "" && c.present("ExclusiveStartTableName") {
		c.add(showValue, "", "exclusiveStartTableName", "Member must have length greater than or equal to 3")
	}
}

// maxThroughputUnits bounds the capacity units a table or index may ask for.
const maxThroughputUnits = 1_000_000_000_000

// throughputConstraints checks a ProvisionedThroughput member at path:
// both units present and at least 1.
func throughputConstraints(c *checker, path string, pt *provisionedThroughput) {
	if pt == nil {
		return
	}
	for _, u := range []struct {
		name string
		v    *int64
	}{{"readCapacityUnits", pt.ReadCapacityUnits}, {"writeCapacityUnits", pt.WriteCapacityUnits}} {
		switch {
		case u.v == nil:
			c.add(showNull, "", path+"."+u.name, "Member must not be null")
		case *u.v < 1:
			c.add(showValue, strconv.FormatInt(*u.v, 10), path+"."+u.name, "Member must have value greater than or equal to 1")
		}
	}
}

// throughputBounds refuses capacity units beyond what DynamoDB accepts;
// suffix names the index, if any. Checked once the constraints hold.
func throughputBounds(c *checker, pt *provisionedThroughput, suffix string) {
	if pt == nil || c.done() || len(c.errs) > 0 {
		return
	}
	for _, u := range []struct {
		name string
		v    *int64
	}{{"ReadCapacityUnits", pt.ReadCapacityUnits}, {"WriteCapacityUnits", pt.WriteCapacityUnits}} {
		if u.v != nil && *u.v > maxThroughputUnits {
			c.stop(validationf("Given value %d for %s is out of bounds%s", *u.v, u.name, suffix))
			return
		}
	}
}

func (in *updateTableInput) validate(c *checker) {
	c.tableName("tableName", "TableName", &in.TableName, 1, nullName)
	throughputConstraints(c, "provisionedThroughput", in.ProvisionedThroughput)
	for i, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update != nil {
			throughputConstraints(c, member("globalSecondaryIndexUpdates", i)+".update.provisionedThroughput", u.Update.ProvisionedThroughput)
		}
		if u.Create != nil {
			keyTypes(c, member("globalSecondaryIndexUpdates", i)+".create.keySchema", u.Create.KeySchema)
		}
	}
	c.enum("billingMode", in.BillingMode, enumBillingMode...)
	if c.done() || len(c.errs) > 0 {
		return
	}
	changes := in.ProvisionedThroughput != nil || in.BillingMode != "" || in.StreamSpecification != nil ||
		in.DeletionProtectionEnabled != nil || len(in.GlobalSecondaryIndexUpdates) > 0
	for _, other := range []string{"SSESpecification", "ReplicaUpdates", "TableClass", "OnDemandThroughput", "WarmThroughput", "MultiRegionConsistency", "GlobalTableWitnessUpdates"} {
		changes = changes || c.present(other)
	}
	if !changes {
		c.stop(validationf("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"))
		return
	}
	throughputBounds(c, in.ProvisionedThroughput, "")
	seen := map[string]bool{}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		var name string
		switch {
		case u.Update != nil:
			name = u.Update.IndexName
			throughputBounds(c, u.Update.ProvisionedThroughput, " for index "+name)
		case u.Create != nil:
			name = u.Create.IndexName
		case u.Delete != nil:
			name = u.Delete.IndexName
		default:
			c.stop(validationf("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"))
			return
		}
		if seen[name] {
			c.stop(validationf("One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: %s", name))
			return
		}
		seen[name] = true
	}
}

// checkThroughputChange refuses an UpdateTable whose only change is a
// ProvisionedThroughput equal to the table's, as DynamoDB does. The
// caller holds t.mu.
func checkThroughputChange(t *table, in *updateTableInput) error {
	pt := in.ProvisionedThroughput
	if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil || t.billing == "PAY_PER_REQUEST" {
		return nil
	}
	if in.BillingMode == "PAY_PER_REQUEST" || len(in.GlobalSecondaryIndexUpdates) > 0 || in.StreamSpecification != nil || in.DeletionProtectionEnabled != nil {
		return nil
	}
	rcu, wcu := *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	if rcu != t.rcu || wcu != t.wcu {
		return nil
	}
	return validationf("The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", t.rcu, rcu, t.wcu, wcu)
}

// resolveTableARN replaces a table ARN naming a table of a nested action
// (TransactItems) by the table's name; other names are left to the
// action's own lookup.
func resolveTableARN(name *string) {
	if strings.HasPrefix(*name, "arn:") {
		if n, ok := tableNameOfARN(*name); ok {
			*name = n
		}
	}
}
