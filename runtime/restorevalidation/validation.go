package restorevalidation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/backup"
	backuptypes "github.com/aws/aws-sdk-go-v2/service/backup/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/verify"
)

// The metric the verdict emits (Embedded Metric Format) and what the
// validation-failed alarm watches.
const (
	Namespace              = "oncetable/RestoreTesting"
	MetricValidationFailed = "ValidationFailed"
	MetricViolations       = "Violations"
	DimensionTableName     = "TableName"
)

// RestoredTablePrefix starts the name of every table AWS Backup restores
// for a restore test.
const RestoredTablePrefix = "awsbackup-restore-test"

// Detail is what the function reads of a Restore Job State Change event.
type Detail struct {
	RestoreJobID          string `json:"restoreJobId"`
	Status                string `json:"status"`
	ResourceType          string `json:"resourceType"`
	CreatedResourceArn    string `json:"createdResourceArn"`
	RestoreTestingPlanArn string `json:"restoreTestingPlanArn"`
}

// Backup is the part of the AWS Backup client the validation uses.
type Backup interface {
	PutRestoreValidationResult(ctx context.Context, in *backup.PutRestoreValidationResultInput, optFns ...func(*backup.Options)) (*backup.PutRestoreValidationResultOutput, error)
}

var _ Backup = (*backup.Client)(nil)

// Options configures a [Validator]. Every field has a default.
type Options struct {
	// SourceTable names the protected table in the metric. Default: the
	// restored table's name.
	SourceTable string
	// PlanARN, when set, is the only restore testing plan whose jobs are
	// validated; the others are skipped. Default: every plan's.
	PlanARN string
	// Verify changes the verifier's options (Segments 8, MaxRCU 2000: a
	// restore-test table serves nobody else).
	Verify []func(*verify.Options)
	// Margin is the time kept back from the invocation's deadline to report
	// TIMED_OUT. Default: 20s.
	Margin time.Duration
	// Log receives the report and the skips. Default: JSON lines on stderr.
	Log *slog.Logger
	// Metrics receives the EMF lines. Default: os.Stdout.
	Metrics io.Writer
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
}

// Validator validates restore testing jobs.
type Validator struct {
	db verify.DB
	bk Backup
	o  Options
	mu sync.Mutex // of o.Metrics
}

// New returns a validator that reads restored tables with db and reports
// with bk.
func New(db verify.DB, bk Backup, opts ...func(*Options)) *Validator {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.Margin <= 0 {
		o.Margin = 20 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if o.Metrics == nil {
		o.Metrics = os.Stdout
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Validator{db: db, bk: bk, o: o}
}

// FromEnv is the validator's options from the function's environment
// (config.RestoreValidation).
func FromEnv(getenv func(string) string) (func(*Options), error) {
	c, err := config.LoadRestoreValidation(getenv)
	if err != nil {
		return nil, fmt.Errorf("restorevalidation: %w", err)
	}
	return func(o *Options) {
		o.SourceTable, o.PlanARN = c.SourceTable, c.PlanARN
		o.Verify = append(o.Verify, func(vo *verify.Options) { vo.Segments, vo.MaxRCU = c.Segments, c.MaxRCU })
	}, nil
}

// ErrNotATable is returned for a created resource ARN that names no table.
var ErrNotATable = errors.New("restorevalidation: not a DynamoDB table ARN")

// TableName is the table of a DynamoDB table ARN
// (arn:aws:dynamodb:region:account:table/name).
func TableName(arn string) (string, error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", fmt.Errorf("%w: %q", ErrNotATable, arn)
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("%w: %q", ErrNotATable, arn)
	}
	return name, nil
}

// Handle validates the restore job of one event. It returns an error only
// when the verdict could not be reported (the invocation is then retried);
// a table that breaks an invariant is a FAILED verdict, not an error.
func (v *Validator) Handle(ctx context.Context, ev events.CloudWatchEvent) error {
	var d Detail
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		v.o.Log.Error("restore validation: undecodable event detail", "id", ev.ID, "err", err)
		return nil
	}
	if skip := v.skip(d); skip != "" {
		v.o.Log.Info("restore validation: skipped", "restoreJobId", d.RestoreJobID, "reason", skip)
		return nil
	}
	table, err := TableName(d.CreatedResourceArn)
	if err == nil && !strings.HasPrefix(table, RestoredTablePrefix) {
		err = fmt.Errorf("restored table %q is not named %s…, the only tables this function may read", table, RestoredTablePrefix)
	}
	if err != nil {
		return v.verdict(ctx, d, table, backuptypes.RestoreValidationStatusFailed, err.Error(), nil)
	}
	if err := v.put(ctx, d.RestoreJobID, backuptypes.RestoreValidationStatusValidating, "verifying the money invariants of "+table); err != nil {
		return err
	}
	vctx, cancel := v.deadline(ctx)
	defer cancel()
	rep, err := verify.Table(vctx, v.db, append([]func(*verify.Options){func(o *verify.Options) {
		o.Table, o.Segments, o.MaxRCU, o.Clock = table, 8, 2000, v.o.Clock
	}}, v.o.Verify...)...)
	switch {
	case err != nil && vctx.Err() != nil && ctx.Err() == nil:
		return v.verdict(ctx, d, table, backuptypes.RestoreValidationStatusTimedOut,
			fmt.Sprintf("the scan of %s did not finish before the function's deadline: run lambdas/verify -table %s (docs/recovery.md)", table, table), nil)
	case err != nil:
		return v.verdict(ctx, d, table, backuptypes.RestoreValidationStatusFailed, "could not read the restored table: "+err.Error(), nil)
	case !rep.OK:
		return v.verdict(ctx, d, table, backuptypes.RestoreValidationStatusFailed, failure(rep), rep)
	}
	return v.verdict(ctx, d, table, backuptypes.RestoreValidationStatusSuccessful,
		fmt.Sprintf("every money invariant holds: %d items (%d users, %d orders, %d ledger entries) read for %.0f RCU in %s",
			rep.Items, rep.Users, rep.Orders, rep.LedgerEntries, rep.ConsumedRCU, rep.Elapsed.Round(time.Second)), rep)
}

