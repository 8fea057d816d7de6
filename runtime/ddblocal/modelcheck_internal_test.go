package ddblocal

import (
	"slices"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
	"github.com/oncetable/oncetable/runtime/ddblocal/wire/streams"
)

// Every order a message lists an enum in holds exactly the model's values.
func TestEnumOrderIsTheModels(t *testing.T) {
	byName := map[string][]string{}
	for _, s := range ddb.Shapes {
		byName[s.Name] = s.Enum
	}
	for name, order := range enumOrder {
		model, ok := byName[name]
		if !ok {
			t.Errorf("enumOrder names %s, which is not an enum of the model", name)
			continue
		}
		got, want := slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(model))
		if !slices.Equal(got, want) {
			t.Errorf("enumOrder[%s] = %v, the model's values are %v", name, order, model)
		}
	}
}

// Every operation the engine serves is one of the model's, and each input
// without a first pass of its own is checked from the model.
func TestOperationsAreTheModels(t *testing.T) {
	for name := range operations {
		if _, ok := ddb.Operations[name]; !ok {
			t.Errorf("the engine serves %s, which DynamoDB's model does not have", name)
		}
		if _, ok := modelInputs[name]; !ok {
			t.Errorf("%s has no input shape to check", name)
		}
	}
	for name := range streamOperations {
		if _, ok := streams.Operations[name]; !ok {
			t.Errorf("the engine serves %s, which DynamoDB Streams' model does not have", name)
		}
	}
}

func TestCheckModel(t *testing.T) {
	long := strings.Repeat("a", 256)
	for _, tc := range []struct {
		name, op, body, want string
	}{
		{"valid", "CreateBackup", `{"TableName":"orders","BackupName":"nightly"}`, ""},
		{"empty body: required members", "CreateBackup", ``,
			"2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'backupName' failed to satisfy constraint: Member must not be null"},
		{"pattern and length", "CreateBackup", `{"TableName":"orders","BackupName":"a!"}`,
			"2 validation errors detected: Value 'a!' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value 'a!' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"too long", "CreateBackup", `{"TableName":"orders","BackupName":"` + long + `"}`,
			"1 validation error detected: Value '" + long + "' at 'backupName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"enum", "ListBackups", `{"BackupType":"WEEKLY"}`,
			"1 validation error detected: Value 'WEEKLY' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]"},
		{"range", "ListBackups", `{"Limit":0}`,
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"nested required", "UpdateContinuousBackups", `{"TableName":"orders","PointInTimeRecoverySpecification":{}}`,
			"1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null"},
		{"list element", "UntagResource", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/orders","TagKeys":[""]}`,
			"1 validation error detected: Value '' at 'tagKeys.1.member' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"streams: shard iterator type", "GetShardIterator", `{"StreamArn":"` + strings.Repeat("s", 40) + `","ShardId":"` + strings.Repeat("h", 30) + `","ShardIteratorType":"OLDEST"}`,
			"1 validation error detected: Value 'OLDEST' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]"},
		{"UTF-16 length", "CreateBackup", `{"TableName":"orders","BackupName":"😀"}`,
			"2 validation errors detected: Value '😀' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value '😀' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &checker{body: []byte(tc.body)}
			checkModel(c, tc.op)
			got := ""
			if err := c.err(); err != nil {
				got = err.(*APIError).Message
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestJavaToRE2(t *testing.T) {
	for _, tc := range []struct {
		pattern, v string
		want       bool
	}{
		{`\p{Print}+`, "policy-1", true},
		{`\p{Print}+`, "tab\there", false},
		{`[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*`, "arn:aws:iam::1:role/x😀", true},
		{`[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*`, "\x01", false},
		{`^[^\$]+$`, "token", true},
		{`^[^\$]+$`, "to$ken", false},
		{`[0-9]{12}`, "123456789012", true},
		{`[0-9]{12}`, "1234567890123", false},
	} {
		if got := patternMatches(tc.pattern, tc.v); got != tc.want {
			t.Errorf("patternMatches(%q, %q) = %v, want %v", tc.pattern, tc.v, got, tc.want)
		}
	}
}
