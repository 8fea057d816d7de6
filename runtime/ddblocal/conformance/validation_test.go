package conformance_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const pageCommonErrors = "Common Errors (DynamoDB API Reference)"

// validationCase is one raw request whose answer is a request-level
// ValidationException with an exact message (or one matching re).
type validationCase struct {
	name, op, page, rule string
	// body is the JSON request; {T} stands for an existing table's name,
	// in want and re too.
	body string
	want string
	re   string
}

func validationCases() []validationCase {
	long := strings.Repeat("a", 256)
	item := `"Item":{"pk":{"S":"v"}}`
	c := func(format string, n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(format, i)
		}
		return strings.Join(parts, ",")
	}
	return []validationCase{
		{name: "missing table name", op: "PutItem", page: pagePutItem, rule: "TableName: Required: Yes",
			body: `{` + item + `}`,
			want: "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{name: "empty table name", op: "PutItem", page: pagePutItem, rule: "TableName: Minimum length of 1",
			body: `{"TableName":"",` + item + `}`,
			want: "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{name: "table name of 256 characters", op: "PutItem", page: pagePutItem, rule: "a table name is 3 to 255 characters",
			body: `{"TableName":"` + long + `",` + item + `}`,
			want: "1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{name: "table name with bad characters", op: "PutItem", page: pagePutItem, rule: "TableName: Pattern [a-zA-Z0-9_.-]+",
			body: `{"TableName":"bad table!",` + item + `}`,
			want: "1 validation error detected: Value 'bad table!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{name: "bad table name is reported alone", op: "DeleteItem", page: pageCommonErrors, rule: "ValidationException: the table name is checked before the other members",
			body: `{"TableName":"x!","Key":{},"ReturnValues":"BAD"}`,
			want: "1 validation error detected: Value 'x!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{name: "violations are reported together", op: "PutItem", page: pagePutItem, rule: "ReturnConsumedCapacity, ReturnItemCollectionMetrics and ReturnValues: Valid Values",
			body: `{"TableName":"{T}",` + item + `,"ReturnConsumedCapacity":"BAD","ReturnItemCollectionMetrics":"BAD","ReturnValues":"BAD"}`,
			want: "3 validation errors detected: " +
				"Value 'BAD' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'BAD' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
				"Value 'BAD' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"},
		{name: "values without an expression", op: "PutItem", page: pageValues, rule: "ExpressionAttributeValues are only used by expressions",
			body: `{"TableName":"{T}",` + item + `,"ExpressionAttributeValues":{":v":{"S":"x"}}}`,
			want: "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{name: "values without an update expression", op: "UpdateItem", page: pageValues, rule: "ExpressionAttributeValues are only used by expressions",
			body: `{"TableName":"{T}","Key":{"pk":{"S":"v"}},"ExpressionAttributeValues":{":v":{"S":"x"}}}`,
			want: "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		{name: "create without a table name", op: "CreateTable", page: pageCreateTable, rule: "TableName: Required: Yes",
			body: `{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
			want: "The parameter 'TableName' is required but was not present in the request"},
		{name: "create with a short table name", op: "CreateTable", page: pageCreateTable, rule: "TableName: Minimum length of 3",
			body: `{"TableName":"ab","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
			want: "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{name: "create with a bad key type", op: "CreateTable", page: pageCreateTable, rule: "KeyType: Valid Values: HASH | RANGE",
			body: `{"TableName":"conf-bad-keytype","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"BAD"}],"BillingMode":"PAY_PER_REQUEST"}`,
			want: "1 validation error detected: Value 'BAD' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{name: "create with three key elements", op: "CreateTable", page: pageCreateTable, rule: "KeySchema: Maximum number of 2 items",
			body: `{"TableName":"conf-three-keys","AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"},{"AttributeName":"b","AttributeType":"S"},{"AttributeName":"c","AttributeType":"S"}],"KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"RANGE"},{"AttributeName":"c","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}`,
			want: "1 validation error detected: Value '[KeySchemaElement(attributeName=a, keyType=HASH), KeySchemaElement(attributeName=b, keyType=RANGE), KeySchemaElement(attributeName=c, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{name: "create with zero read capacity", op: "CreateTable", page: pageCreateTable, rule: "ReadCapacityUnits: Valid Range: Minimum value of 1 (ProvisionedThroughput data type)",
			body: `{"TableName":"conf-zero-rcu","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":0,"WriteCapacityUnits":0}}`,
			want: "2 validation errors detected: Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '0' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{name: "batch get without items", op: "BatchGetItem", page: pageBatchGet, rule: "RequestItems: Required: Yes; Minimum number of 1 item",
			body: `{"RequestItems":{}}`, want: "The requestItems parameter is required for BatchGetItem"},
		{name: "batch write without items", op: "BatchWriteItem", page: pageBatchWrite, rule: "RequestItems: Required: Yes; Minimum number of 1 item",
			body: `{}`, want: "The requestItems parameter is required for BatchWriteItem"},
		{name: "batch get of a bad table name", op: "BatchGetItem", page: pageBatchGet, rule: "RequestItems: Key Length Constraints and Pattern: [a-zA-Z0-9_.-]+ (a table name or ARN)",
			body: `{"RequestItems":{"bad name!":{"Keys":[{"pk":{"S":"a"}}]}}}`,
			re:   `^1 validation error detected: Value '\{bad name!=\{Keys=\[.+\]\}\}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: \[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: \[a-zA-Z0-9_.-\]\+\]$`},
		{name: "batch get of 101 keys", op: "BatchGetItem", page: pageBatchGet, rule: "Keys: Minimum number of 1 item. Maximum number of 100 items",
			body: `{"RequestItems":{"{T}":{"Keys":[` + c(`{"pk":{"S":"k%d"}}`, 101) + `]}}}`,
			want: "1 validation error detected: Value at 'RequestItems.{T}.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"},
		{name: "batch write of 26 requests", op: "BatchWriteItem", page: pageBatchWrite, rule: "RequestItems: Array Members: Minimum number of 1 item. Maximum number of 25 items",
			body: `{"RequestItems":{"{T}":[` + c(`{"PutRequest":{"Item":{"pk":{"S":"k%d"}}}}`, 26) + `]}}`,
			re:   `^1 validation error detected: Value '\{{T}=\[.+\]\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$`},
		{name: "transact get of nothing", op: "TransactGetItems", page: pageTransactGet, rule: "TransactItems: Minimum number of 1 item",
			body: `{"TransactItems":[]}`,
			want: "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{name: "transact write of nothing", op: "TransactWriteItems", page: pageTransactWrite, rule: "TransactItems: Minimum number of 1 item",
			body: `{"TransactItems":[]}`,
			want: "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{name: "transact write of 101 actions", op: "TransactWriteItems", page: pageTransactWrite, rule: "TransactItems: Maximum number of 100 items",
			body: `{"TransactItems":[` + c(`{"Put":{"TableName":"{T}","Item":{"pk":{"S":"k%d"}}}}`, 101) + `]}`,
			re:   `^1 validation error detected: Value '\[.+\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$`},
		{name: "query limit 0", op: "Query", page: pageQuery, rule: "Limit: Valid Range: Minimum value of 1",
			body: `{"TableName":"{T}","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"v"}},"Limit":0}`,
			want: "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{name: "scan limit 0", op: "Scan", page: pageScan, rule: "Limit: Valid Range: Minimum value of 1",
			body: `{"TableName":"{T}","Limit":0}`,
			want: "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{name: "list tables limit 0", op: "ListTables", page: pageListTables, rule: "Limit: Valid Range: Minimum value of 1. Maximum value of 100",
			body: `{"Limit":0}`,
			want: "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{name: "list tables from an empty name", op: "ListTables", page: pageListTables, rule: "ExclusiveStartTableName: Length Constraints: Minimum length of 3",
			body: `{"ExclusiveStartTableName":""}`,
			want: "1 validation error detected: Value '' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
	}
}

func TestValidationMessages(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		for _, vc := range validationCases() {
			t.Run(vc.name, func(t *testing.T) {
				doc(t, vc.page, vc.rule+" (a violation is a ValidationException: "+pageCommonErrors+")")
				r := rawCall(t, tg, targetPrefix+vc.op, jsonType, strings.ReplaceAll(vc.body, "{T}", table))
				eb := decodeError(t, r)
				if r.status != 400 || !strings.HasSuffix(eb.Type, "#ValidationException") {
					t.Fatalf("%s: status %d, %s %q; want 400 ValidationException", vc.op, r.status, eb.Type, eb.Message)
				}
				if vc.re != "" {
					if re := regexp.MustCompile(strings.ReplaceAll(vc.re, "{T}", regexp.QuoteMeta(table))); !re.MatchString(eb.Message) {
						t.Errorf("message %q does not match %s", eb.Message, re)
					}
					return
				}
				if want := strings.ReplaceAll(vc.want, "{T}", table); eb.Message != want {
					t.Errorf("message\n got %q\nwant %q", eb.Message, want)
				}
			})
		}
	})
}