// skip says why an event is not one to validate, or "".
func (v *Validator) skip(d Detail) string {
	switch {
	case d.Status != "COMPLETED":
		return "status " + d.Status
	case d.ResourceType != "DynamoDB":
		return "resource type " + d.ResourceType
	case d.RestoreTestingPlanArn == "":
		return "not a restore testing job"
	case v.o.PlanARN != "" && d.RestoreTestingPlanArn != v.o.PlanARN:
		return "restore testing plan " + d.RestoreTestingPlanArn
	case d.RestoreJobID == "":
		return "no restore job id"
	}
	return ""
}

func (v *Validator) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, dl.Add(-v.o.Margin))
	}
	return context.WithCancel(ctx)
}

// verdict reports status, emits its metric and logs the report.
func (v *Validator) verdict(ctx context.Context, d Detail, table string, status backuptypes.RestoreValidationStatus, msg string, rep *verify.Report) error {
	violations := 0
	if rep != nil {
		violations = rep.Total()
	}
	v.metric(table, status != backuptypes.RestoreValidationStatusSuccessful, violations)
	attrs := []any{"restoreJobId", d.RestoreJobID, "table", table, "status", string(status), "message", msg}
	if rep != nil {
		attrs = append(attrs, "report", rep)
	}
	v.o.Log.Info("restore validation", attrs...)
	return v.put(ctx, d.RestoreJobID, status, msg)
}

// MaxMessage bounds the ValidationStatusMessage, which the console shows.
const MaxMessage = 1000

func (v *Validator) put(ctx context.Context, job string, status backuptypes.RestoreValidationStatus, msg string) error {
	if len(msg) > MaxMessage {
		msg = msg[:MaxMessage-3] + "..."
	}
	_, err := v.bk.PutRestoreValidationResult(ctx, &backup.PutRestoreValidationResultInput{RestoreJobId: aws.String(job),
		ValidationStatus: status, ValidationStatusMessage: aws.String(msg)})
	if err != nil {
		return fmt.Errorf("restorevalidation: report %s for restore job %s: %w", status, job, err)
	}
	return nil
}

// failure is the message of a FAILED verdict: the counts by kind and the
// transactions the violations break.
func failure(rep *verify.Report) string {
	var kinds []string
	for k, n := range rep.Counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	msg := fmt.Sprintf("%d money invariant violations (%s)", rep.Total(), strings.Join(kinds, ", "))
	if txns := rep.Transactions(); len(txns) > 0 {
		msg += "; torn or missing: " + strings.Join(txns, "; ")
	}
	return msg
}

func (v *Validator) metric(table string, failed bool, violations int) {
	source := cmp.Or(v.o.SourceTable, table)
	f := 0
	if failed {
		f = 1
	}
	line := map[string]any{
		"_aws": map[string]any{
			"Timestamp": v.o.Clock().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  Namespace,
				"Dimensions": [][]string{{DimensionTableName}},
				"Metrics": []any{map[string]string{"Name": MetricValidationFailed, "Unit": "Count"},
					map[string]string{"Name": MetricViolations, "Unit": "Count"}},
			}},
		},
		DimensionTableName:     source,
		MetricValidationFailed: f,
		MetricViolations:       violations,
	}
	b, _ := json.Marshal(line)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.o.Metrics.Write(append(b, '\n'))
}
