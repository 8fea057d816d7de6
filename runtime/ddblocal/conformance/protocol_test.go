package conformance_test

import (
	"encoding/json"
	"errors"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageErrors   = "Error handling with DynamoDB (Developer Guide)"
	pageLowLevel = "DynamoDB low-level API (Developer Guide)"
	jsonType     = "application/x-amz-json-1.0"
	targetPrefix = "DynamoDB_20120810."
)

// errorBody is DynamoDB's JSON error body.
type errorBody struct {
	Type    string `json:"__type"`
	Message string `json:"message"`
}

func decodeError(t *testing.T, r rawResponse) errorBody {
	t.Helper()
	var eb errorBody
	if err := json.Unmarshal(r.body, &eb); err != nil {
		t.Fatalf("error body %q is not JSON: %v", r.body, err)
	}
	return eb
}

func wantCRC32(t *testing.T, r rawResponse) {
	t.Helper()
	h := r.header.Get("X-Amz-Crc32")
	if h == "" {
		t.Errorf("response has no x-amz-crc32 header")
		return
	}
	got, err := strconv.ParseUint(h, 10, 32)
	if err != nil {
		t.Errorf("x-amz-crc32 %q is not a decimal uint32", h)
		return
	}
	if want := crc32.ChecksumIEEE(r.body); uint32(got) != want {
		t.Errorf("x-amz-crc32 = %d, want %d (CRC32 of the body)", got, want)
	}
}

func TestProtocolErrorBody(t *testing.T) {
	doc(t, pageErrors, `Each error has three components: an HTTP status code (such as 400), an exception name (such as ResourceNotFoundException), an error message (such as "Requested resource not found: Table: tablename not found"); example body {"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found: Table: tablename not found"} with Content-Type application/x-amz-json-1.0`)
	each(t, func(t *testing.T, tg *target) {
		name := tableName(t)
		r := rawCall(t, tg, targetPrefix+"DescribeTable", jsonType, `{"TableName":"`+name+`"}`)
		if r.status != 400 {
			t.Errorf("status = %d, want 400", r.status)
		}
		eb := decodeError(t, r)
		if eb.Type != "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException" {
			t.Errorf("__type = %q, want com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", eb.Type)
		}
		if want := "Requested resource not found: Table: " + name + " not found"; eb.Message != want {
			t.Errorf("message = %q, want %q", eb.Message, want)
		}
		if ct := r.header.Get("Content-Type"); ct != jsonType {
			t.Errorf("Content-Type = %q, want %q", ct, jsonType)
		}
		if r.header.Get("X-Amzn-Requestid") == "" {
			t.Errorf("response has no x-amzn-RequestId header")
		}
		wantCRC32(t, r)
	})
}

func TestProtocolSuccessHeaders(t *testing.T) {
	doc(t, pageLowLevel, `DynamoDB responds with Content-Type application/x-amz-json-1.0, an x-amzn-RequestId header and an x-amz-crc32 header holding the CRC32 checksum of the response body (the SDKs verify it)`)
	each(t, func(t *testing.T, tg *target) {
		r := rawCall(t, tg, targetPrefix+"ListTables", jsonType, `{"Limit":1}`)
		if r.status != 200 {
			t.Fatalf("status = %d (%s), want 200", r.status, r.body)
		}
		var out map[string]any
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatalf("body %q is not JSON: %v", r.body, err)
		}
		if _, ok := out["TableNames"]; !ok {
			t.Errorf("ListTables body %s has no TableNames", r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != jsonType {
			t.Errorf("Content-Type = %q, want %q", ct, jsonType)
		}
		if r.header.Get("X-Amzn-Requestid") == "" {
			t.Errorf("response has no x-amzn-RequestId header")
		}
		wantCRC32(t, r)
	})
}

func TestProtocolRequestErrors(t *testing.T) {
	cases := []struct {
		name, target, body string
		wantType           string   // suffix after '#'
		wantMsg            []string // one of these substrings, none = any
		doc                string
	}{
		{
			name: "unknown operation", target: targetPrefix + "FlyToTheMoon", body: `{}`,
			wantType: "UnknownOperationException",
			doc:      `A request whose X-Amz-Target names no DynamoDB operation is rejected with HTTP 400 UnknownOperationException (com.amazon.coral.service#UnknownOperationException)`,
		},
		{
			name: "no X-Amz-Target", target: "", body: `{}`,
			wantType: "UnknownOperationException",
			doc:      `Every low-level request names its operation in the X-Amz-Target header (DynamoDB_20120810.<Operation>); without it the operation is unknown`,
		},
		{
			name: "malformed JSON", target: targetPrefix + "ListTables", body: `{"Limit":`,
			wantType: "SerializationException",
			doc:      `A body that is not valid JSON is rejected with HTTP 400 SerializationException (com.amazon.coral.service#SerializationException)`,
		},
		{
			name: "wrong JSON type", target: targetPrefix + "DescribeTable", body: `{"TableName":{"a":1}}`,
			wantType: "SerializationException",
			doc:      `A member whose JSON type does not match the operation's shape (an object where TableName, a string, is expected) is a SerializationException`,
		},
		{
			name: "missing required member", target: targetPrefix + "DescribeTable", body: `{}`,
			wantType: "ValidationException",
			wantMsg: []string{
				"Value null at 'tableName' failed to satisfy constraint: Member must not be null",
				"The parameter 'TableName' is required but was not present in the request",
			},
			doc: `DescribeTable: TableName is Required: Yes. Unsure which wording the service uses today; both wordings DynamoDB is known to have used are accepted: "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null" and "The parameter 'TableName' is required but was not present in the request"`,
		},
		{
			name: "table name too short", target: targetPrefix + "DescribeTable", body: `{"TableName":"ab"}`,
			wantType: "ValidationException",
			wantMsg: []string{
				"Member must have length greater than or equal to 3",
				"TableName must be at least 3 characters long and at most 255 characters long",
			},
			doc: `DescribeTable TableName: Length Constraints: Minimum length of 3. Maximum length of 255. Pattern: [a-zA-Z0-9_.-]+ (both wordings the service is known to use are accepted)`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc(t, pageErrors+" / DynamoDB API Reference", c.doc)
			each(t, func(t *testing.T, tg *target) {
				r := rawCall(t, tg, c.target, jsonType, c.body)
				if r.status != 400 {
					t.Errorf("status = %d, want 400 (body %s)", r.status, r.body)
				}
				eb := decodeError(t, r)
				if !strings.HasSuffix(eb.Type, "#"+c.wantType) {
					t.Errorf("__type = %q, want ...#%s", eb.Type, c.wantType)
				}
				if len(c.wantMsg) > 0 && !slices.ContainsFunc(c.wantMsg, func(w string) bool { return strings.Contains(eb.Message, w) }) {
					t.Errorf("message = %q, want it to contain one of %q", eb.Message, c.wantMsg)
				}
			})
		})
	}
}

func TestProtocolTypedErrorsThroughSDK(t *testing.T) {
	doc(t, "GetItem (API Reference) — Errors", `ResourceNotFoundException: The operation tried to access a nonexistent table or index. HTTP Status Code: 400`)
	each(t, func(t *testing.T, tg *target) {
		_, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{
			TableName: aws.String(tableName(t)),
			Key:       item{"pk": s("x")},
		})
		var rnf *types.ResourceNotFoundException
		if !errors.As(err, &rnf) {
			t.Fatalf("got %v, want *types.ResourceNotFoundException", err)
		}
		wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
	})
}
