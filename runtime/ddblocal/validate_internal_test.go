package ddblocal

import (
	"strings"
	"testing"
)

func TestTableNameOfARN(t *testing.T) {
	for _, tc := range []struct {
		arn, name string
		ok        bool
	}{
		{"arn:aws:dynamodb:us-east-1:123456789012:table/orders", "orders", true},
		{"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/a.b-c_d", "a.b-c_d", true},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/orders/index/gsi", "", false},
		{"arn:aws:s3:::bucket", "", false},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/x!", "", false},
		{"arn:aws:dynamodb::123456789012:table/orders", "", false},
		{"orders", "", false},
	} {
		name, ok := tableNameOfARN(tc.arn)
		if name != tc.name || ok != tc.ok {
			t.Errorf("tableNameOfARN(%q) = %q, %v; want %q, %v", tc.arn, name, ok, tc.name, tc.ok)
		}
	}
}

func TestSignedRegion(t *testing.T) {
	for _, tc := range []struct{ auth, want string }{
		{"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-2/dynamodb/aws4_request, SignedHeaders=host, Signature=abc", "eu-west-2"},
		{"AWS4-HMAC-SHA256 Credential=AKID/20261201/us-gov-west-1/dynamodb/aws4_request,SignedHeaders=host", "us-gov-west-1"},
		{"AWS4-HMAC-SHA256 Credential=AKID/20261201/EU WEST/dynamodb/aws4_request", ""},
		{"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-2/dynamodb", ""},
		{"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-2/dynamodb/aws4_request/extra", ""},
		{"AWS4-HMAC-SHA256 Credential= AKID/20261201/eu-west-2/dynamodb/aws4_request ,SignedHeaders=host", "eu-west-2"},
		{"AWS4-HMAC-SHA256 SignedHeaders=host", ""},
		{"", ""},
	} {
		if got := signedRegion(tc.auth); got != tc.want {
			t.Errorf("signedRegion(%q) = %q, want %q", tc.auth, got, tc.want)
		}
	}
	auth := "AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-2/dynamodb/aws4_request, SignedHeaders=host, Signature=abc"
	if n := testing.AllocsPerRun(100, func() { _ = signedRegion(auth) }); n != 0 {
		t.Errorf("signedRegion allocates %v times, want 0", n)
	}
}

func TestJavaString(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}`, "{t=[{PutRequest={Item={pk={S=a}}}}]}"},
		{`[]`, "[]"},
		{`{"b":1,"a":true,"c":null}`, "{a=true, b=1, c=null}"},
	} {
		if got := javaString([]byte(tc.json)); got != tc.want {
			t.Errorf("javaString(%s) = %q, want %q", tc.json, got, tc.want)
		}
	}
}

func TestCheckerCollectsInOrder(t *testing.T) {
	in := &putItemInput{}
	in.TableName = "orders"
	in.ReturnConsumedCapacity, in.ReturnValues = "X", "Y"
	err := validateRequest("", []byte(`{"TableName":"orders"}`), in)
	want := "3 validation errors detected: " +
		"Value 'X' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
		"Value null at 'item' failed to satisfy constraint: Member must not be null; " +
		"Value 'Y' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	in.TableName = ""
	err = validateRequest("", []byte(`{"TableName":""}`), in)
	if want := "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("empty name: got %v, want only %q", err, want)
	}
}