func TestValidationTableARNAsName(t *testing.T) {
	doc(t, pagePutItem, "TableName: The name of the table to contain the item. You can also provide the Amazon Resource Name (ARN) of the table in this parameter.")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		arn := d.Table.TableArn
		_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: arn, Item: item{"pk": s("a"), "v": n("1")}})
		noErr(t, err, "PutItem by ARN")
		got, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: arn, Key: item{"pk": s("a")}})
		noErr(t, err, "GetItem by ARN")
		wantItem(t, got.Item, item{"pk": s("a"), "v": n("1")})
		_, err = tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: arn, Item: item{"pk": s("b")}}},
		}})
		noErr(t, err, "TransactWriteItems by ARN")
		tx, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: arn, Key: item{"pk": s("b")}}},
		}})
		noErr(t, err, "TransactGetItems by ARN")
		if len(tx.Responses) != 1 || tx.Responses[0].Item == nil {
			t.Errorf("TransactGetItems by ARN: %d responses, want the item", len(tx.Responses))
		}
		_, err = tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			*arn: {putReq(item{"pk": s("c")})},
		}})
		noErr(t, err, "BatchWriteItem by ARN")
		bg, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			*arn: {Keys: []item{{"pk": s("c")}}},
		}})
		noErr(t, err, "BatchGetItem by ARN")
		found := 0
		for _, items := range bg.Responses {
			found += len(items)
		}
		if found != 1 {
			t.Errorf("BatchGetItem by ARN found %d items, want 1", found)
		}
		byARN, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: arn})
		noErr(t, err, "DescribeTable by ARN")
		if aws.ToString(byARN.Table.TableName) != name {
			t.Errorf("DescribeTable by ARN named %q, want %q", aws.ToString(byARN.Table.TableName), name)
		}
	})
}

