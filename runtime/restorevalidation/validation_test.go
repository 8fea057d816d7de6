package restorevalidation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/backup"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/restorevalidation"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// fakeBackup records the verdicts reported.
type fakeBackup struct {
	calls []backup.PutRestoreValidationResultInput
	err   error
}

func (f *fakeBackup) PutRestoreValidationResult(_ context.Context, in *backup.PutRestoreValidationResultInput, _ ...func(*backup.Options)) (*backup.PutRestoreValidationResultOutput, error) {
	f.calls = append(f.calls, *in)
	return &backup.PutRestoreValidationResultOutput{}, f.err
}

func (f *fakeBackup) statuses() []string {
	var out []string
	for _, c := range f.calls {
		out = append(out, string(c.ValidationStatus))
	}
	return out
}

func event(t *testing.T, name, table string) events.CloudWatchEvent {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.CloudWatchEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if table != "" {
		var d map[string]any
		json.Unmarshal(ev.Detail, &d)
		d["createdResourceArn"] = "arn:aws:dynamodb:eu-west-1:111122223333:table/" + table
		ev.Detail, _ = json.Marshal(d)
	}
	return ev
}

// restored creates a restore-test table holding one user of balance.
func restored(t *testing.T, db *dynamodb.Client, balance string) string {
	t.Helper()
	ctx := context.Background()
	table := ddbtest.TableName(restorevalidation.RestoredTablePrefix)
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK": s("USER#alice"), "SK": s("PROFILE"), "EntityType": s("User"), "userId": s("alice"), "balance": &types.AttributeValueMemberN{Value: balance}}})
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func TestHandle(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	healthy, broken := restored(t, db, "0"), restored(t, db, "-7")
	plan := "arn:aws:backup:eu-west-1:111122223333:restore-testing-plan:OnceTable_prod_restore_test-1c2d3e4f"
	for _, tc := range []struct {
		name, event, table string
		ctx                func() (context.Context, context.CancelFunc)
		putErr             error
		statuses           []string
		message            string // the last verdict's message contains it
		failed, violations int    // the metric, when one is emitted
		noMetric, wantErr  bool
	}{
		{name: "healthy", event: "completed", table: healthy, statuses: []string{"VALIDATING", "SUCCESSFUL"},
			message: "every money invariant holds: 1 items (1 users"},
		{name: "broken", event: "completed", table: broken, statuses: []string{"VALIDATING", "FAILED"},
			message: "2 money invariant violations (balance-mismatch 1, negative-balance 1); torn or missing: a credit, debit or settle of user alice",
			failed:  1, violations: 2},
		{name: "table gone", event: "completed", table: "awsbackup-restore-test-gone", statuses: []string{"VALIDATING", "FAILED"},
			message: "could not read the restored table", failed: 1},
		{name: "outside the prefix", event: "outside-prefix", statuses: []string{"FAILED"},
			message: `restored table "OnceTable-prod-Table" is not named awsbackup-restore-test…`, failed: 1},
		{name: "deadline", event: "completed", table: healthy, statuses: []string{"VALIDATING", "TIMED_OUT"},
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 2*time.Second)
			},
			message: "did not finish before the function's deadline", failed: 1},
		{name: "report refused", event: "completed", table: healthy, putErr: errors.New("AccessDenied"),
			statuses: []string{"VALIDATING"}, noMetric: true, wantErr: true},
		{name: "still running", event: "running", noMetric: true},
		{name: "a restore by hand", event: "manual-restore", noMetric: true},
		{name: "another plan", event: "other-plan", noMetric: true},
		{name: "not a table", event: "s3-restore", noMetric: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bk := &fakeBackup{err: tc.putErr}
			var metrics bytes.Buffer
			v := restorevalidation.New(db, bk, func(o *restorevalidation.Options) {
				o.SourceTable, o.PlanARN, o.Metrics = "OnceTable-prod-Table", plan, &metrics
				o.Log = slog.New(slog.NewJSONHandler(io.Discard, nil))
				o.Margin = 5 * time.Second // more than the deadline case leaves
			})
			ctx, cancel := context.Background(), func() {}
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			err := v.Handle(ctx, event(t, tc.event, tc.table))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if got := strings.Join(bk.statuses(), ","); got != strings.Join(tc.statuses, ",") {
				t.Errorf("verdicts %q, want %q", got, strings.Join(tc.statuses, ","))
			}
			if tc.message != "" && len(bk.calls) > 0 {
				last := bk.calls[len(bk.calls)-1]
				if !strings.Contains(aws.ToString(last.ValidationStatusMessage), tc.message) {
					t.Errorf("message %q lacks %q", aws.ToString(last.ValidationStatusMessage), tc.message)
				}
				if aws.ToString(last.RestoreJobId) != "D9A1C1E2-58F4-4E2C-9C55-2B1A0B6C1F3A" {
					t.Errorf("restore job %q", aws.ToString(last.RestoreJobId))
				}
			}
			if tc.noMetric {
				if metrics.Len() > 0 {
					t.Errorf("metric emitted: %s", metrics.String())
				}
				return
			}
			var m map[string]any
			if err := json.Unmarshal(metrics.Bytes(), &m); err != nil {
				t.Fatalf("metric line %q: %v", metrics.String(), err)
			}
			if m[restorevalidation.DimensionTableName] != "OnceTable-prod-Table" || m[restorevalidation.MetricValidationFailed] != float64(tc.failed) ||
				m[restorevalidation.MetricViolations] != float64(tc.violations) {
				t.Errorf("metric %s, want failed %d, violations %d for OnceTable-prod-Table", metrics.String(), tc.failed, tc.violations)
			}
			ns := m["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)["Namespace"]
			if ns != restorevalidation.Namespace {
				t.Errorf("namespace %v", ns)
			}
		})
	}
}

func TestTableName(t *testing.T) {
	for arn, want := range map[string]string{
		"arn:aws:dynamodb:eu-west-1:111122223333:table/awsbackup-restore-test-1": "awsbackup-restore-test-1",
		"arn:aws-cn:dynamodb:cn-north-1:111122223333:table/t":                    "t",
		"arn:aws:dynamodb:eu-west-1:111122223333:table/t/index/GSI1":             "",
		"arn:aws:s3:::bucket": "",
		"table/t":             "",
	} {
		got, err := restorevalidation.TableName(arn)
		if got != want || (err != nil) != (want == "") || (err != nil && !errors.Is(err, restorevalidation.ErrNotATable)) {
			t.Errorf("TableName(%q) = %q, %v; want %q", arn, got, err, want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		wantErr bool
	}{
		{env: map[string]string{}},
		{env: map[string]string{config.VerifySegmentsEnv: "16", config.VerifyMaxRCUEnv: "-1"}},
		{env: map[string]string{config.VerifySegmentsEnv: "0"}, wantErr: true},
		{env: map[string]string{config.VerifyMaxRCUEnv: "fast"}, wantErr: true},
		{env: map[string]string{config.VerifyMaxRCUEnv: "0"}, wantErr: true},
	} {
		_, err := restorevalidation.FromEnv(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.wantErr {
			t.Errorf("FromEnv(%v): err %v, want error %v", tc.env, err, tc.wantErr)
		}
	}
}
