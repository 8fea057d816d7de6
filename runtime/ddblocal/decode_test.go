package ddblocal

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fastDecodeSeeds are request bodies in and out of the fast path's subset.
var fastDecodeSeeds = []string{
	`{"TableName":"t","Item":{"PK":{"S":"a"},"n":{"N":"01.50"},"b":{"BOOL":true},"z":{"NULL":true},"m":{"M":{"x":{"L":[{"S":"é"},{"N":"-0"}]}}},"l":{"L":[]},"e":{"M":{}}}}`,
	`{"TableName":"t","Key":{"PK":{"S":"HOT"},"SK":{"S":"X"}},"UpdateExpression":"SET n = n + :one","ConditionExpression":"n >= :zero","ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`,
	` { "TableName" : "t" , "Key" : { "PK" : { "S" : "a" } } , "ReturnValues" : "ALL_NEW" } `,
	`{"TableName":"t","KeyConditionExpression":"#p = :p","ExpressionAttributeNames":{"#p":"PK"},"ExpressionAttributeValues":{":p":{"S":"x"}},"Limit":10,"ScanIndexForward":false,"ExclusiveStartKey":{"PK":{"S":"x"}},"ConsistentRead":true,"Select":"COUNT","IndexName":"GSI1"}`,
	`{"TableName":"t","Segment":0,"TotalSegments":2,"Limit":-0,"AttributesToGet":["a","b"],"FilterExpression":"a = :a","ProjectionExpression":"a"}`,
	`{"TableName":"t","AttributesToGet":[]}`,
	`{"TableName":"t","Limit":1.0}`,
	`{"TableName":"t","Limit":1e2}`,
	`{"TableName":"t","Limit":01}`,
	`{"TableName":"t","Limit":99999999999999999999}`,
	`{"tablename":"t"}`,
	`{"TableName":"t","TableName":"u"}`,
	`{"TableName":"t","Item":{"a":{"S":"x"}},"Item":{"b":{"S":"y"}}}`,
	`{"TableName":"t\u0041"}`,
	`{"TableName":"t","Item":{"a":{"S":"x","N":"1"}}}`,
	`{"TableName":"t","Item":{"a":{}}}`,
	`{"TableName":"t","Item":{"a":null}}`,
	`{"TableName":"t","Item":null}`,
	`{"TableName":"t","Item":{"a":{"N":"abc"}}}`,
	`{"TableName":"t","Item":{"a":{"NULL":false}}}`,
	`{"TableName":"t","Item":{"a":{"B":"AAE="}}}`,
	`{"TableName":"t","Item":{"a":{"SS":["x","x"]}}}`,
	`{"TableName":"t","Item":{"a":{"BOOL":truex}}}`,
	`{"TableName":"t","Expected":{}}`,
	`{"TableName":"t","Unknown":1}`,
	`{"TableName":"t"} x`,
	`{"TableName":"t",}`,
	`{"TableName":"t"`,
	"{\"TableName\":\"\xff\"}",
	`[]`,
	``,
	`{}`,
	`{"ExpressionAttributeNames":{}, "ExpressionAttributeValues":{}}`,
	`{"ScanIndexForward":true,"ConsistentRead":false}`,
	`{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}`,
	`{"TableName":"t","AttributeDefinitions":[],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"G","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]},"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}],"LocalSecondaryIndexes":[{"IndexName":"L","Projection":{}}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":-0},"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"},"DeletionProtectionEnabled":true,"Tags":[{"Key":"k","Value":"v"}],"TableClass":"STANDARD"}`,
	`{"TableName":"t","ProvisionedThroughput":{"ReadCapacityUnits":1},"ProvisionedThroughput":{"WriteCapacityUnits":2}}`,
	`{"TableName":"t","SSESpecification":{"Enabled":true}}`,
	`{"TableName":"t","KeySchema":[{"AttributeName":"PK","KeyType":"HASH","KeyType":"RANGE"}]}`,
	`{"TableName":"t","KeySchema":[{"attributename":"PK"}]}`,
	`{"TableName":"t","KeySchema":[null]}`,
	`{"TableName":"t","ProvisionedThroughput":{"ReadCapacityUnits":1.5}}`,
	`{"TableName":"t","Expected":{"a":{"ComparisonOperator":"IN","AttributeValueList":[{"N":"1"},{"S":"x\u0041"}]}},"ConditionalOperator":"OR"}`,
	`{"TableName":"t","KeyConditions":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}},"QueryFilter":{"b":{"ComparisonOperator":"NULL"}},"ScanFilter":null}`,
	`{"TableName":"t","Expected":{"a":tru}}`,
	`{"TableName":"t","AttributeUpdates":{"a":{"Action":"ADD","Value":{"N":"1"}}},"Expected":[1,]}`,
	`{"TransactItems":[{"Update":{"TableName":"t","Key":{"PK":{"S":"a"}},"UpdateExpression":"SET n = n + :one","ConditionExpression":"attribute_exists(PK)","ExpressionAttributeValues":{":one":{"N":"1"}},"ExpressionAttributeNames":{"#n":"n"},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},{"Put":{"TableName":"t","Item":{"PK":{"S":"b"}}}},{"Delete":{"TableName":"t","Key":{"PK":{"S":"c"}}}},{"ConditionCheck":{"TableName":"t","Key":{"PK":{"S":"d"}},"ConditionExpression":"attribute_not_exists(PK)"}}],"ClientRequestToken":"tok","ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"NONE"}`,
	`{"TransactItems":[{"Put":{"TableName":"t"},"Put":{"TableName":"u"}}]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","TableName":"u"}}]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","Item":{"a":{"SS":["x"]}}}}]}`,
	`{"TransactItems":[]}`,
	`{"TransactItems":[{}]}`,
}