func TestValidationTransactGetKeyMismatch(t *testing.T) {
	doc(t, pageTransactGet, "TransactionCanceledException: ... ValidationError: ... the key attributes of an item do not match the table's key schema; CancellationReasons lists one reason per item, None for the others")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		_, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(name), Key: item{"pk": s("a")}}},
			{Get: &types.Get{TableName: aws.String(name), Key: item{}}},
		}})
		tce := cancelled(t, err)
		var codes []string
		for _, r := range tce.CancellationReasons {
			codes = append(codes, aws.ToString(r.Code))
		}
		if strings.Join(codes, ",") != "None,ValidationError" {
			t.Errorf("reasons %v, want [None ValidationError]", codes)
		}
		if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]"; aws.ToString(tce.Message) != want {
			t.Errorf("message %q, want %q", aws.ToString(tce.Message), want)
		}
	})
}

func TestValidationTransactWriteKeyMismatch(t *testing.T) {
	doc(t, pageTransactWrite, "TransactionCanceledException CancellationReasons: ValidationError — an action's key does not match the table's key schema (as for TransactGetItems and a Put); None for the other actions; nothing is written")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		for _, bad := range []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String(name), Key: item{}}},
			{Update: &types.Update{TableName: aws.String(name), Key: item{"pk": n("1")}, UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": n("1")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(name), Key: item{"other": s("a")}, ConditionExpression: aws.String("attribute_exists(pk)")}},
		} {
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(name), Item: item{"pk": s("written")}}}, bad,
			}})
			if got := reasonCodes(cancelled(t, err)); strings.Join(got, ",") != "None,ValidationError" {
				t.Errorf("reasons %v, want [None ValidationError]", got)
			}
			if it := get(t, tg, name, item{"pk": s("written")}); it != nil {
				t.Fatalf("a cancelled transaction wrote %s", show(it))
			}
		}
	})
}
