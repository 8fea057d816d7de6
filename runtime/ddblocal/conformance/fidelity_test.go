package conformance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageExpressionValues = "Using expression attribute values in DynamoDB (Developer Guide) / AttributeValue (DynamoDB API Reference)"
	pageErrorComponents  = "Error handling with DynamoDB — Error components (Developer Guide) / the error shapes of the DynamoDB API model"
	pageKeySchemaElement = "KeySchemaElement (DynamoDB API Reference)"
	pagePartiQLSelect    = "PartiQL select statements for DynamoDB (Developer Guide)"
)

// TestRequestValidatedBeforeTableLookup: DynamoDB checks the request itself
// (its members, expressions and placeholders, which need no table) before it
// looks the table up, so a request that is wrong on its own is refused with
// ValidationException even when its table does not exist; only a valid
// request learns that the table is missing. The rule holds for every
// operation that names tables.
func TestRequestValidatedBeforeTableLookup(t *testing.T) {
	doc(t, pageCommonErrors, `ValidationException: "One or more parameter values were invalid" / ResourceNotFoundException: "The operation tried to access a nonexistent table or index"; a request is validated on its own before the table it names is resolved, so the invalid request gets the ValidationException`)
	missing := "conf-missing-table-for-order"
	key := item{"pk": s("k")}
	unusedName := map[string]string{"#unused": "x"}
	cases := []struct {
		name string
		// call sends the request; bad adds the request-level error.
		call func(tg *target, bad bool) error
		// notFound is the error of the valid request (default
		// ResourceNotFoundException).
		notFound string
	}{
		{name: "GetItem", call: func(tg *target, bad bool) error {
			in := &dynamodb.GetItemInput{TableName: aws.String(missing), Key: key, ProjectionExpression: aws.String("pk")}
			if bad {
				in.ExpressionAttributeNames = unusedName
			}
			_, err := tg.client.GetItem(ctx(t), in)
			return err
		}},
		{name: "PutItem", call: func(tg *target, bad bool) error {
			in := &dynamodb.PutItemInput{TableName: aws.String(missing), Item: key, ConditionExpression: aws.String("attribute_not_exists(pk)")}
			if bad {
				in.ConditionExpression = aws.String("attribute_not_exists(pk")
			}
			_, err := tg.client.PutItem(ctx(t), in)
			return err
		}},
		{name: "UpdateItem", call: func(tg *target, bad bool) error {
			in := &dynamodb.UpdateItemInput{TableName: aws.String(missing), Key: key, UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: item{":v": n("1")}}
			if bad {
				in.ExpressionAttributeValues = item{":v": n("1"), ":unused": n("2")}
			}
			_, err := tg.client.UpdateItem(ctx(t), in)
			return err
		}},
		{name: "DeleteItem", call: func(tg *target, bad bool) error {
			in := &dynamodb.DeleteItemInput{TableName: aws.String(missing), Key: key, ConditionExpression: aws.String("#p = :p"),
				ExpressionAttributeNames: map[string]string{"#p": "pk"}, ExpressionAttributeValues: item{":p": s("k")}}
			if bad {
				in.ExpressionAttributeNames = map[string]string{"#p": "pk", "#unused": "x"}
			}
			_, err := tg.client.DeleteItem(ctx(t), in)
			return err
		}},
		{name: "Query", call: func(tg *target, bad bool) error {
			in := &dynamodb.QueryInput{TableName: aws.String(missing), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": s("k")}}
			if bad {
				in.FilterExpression = aws.String("v = :undefined")
			}
			_, err := tg.client.Query(ctx(t), in)
			return err
		}},
		{name: "Scan", call: func(tg *target, bad bool) error {
			in := &dynamodb.ScanInput{TableName: aws.String(missing)}
			if bad {
				in.ProjectionExpression = aws.String("#undefined")
			}
			_, err := tg.client.Scan(ctx(t), in)
			return err
		}},
		{name: "BatchGetItem", call: func(tg *target, bad bool) error {
			ka := types.KeysAndAttributes{Keys: []item{key}, ProjectionExpression: aws.String("pk")}
			if bad {
				ka.ExpressionAttributeNames = unusedName
			}
			_, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{missing: ka}})
			return err
		}},
		{name: "TransactWriteItems", call: func(tg *target, bad bool) error {
			// The bad action comes second: every action is validated
			// before the first one's table is looked up.
			second := &types.Put{TableName: aws.String(missing), Item: item{"pk": s("k2")}}
			if bad {
				second.ConditionExpression = aws.String("size(")
			}
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(missing), Item: key}}, {Put: second},
			}})
			return err
		}},
		{name: "TransactGetItems", call: func(tg *target, bad bool) error {
			second := &types.Get{TableName: aws.String(missing), Key: item{"pk": s("k2")}}
			if bad {
				second.ExpressionAttributeNames = unusedName
				second.ProjectionExpression = aws.String("pk")
			}
			_, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(missing), Key: key}}, {Get: second},
			}})
			return err
		}},
		{name: "UpdateTable", call: func(tg *target, bad bool) error {
			in := &dynamodb.UpdateTableInput{TableName: aws.String(missing), BillingMode: types.BillingModePayPerRequest}
			if bad {
				in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true)} // no StreamViewType
			}
			_, err := tg.client.UpdateTable(ctx(t), in)
			return err
		}},
		{name: "TagResource", notFound: "AccessDeniedException", call: func(tg *target, bad bool) error {
			in := &dynamodb.TagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:" + tg.region + ":000000000000:table/" + missing), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}
			if bad {
				in.Tags = []types.Tag{} // an empty list: the SDK itself refuses a missing one
			}
			_, err := tg.client.TagResource(ctx(t), in)
			return err
		}},
	}
	each(t, func(t *testing.T, tg *target) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				notFound := c.notFound
				if notFound == "" {
					notFound = "ResourceNotFoundException"
				}
				wantErr(t, c.call(tg, false), notFound)
				wantValidation(t, c.call(tg, true))
			})
		}
	})
}