// decodeBoth decodes body with the fast path and with encoding/json into
// fresh values of T and fails when the fast path accepts what encoding/json
// decodes differently.
func decodeBoth[T any](t *testing.T, body string) {
	fast := new(T)
	if !decodeFast([]byte(body), fast) {
		return
	}
	slow := new(T)
	if err := decodeRequest([]byte(body), slow); err != nil {
		t.Fatalf("%T: fast path accepted %q, encoding/json: %v", fast, body, err)
	}
	if d, ok := any(fast).(interface{ detachStrings() }); ok {
		d.detachStrings()
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%T: %q\nfast: %#v\njson: %#v", fast, body, fast, slow)
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, s := range fastDecodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		decodeBoth[putItemInput](t, body)
		decodeBoth[getItemInput](t, body)
		decodeBoth[deleteItemInput](t, body)
		decodeBoth[updateItemInput](t, body)
		decodeBoth[queryInput](t, body)
		decodeBoth[scanInput](t, body)
		decodeBoth[createTableInput](t, body)
		decodeBoth[transactWriteItemsInput](t, body)
	})
}

func TestFastDecodeAcceptsPlainRequests(t *testing.T) {
	for _, body := range fastDecodeSeeds[:5] {
		var in queryInput
		var up updateItemInput
		var put putItemInput
		var scan scanInput
		if !decodeFast([]byte(body), &in) && !decodeFast([]byte(body), &up) && !decodeFast([]byte(body), &put) && !decodeFast([]byte(body), &scan) {
			t.Errorf("fast path refused plain request %s", body)
		}
	}
}

func TestFastDecodeAcceptsCreateTable(t *testing.T) {
	for _, body := range fastDecodeSeeds {
		if !strings.Contains(body, `"IndexName":"G"`) && !strings.HasPrefix(body, `{"TableName":"bench","AttributeDefinitions"`) {
			continue
		}
		if !decodeFast([]byte(body), new(createTableInput)) {
			t.Errorf("fast path refused plain CreateTable request %s", body)
		}
	}
}

func TestFastDecodeAcceptsTransactWriteItems(t *testing.T) {
	for _, body := range fastDecodeSeeds {
		if strings.HasPrefix(body, `{"TransactItems":[{"Update"`) && !decodeFast([]byte(body), new(transactWriteItemsInput)) {
			t.Errorf("fast path refused plain TransactWriteItems request %s", body)
		}
	}
}

