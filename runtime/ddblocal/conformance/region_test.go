package conformance_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const pageARNs = "Amazon Resource Names (ARNs) for DynamoDB (Service Authorization Reference) / Signature Version 4 credential scope (AWS General Reference)"

// regionClient is tg's client signing for region instead.
func regionClient(tg *target, region string) *dynamodb.Client {
	if tg.url == "" {
		return tg.engine.Client(clientOptions, func(o *dynamodb.Options) { o.Region = region })
	}
	return httpClient(tg.url, region, tg.creds)
}

func TestTableARNNamesTheRequestRegion(t *testing.T) {
	doc(t, pageARNs, "A table ARN is arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}: the region is the one the request was sent to, which is the region of its SigV4 credential scope (Credential=AKID/date/region/dynamodb/aws4_request)")
	each(t, func(t *testing.T, tg *target) {
		if tg.external() {
			t.Skip("the region of an external endpoint is fixed")
		}
		db := regionClient(tg, "eu-west-2")
		name := tableName(t)
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(name)
		out, err := db.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable in eu-west-2")
		t.Cleanup(func() { _, _ = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
		arn := aws.ToString(out.TableDescription.TableArn)
		if !strings.HasPrefix(arn, "arn:aws:dynamodb:eu-west-2:") || !strings.HasSuffix(arn, ":table/"+name) {
			t.Errorf("TableArn %q, want arn:aws:dynamodb:eu-west-2:<account>:table/%s", arn, name)
		}
		// The ARN works where a table ARN is accepted.
		_, err = db.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		noErr(t, err, "TagResource by the eu-west-2 ARN")
		// A request signed for the default region gets us-east-1.
		other := hashTable(t, tg)
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(other)})
		noErr(t, err, "DescribeTable")
		if got := aws.ToString(d.Table.TableArn); !strings.HasPrefix(got, "arn:aws:dynamodb:us-east-1:") {
			t.Errorf("TableArn %q, want region us-east-1", got)
		}
	})
}