// TestInvalidExpressionValueNamesItsKey: an attribute value that is not
// valid (an empty set, a value with no type) is refused wherever it
// appears; under ExpressionAttributeValues the message names the member and
// the placeholder: "ExpressionAttributeValues contains invalid value: <why>
// for key :x".
func TestInvalidExpressionValueNamesItsKey(t *testing.T) {
	doc(t, pageExpressionValues, `AttributeValue: a set "can't be empty"; each AttributeValue holds exactly one data type. DynamoDB reports a bad value of ExpressionAttributeValues as "ExpressionAttributeValues contains invalid value: <reason> for key <placeholder>"`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		for _, c := range []struct {
			name, value, why string
		}{
			{"empty string set", `{"SS":[]}`, "One or more parameter values were invalid: An string set  may not be empty"},
			{"empty number set", `{"NS":[]}`, "One or more parameter values were invalid: An number set  may not be empty"},
			{"no data type", `{}`, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		} {
			t.Run(c.name, func(t *testing.T) {
				body := `{"TableName":"` + table + `","Key":{"pk":{"S":"k"}},"UpdateExpression":"SET v = :v, w = :ok","ExpressionAttributeValues":{":ok":{"S":"fine"},":v":` + c.value + `}}`
				r := rawCall(t, tg, "DynamoDB_20120810.UpdateItem", "application/x-amz-json-1.0", body)
				code, msg := rawError(t, r)
				if code != "ValidationException" || msg != "ExpressionAttributeValues contains invalid value: "+c.why+" for key :v" {
					t.Errorf("got %s %q, want ValidationException %q", code, msg, "ExpressionAttributeValues contains invalid value: "+c.why+" for key :v")
				}
			})
		}
		if it := get(t, tg, table, item{"pk": s("k")}); it != nil {
			t.Errorf("a refused update wrote %s", show(it))
		}
	})
}

