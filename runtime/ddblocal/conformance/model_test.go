package conformance_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	pageCreateBackup = "CreateBackup (DynamoDB API Reference)"
	pageListBackups  = "ListBackups (DynamoDB API Reference)"
	pagePITRAPI      = "UpdateContinuousBackups (DynamoDB API Reference)"
	pageUntag        = "UntagResource (DynamoDB API Reference)"
)

// TestModelConstraints covers operations whose first validation pass is the
// API model's, member by member: the constraints each API Reference page
// lists for its request parameters (Required, Length Constraints, Valid
// Range, Valid Values, Pattern) are refused in the model's message form
// before the table is looked up, and a refused request changes nothing.
func TestModelConstraints(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		long := strings.Repeat("b", 256)
		for _, tc := range []struct {
			page, rule, op, body, msg string
		}{
			{pageCreateBackup, "TableName and BackupName are Required", "CreateBackup", `{}`,
				"2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; Value null at 'backupName' failed to satisfy constraint: Member must not be null"},
			{pageCreateBackup, "BackupName: Length Constraints: Minimum length of 3; Pattern: [a-zA-Z0-9_.-]+", "CreateBackup", `{"TableName":"` + name + `","BackupName":"b!"}`,
				"2 validation errors detected: Value 'b!' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'b!' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
			{pageCreateBackup, "BackupName: Length Constraints: Maximum length of 255", "CreateBackup", `{"TableName":"` + name + `","BackupName":"` + long + `"}`,
				"1 validation error detected: Value '" + long + "' at 'backupName' failed to satisfy constraint: Member must have length less than or equal to 255"},
			{pageCreateBackup, "a request is checked before its table is looked up", "CreateBackup", `{"TableName":"no-such-table-here","BackupName":"b!"}`,
				"Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
			{pageListBackups, "Limit: Valid Range: Minimum value of 1. Maximum value of 100", "ListBackups", `{"Limit":101}`,
				"1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"},
			{pageListBackups, "BackupType: Valid Values: USER | SYSTEM | AWS_BACKUP | ALL", "ListBackups", `{"BackupType":"DAILY"}`,
				"1 validation error detected: Value 'DAILY' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]"},
			{pagePITRAPI, "PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled is Required", "UpdateContinuousBackups", `{"TableName":"` + name + `","PointInTimeRecoverySpecification":{}}`,
				"1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null"},
			{pageUntag, "TagKeys: Length Constraints: Minimum length of 1 for each key", "UntagResource", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/` + name + `","TagKeys":[""]}`,
				"1 validation error detected: Value '' at 'tagKeys.1.member' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		} {
			t.Run(tc.op+"/"+tc.rule, func(t *testing.T) {
				doc(t, tc.page, tc.rule)
				r := rawCall(t, tg, targetPrefix+tc.op, jsonType, tc.body)
				eb := decodeError(t, r)
				if r.status != 400 || !strings.HasSuffix(eb.Type, "#ValidationException") || !strings.Contains(eb.Message, tc.msg) {
					t.Errorf("%.80s: %d %s %q, want ValidationException %q", tc.body, r.status, eb.Type, eb.Message, tc.msg)
				}
			})
		}
		out, err := tg.client.ListBackups(ctx(t), &dynamodb.ListBackupsInput{TableName: aws.String(name)})
		noErr(t, err, "ListBackups")
		if len(out.BackupSummaries) != 0 {
			t.Errorf("refused CreateBackups made %d backups, want none", len(out.BackupSummaries))
		}
	})
}
