package conformance_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const pageTagging = "TagResource / UntagResource / ListTagsOfResource (DynamoDB API Reference)"

func TestTagsOnUnknownResource(t *testing.T) {
	doc(t, pageTagging, "ResourceArn: Length Constraints: Minimum length of 1. Maximum length of 1283 (a malformed ARN is a ValidationException); Errors: AccessDeniedException — an ARN that names no table the caller may use is refused before any lookup")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		missing := strings.Replace(aws.ToString(d.Table.TableArn), name, name+"-missing", 1)
		_, err = tg.client.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
		wantErr(t, err, "AccessDeniedException", "dynamodb:ListTagsOfResource", missing)
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		wantErr(t, err, "AccessDeniedException", "dynamodb:TagResource")
		_, err = tg.client.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(missing), TagKeys: []string{"k"}})
		wantErr(t, err, "AccessDeniedException", "dynamodb:UntagResource")
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String("not-an-arn"), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		wantValidation(t, err)
	})
}

func TestUpdateTableRefusesNoOps(t *testing.T) {
	doc(t, pageUpdateTable, "You can only perform one of the following operations at once: modify the provisioned throughput settings of the table, ... ; ProvisionedThroughput ReadCapacityUnits and WriteCapacityUnits: Valid Range: Minimum value of 1; GlobalSecondaryIndexUpdates: each element is one of Create, Update or Delete")
	each(t, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		name := createTable(t, tg, in)
		same := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		_, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: same})
		wantValidation(t, err, "The provisioned throughput for the table will not change")
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{}})
		wantValidation(t, err, "At least one of ProvisionedThroughput")
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{}}})
		wantValidation(t, err, "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(0), WriteCapacityUnits: aws.Int64(5)}})
		wantValidation(t, err, "Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1")
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1_000_000_000_001), WriteCapacityUnits: aws.Int64(5)}})
		wantValidation(t, err, "Given value 1000000000001 for ReadCapacityUnits is out of bounds")
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		if pt := d.Table.ProvisionedThroughput; aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 5 {
			t.Errorf("refused updates changed the throughput to %d/%d", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
		}
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(6), WriteCapacityUnits: aws.Int64(5)}})
		noErr(t, err, "UpdateTable to 6/5")
	})
}