// TestEnumConstraintAtMemberPath: a value outside an enum is reported with
// the path of the member that holds it, however deeply nested: a key schema
// element of an index is globalSecondaryIndexes.N.member.keySchema.M.member.keyType.
func TestEnumConstraintAtMemberPath(t *testing.T) {
	doc(t, pageKeySchemaElement, `KeyType: Valid Values: HASH | RANGE; a ValidationException names the member as "Value 'X' at '<path>' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"`)
	each(t, func(t *testing.T, tg *target) {
		name := tableName(t)
		base := func() *dynamodb.CreateTableInput {
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", types.ScalarAttributeTypeS})
			in.TableName = aws.String(name)
			return in
		}
		gsi := base()
		gsi.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("bySk"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("pk"), KeyType: "SORT"}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}
		_, err := tg.client.CreateTable(ctx(t), gsi)
		wantValidation(t, err, "1 validation error detected: Value 'SORT' at 'globalSecondaryIndexes.1.member.keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]")
		lsi := base()
		lsi.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{
			IndexName:  aws.String("byV"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: "PARTITION"}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}
		_, err = tg.client.CreateTable(ctx(t), lsi)
		wantValidation(t, err, "1 validation error detected: Value 'PARTITION' at 'localSecondaryIndexes.1.member.keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]")
	})
}

// TestPartiQLUnknownIndex: a PartiQL SELECT FROM "table"."index" on an index
// the table lacks answers DynamoDB's PartiQL wording, which names no index.
func TestPartiQLUnknownIndex(t *testing.T) {
	doc(t, pagePartiQLSelect, `SELECT … FROM table[.index]: the index must exist on the table; otherwise ValidationException "The table does not have the specified index"`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		_, err := tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + table + `"."nope" WHERE pk = 'k'`)})
		wantValidation(t, err)
		if _, msg, _ := apiError(err); msg != "The table does not have the specified index" {
			t.Errorf("got message %q, want exactly %q", msg, "The table does not have the specified index")
		}
	})
}

// TestErrorMessageKeyCasing: the error body carries the error's members as
// the API model names them. The message is "message" for most errors and
// "Message" for TransactionCanceledException (with CancellationReasons);
// a ConditionalCheckFailedException that carries the Item
// (ReturnValuesOnConditionCheckFailure=ALL_OLD) writes "Message" beside it.
func TestErrorMessageKeyCasing(t *testing.T) {
	doc(t, pageErrorComponents, `an error has an HTTP status, an exception name (__type) and a message; the body's members are the error shape's: TransactionCanceledException{Message, CancellationReasons}, ConditionalCheckFailedException{message, Item}, ResourceNotFoundException{message}; DynamoDB writes "Message" when the error carries members of its own`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, item{"pk": s("k"), "v": s("old")})
		const ct = "application/x-amz-json-1.0"
		cond := `"ConditionExpression":"attribute_not_exists(pk)"`
		for _, c := range []struct {
			name, target, body string
			code, key, absent  string
			member             string // another member the body must carry
		}{
			{"ResourceNotFoundException", "GetItem", `{"TableName":"conf-no-such-table-casing","Key":{"pk":{"S":"k"}}}`,
				"ResourceNotFoundException", "message", "Message", ""},
			{"ConditionalCheckFailedException", "PutItem", `{"TableName":"` + table + `","Item":{"pk":{"S":"k"}},` + cond + `}`,
				"ConditionalCheckFailedException", "message", "Message", ""},
			{"ConditionalCheckFailedException with Item", "PutItem", `{"TableName":"` + table + `","Item":{"pk":{"S":"k"}},` + cond + `,"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`,
				"ConditionalCheckFailedException", "Message", "message", "Item"},
			{"TransactionCanceledException", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"` + table + `","Item":{"pk":{"S":"k"}},` + cond + `}}]}`,
				"TransactionCanceledException", "Message", "message", "CancellationReasons"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := rawCall(t, tg, "DynamoDB_20120810."+c.target, ct, c.body)
				var body map[string]json.RawMessage
				if err := json.Unmarshal(r.body, &body); err != nil {
					t.Fatalf("error body %s: %v", r.body, err)
				}
				if typ := string(body["__type"]); !strings.HasSuffix(strings.Trim(typ, `"`), "#"+c.code) {
					t.Fatalf("__type = %s, want …#%s (body %s)", typ, c.code, r.body)
				}
				if _, ok := body[c.key]; !ok {
					t.Errorf("body has no %q key: %s", c.key, r.body)
				}
				if _, ok := body[c.absent]; ok {
					t.Errorf("body has a %q key, want %q only: %s", c.absent, c.key, r.body)
				}
				if _, ok := body[c.member]; c.member != "" && !ok {
					t.Errorf("body has no %s: %s", c.member, r.body)
				}
			})
		}
		// The SDK reads the message under either key.
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("k")},
			ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	})
}

