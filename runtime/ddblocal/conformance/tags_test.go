package conformance_test

import (
	"fmt"
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

const pageTagRestrictions = "Tagging restrictions in DynamoDB (Developer Guide), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html"

func TestTagRules(t *testing.T) {
	doc(t, pageTagRestrictions, "Each DynamoDB table can have only one tag with the same key; the maximum number of tags per table is 50; the maximum key length is 128 Unicode characters and the maximum value length 256; allowed characters are letters, white space, and numbers, plus the special characters + - = . _ : /; AWS-assigned tag names have the aws: prefix, which you can't assign")
	doc(t, pageTagging, "Tag: Key is 1 to 128 characters, Value 0 to 256; a refused TagResource or CreateTable changes nothing")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		arn := d.Table.TableArn
		tagOf := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
		for _, tt := range []struct {
			name string
			tags []types.Tag
			msg  string
		}{
			{"empty key", []types.Tag{tagOf("", "v")}, "at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1"},
			{"key of 129", []types.Tag{tagOf("ok", "v"), tagOf(strings.Repeat("k", 129), "v")}, "at 'tags.2.member.key' failed to satisfy constraint: Member must have length less than or equal to 128"},
			{"value of 257", []types.Tag{tagOf("k", strings.Repeat("v", 257))}, "at 'tags.1.member.value' failed to satisfy constraint: Member must have length less than or equal to 256"},
			{"characters of the key", []types.Tag{tagOf("->>;-)])", "ok")}, "The tag key"},
			{"characters of the value", []types.Tag{tagOf("ok", "#!%%^$$&")}, "The tag value"},
			{"@ in the key", []types.Tag{tagOf("team@example", "v")}, "The tag key"},
			{"aws: prefix", []types.Tag{tagOf("aws:cost", "v")}, "aws: prefix"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: tt.tags})
				wantValidation(t, err, tt.msg)
			})
		}
		ok := []types.Tag{tagOf(strings.Repeat("k", 128), strings.Repeat("v", 256)), tagOf("a b+c-d=e.f_g:h/i", ""), tagOf("ключ", "значение")}
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: ok})
		noErr(t, err, "TagResource at the limits")
		var fifty []types.Tag
		for i := range 47 {
			fifty = append(fifty, tagOf(fmt.Sprint("t", i), "v"))
		}
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: fifty})
		noErr(t, err, "TagResource to 50 tags")
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{tagOf("one-more", "v")}})
		wantValidation(t, err, "at most 50 tags")
		lt, err := tg.client.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
		noErr(t, err, "ListTagsOfResource")
		if len(lt.Tags) != 50 {
			t.Errorf("ListTagsOfResource: %d tags, want the 50 accepted", len(lt.Tags))
		}
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(tableName(t) + "-tags")
		in.Tags = []types.Tag{tagOf("bad<key>", "v")}
		_, err = tg.client.CreateTable(ctx(t), in)
		wantValidation(t, err, "The tag key")
		_, err = tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: in.TableName})
		wantErr(t, err, "ResourceNotFoundException")
	})
}
