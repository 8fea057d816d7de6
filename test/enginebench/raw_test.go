package enginebench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// captureTransport records the last request body the SDK sent and answers
// with a fixed body.
type captureTransport struct {
	target string
	body   []byte
	answer []byte
}

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.target = req.Header.Get("X-Amz-Target")
	c.body, _ = io.ReadAll(req.Body)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body: io.NopCloser(bytes.NewReader(c.answer)), ContentLength: int64(len(c.answer)), Request: req}, nil
}

// TestRawBodiesMatchTheSDK checks that every workload without a client
// sends the request the SDK sends for the same workload.
func TestRawBodiesMatchTheSDK(t *testing.T) {
	ctx := context.Background()
	cap := &captureTransport{}
	api := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://capture.invalid"),
		Credentials: staticCredentials("t"), HTTPClient: &http.Client{Transport: cap}}, noRetries)
	var rawTarget string
	var rawBody []byte
	do := func(target string, body []byte, read func([]byte) error) error {
		rawTarget, rawBody = target, body
		if read != nil {
			return read([]byte(`{"Count":100,"Items":[],"ScannedCount":100}`))
		}
		return nil
	}
	cases := []struct {
		name string
		sdk  func() error
		raw  func() error
	}{
		{"PutItem", func() error { return Put(ctx, api, "t1", "R1#")(nil, 42) }, func() error { return RawPut(do, "t1", "R1#")(nil, 42) }},
		{"UpdateItem", func() error { return HotUpdate(ctx, api, "t1")(nil, 0) }, func() error { return RawHotUpdate(do, "t1")(nil, 0) }},
		{"TransactWriteItems", func() error { return Transact(ctx, api, "t1", 10)(rand.New(rand.NewPCG(1, 2)), 0) },
			func() error { return RawTransact(do, "t1", 10)(rand.New(rand.NewPCG(1, 2)), 0) }},
		{"Query", func() error { _, err := api.Query(ctx, queryInput("t1")); return err }, func() error { return RawQuery(do, "t1")(nil, 0) }},
		{"CreateTable", func() error { _, err := api.CreateTable(ctx, TableInput("t1")); return err },
			func() error { return do("CreateTable", RawCreateTable("t1"), nil) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cap.answer = []byte(`{}`)
			if err := tc.sdk(); err != nil {
				t.Fatalf("SDK: %v", err)
			}
			if err := tc.raw(); err != nil {
				t.Fatalf("raw: %v", err)
			}
			if want := "DynamoDB_20120810." + rawTarget; cap.target != want {
				t.Errorf("target: SDK %q, raw %q", cap.target, want)
			}
			var a, b any
			if err := json.Unmarshal(cap.body, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(rawBody, &b); err != nil {
				t.Fatalf("raw body is not JSON: %v\n%s", err, rawBody)
			}
			// The SDK makes up a ClientRequestToken; only its presence and
			// form can match.
			am, bm := a.(map[string]any), b.(map[string]any)
			if tok, ok := am["ClientRequestToken"].(string); ok {
				rt, _ := bm["ClientRequestToken"].(string)
				if len(rt) != len(tok) || rt[14] != '4' {
					t.Errorf("ClientRequestToken: SDK %q, raw %q", tok, rt)
				}
				delete(am, "ClientRequestToken")
				delete(bm, "ClientRequestToken")
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("bodies differ\nSDK: %s\nraw: %s", cap.body, rawBody)
			}
		})
	}
}

func queryInput(table string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: QueryPartition}}}
}

func TestAppendAttributeValueEveryType(t *testing.T) {
	item := map[string]types.AttributeValue{
		"s": &types.AttributeValueMemberS{Value: "a\"b"}, "n": &types.AttributeValueMemberN{Value: "-1.5e3"},
		"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}}, "t": &types.AttributeValueMemberBOOL{Value: true},
		"z": &types.AttributeValueMemberNULL{Value: true}, "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}}, "bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "e"}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberN{Value: "7"}}},
	}
	got := string(AppendItem(nil, item))
	want := `{"b":{"B":"AAEC"},"bs":{"BS":["AQ==","Ag=="]},"l":{"L":[{"S":"e"}]},"m":{"M":{"k":{"N":"7"}}},"n":{"N":"-1.5e3"},"ns":{"NS":["1","2"]},"s":{"S":"a\"b"},"ss":{"SS":["x","y"]},"t":{"BOOL":true},"z":{"NULL":true}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestTopLevelCount(t *testing.T) {
	for body, want := range map[string]int{
		`{"Count":100,"Items":[],"ScannedCount":100}`: 100,
		`{"Items":[],"Count": 7 }`:                    7,
		`{"ScannedCount":3}`:                          -1,
		`{"Count":"x"}`:                               -1,
	} {
		if got := topLevelCount([]byte(body)); got != want {
			t.Errorf("topLevelCount(%s) = %d, want %d", body, got, want)
		}
	}
}

// TestRawTransactTokensNeverRepeat: workers of every round are seeded
// alike, so the token must not come from their sources.
func TestRawTransactTokensNeverRepeat(t *testing.T) {
	var tokens []string
	do := func(_ string, body []byte, _ func([]byte) error) error {
		var req struct{ ClientRequestToken string }
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, req.ClientRequestToken)
		return nil
	}
	for range 2 {
		if err := RawTransact(do, "t1", 10)(rand.New(rand.NewPCG(1, 1)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(tokens) != 2 || tokens[0] == tokens[1] || len(tokens[0]) != 36 {
		t.Errorf("tokens %q: want two different UUIDs", tokens)
	}
}

func TestHandlerRaw(t *testing.T) {
	e := ddblocal.New()
	defer e.Close()
	do := HandlerRaw(e.Handler())
	if err := do("CreateTable", RawCreateTable("tbl"), nil); err != nil {
		t.Fatal(err)
	}
	if err := do("CreateTable", RawCreateTable("tbl"), nil); !errors.Is(err, ErrRawStatus) || !strings.Contains(err.Error(), "ResourceInUseException") {
		t.Errorf("second CreateTable: %v, want ErrRawStatus with ResourceInUseException", err)
	}
	if err := RawPut(do, "tbl", "")(nil, 1); err != nil {
		t.Fatal(err)
	}
	var count int
	body := []byte(`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"USER#000000000001"}}}`)
	if err := do("Query", body, func(resp []byte) error { count = topLevelCount(resp); return nil }); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Errorf("Query Count = %d, want 1", count)
	}
}