// TestBatchResponsesKeyedAsRequested: a table named by its ARN in
// RequestItems is keyed by that ARN in Responses, UnprocessedKeys and
// UnprocessedItems, which "can be provided directly to a subsequent" call.
func TestBatchResponsesKeyedAsRequested(t *testing.T) {
	doc(t, pageBatchGet+" / "+pageBatchWrite, `RequestItems: "A map of one or more table names or table ARNs"; Responses: "A map of table name or table ARN to a list of items"; UnprocessedKeys "is in the same form as RequestItems, so the value can be provided directly to a subsequent BatchGetItem operation" (likewise UnprocessedItems for BatchWriteItem)`)
	each(t, func(t *testing.T, tg *target) {
		byName := hashTable(t, tg)
		byARN := hashTable(t, tg)
		desc, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(byARN)})
		noErr(t, err, "DescribeTable")
		arn := *desc.Table.TableArn
		_, err = tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			arn:    {putReq(item{"pk": s("a")})},
			byName: {putReq(item{"pk": s("b")})},
		}})
		noErr(t, err, "BatchWriteItem")
		if it := get(t, tg, byARN, item{"pk": s("a")}); it == nil {
			t.Fatal("the write addressed by ARN is not in the table")
		}
		out, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			arn:    {Keys: []item{{"pk": s("a")}}, ConsistentRead: aws.Bool(true)},
			byName: {Keys: []item{{"pk": s("b")}}, ConsistentRead: aws.Bool(true)},
		}})
		noErr(t, err, "BatchGetItem")
		if len(out.Responses[arn]) != 1 || len(out.Responses[byName]) != 1 || len(out.Responses) != 2 {
			t.Errorf("Responses keyed %v, want %q (by ARN) and %q (by name), one item each", keysOf(out.Responses), arn, byName)
		}
		if tg.external() {
			return // unprocessed entries need the engine's fault injection
		}
		tg.engine.SetFaults(byARN, ddblocal.Faults{UnprocessedRate: 1})
		defer tg.engine.SetFaults(byARN, ddblocal.Faults{})
		g, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			arn:    {Keys: []item{{"pk": s("a")}}},
			byName: {Keys: []item{{"pk": s("b")}}},
		}})
		noErr(t, err, "BatchGetItem with faults")
		if _, ok := g.UnprocessedKeys[arn]; !ok || len(g.UnprocessedKeys) != 1 {
			t.Errorf("UnprocessedKeys keyed %v, want only %q", keysOf(g.UnprocessedKeys), arn)
		}
		w, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			arn:    {putReq(item{"pk": s("c")})},
			byName: {putReq(item{"pk": s("c")})},
		}})
		noErr(t, err, "BatchWriteItem with faults")
		if _, ok := w.UnprocessedItems[arn]; !ok || len(w.UnprocessedItems) != 1 {
			t.Errorf("UnprocessedItems keyed %v, want only %q", keysOf(w.UnprocessedItems), arn)
		}
	})
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// rawError decodes a raw error response's code (the part of __type after
// '#') and message, under either casing of its key.
func rawError(t *testing.T, r rawResponse) (code, msg string) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
	typ, _ := body["__type"].(string)
	if i := strings.LastIndex(typ, "#"); i >= 0 {
		typ = typ[i+1:]
	}
	m, ok := body["message"].(string)
	if !ok {
		m, _ = body["Message"].(string)
	}
	return typ, m
}