// The ClientRequestToken digest ignores the order of map members, which
// the SDK writes at random, and nothing else.
func TestTxDigest(t *testing.T) {
	e := New(func(o *Options) { o.TTLSweepInterval = -1 })
	defer e.Close()
	if _, err := e.Client().CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("digests"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}}}); err != nil {
		t.Fatal(err)
	}
	digest := func(body string) uint64 {
		var in transactWriteItemsInput
		if err := decodeRequest([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		ops, err := e.prepareTxOps(in.TransactItems)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return txDigest(ops)
	}
	const update = `{"Update":{"TableName":"digests","Key":{"PK":{"S":"a"},"SK":{"S":"%s"}},"UpdateExpression":"SET n = :v","ExpressionAttributeValues":{":v":%s}}}`
	item := func(sk, v string) string { return fmt.Sprintf(update, sk, v) }
	tx := func(items ...string) string { return `{"TransactItems":[` + strings.Join(items, ",") + `]}` }
	a := digest(tx(item("b", `{"M":{"x":{"N":"1"},"y":{"L":[{"S":"z"}]}}}`)))
	b := digest(`{"TransactItems":[{"Update":{"ExpressionAttributeValues":{":v":{"M":{"y":{"L":[{"S":"z"}]},"x":{"N":"1.0"}}}},"UpdateExpression":"SET n = :v","Key":{"SK":{"S":"b"},"PK":{"S":"a"}},"TableName":"digests"}}]}`)
	if a != b {
		t.Error("the same request in another member order has another digest")
	}
	two := digest(tx(item("b", `{"N":"1"}`), item("c", `{"N":"1"}`)))
	if digest(tx(item("b", `{"N":"1"}`), item("c", `{"N":"1"}`))) != two {
		t.Error("the same two actions have another digest")
	}
	for _, other := range []string{
		tx(item("c", `{"M":{"x":{"N":"1"},"y":{"L":[{"S":"z"}]}}}`)),
		tx(item("b", `{"M":{"x":{"N":"2"},"y":{"L":[{"S":"z"}]}}}`)),
		`{"TransactItems":[{"Update":{"TableName":"digests","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"UpdateExpression":"SET n = :v","ConditionExpression":"attribute_exists(n)","ExpressionAttributeValues":{":v":{"M":{"x":{"N":"1"},"y":{"L":[{"S":"z"}]}}}}}}]}`,
		`{"TransactItems":[{"Put":{"TableName":"digests","Item":{"PK":{"S":"a"},"SK":{"S":"b"}}}}]}`,
		`{"TransactItems":[{"Delete":{"TableName":"digests","Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}}]}`,
		`{"TransactItems":[{"ConditionCheck":{"TableName":"digests","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"ConditionExpression":"attribute_exists(n)"}}]}`,
	} {
		if digest(other) == a {
			t.Errorf("a different request has the same digest: %s", other)
		}
	}
	// The second action shares the first one's compiled expressions only
	// when its values are the same: other values are another request.
	for _, other := range []string{
		tx(item("b", `{"N":"1"}`), item("c", `{"N":"2"}`)),
		tx(item("c", `{"N":"1"}`), item("b", `{"N":"1"}`)),
		tx(item("b", `{"N":"1"}`)),
	} {
		if digest(other) == two {
			t.Errorf("a different request has the same digest: %s", other)
		}
	}
}

// detachStrings moves the strings the fast decoder keeps in the input
// itself (to save an allocation per pointer) to strings of their own, as
// encoding/json leaves them, so that the two decodings compare equal.
func (in *transactWriteItemsInput) detachStrings() {
	in.ClientRequestToken, in.token = detach(in.ClientRequestToken), ""
	for _, ti := range in.TransactItems {
		for _, a := range []*txAction{ti.ConditionCheck, ti.Put, ti.Delete, ti.Update} {
			if a != nil {
				a.ConditionExpression, a.UpdateExpression = detach(a.ConditionExpression), detach(a.UpdateExpression)
				a.condition, a.update = "", ""
			}
		}
	}
}

func detach(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}
