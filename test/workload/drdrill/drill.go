package drdrill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/verify"
	"github.com/oncetable/oncetable/test/workload"
)

// Config is one drill. Every field has a default.
type Config struct {
	// Duration of the traffic. Default: 20s.
	Duration time.Duration
	// Clients and Users of the workload. Default: 8 and 12.
	Clients, Users int
	// Seed of the workload's choices and faults. Default: 1.
	Seed uint64
	// Phase is the length of a fault window. Default: 2s, so the windows
	// cycle through every fault during the traffic.
	Phase time.Duration
	// RestoreAt is where the restore point falls, as a share of Duration.
	// Default: 0.5.
	RestoreAt float64
	// Torn turns on the engine's torn-backup fault for the restore.
	Torn bool
	// Slack is how long before the restore point a movement may have been
	// stamped and still commit after it (see RPO.InFlight). Default: 2s,
	// a client's patience for one attempt.
	Slack time.Duration
	// Out receives the drill's progress and result. Default: io.Discard.
	Out io.Writer
	// RestoreWait bounds the wait for the restore point to become
	// restorable and for the restored table to become ACTIVE. Default: 30m.
	RestoreWait time.Duration
}

func (c Config) withDefaults() Config {
	c.Duration = cmpOr(c.Duration, 20*time.Second)
	c.Clients = cmpOr(c.Clients, 8)
	c.Users = cmpOr(c.Users, 12)
	c.Seed = cmpOr(c.Seed, 1)
	c.Phase = cmpOr(c.Phase, 2*time.Second)
	c.Slack = cmpOr(c.Slack, 2*time.Second)
	c.RestoreWait = cmpOr(c.RestoreWait, 30*time.Minute)
	if c.RestoreAt <= 0 || c.RestoreAt >= 1 {
		c.RestoreAt = 0.5
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	return c
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Report is a finished drill.
type Report struct {
	Config Config
	// Soak is the workload's run; its violations are the live table's.
	Soak *workload.Result
	// Point is the restore point, Target the restored table.
	Point  time.Time
	Target string
	// Restore is RestoreTableToPointInTime until the table is ACTIVE, Verify
	// the verifier's run on it: together the RTO.
	Restore, Verify time.Duration
	Check           *verify.Report
	RPO             RPO
}

// RTO is the time from the restore's request to a verified table.
func (r *Report) RTO() time.Duration { return r.Restore + r.Verify }

// Passed reports whether the drill showed what it must: without Torn, a
// restored table that breaks no invariant and holds exactly what was
// committed by the point; with Torn, a verifier that caught the torn
// transaction and named it.
func (r *Report) Passed() bool {
	if len(r.Soak.Violations) > 0 {
		return false
	}
	if r.Config.Torn {
		return !r.Check.OK && len(r.Check.Transactions()) > 0
	}
	return r.Check.OK && r.RPO.OK()
}

// Run runs the drill. It returns an error when the drill could not run
// (the engine cannot restore, say); a restore the verifier fails is in the
// Report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	rep := &Report{Config: cfg}
	var restoredEntries map[string]bool
	var unsupported error // the endpoint cannot restore: no wait for the restore point
	wcfg := workload.Config{Duration: cfg.Duration, Clients: cfg.Clients, Users: cfg.Users, Seed: cfg.Seed, Phase: cfg.Phase,
		Progress: prefixed{cfg.Out, "  workload: "},
		// The restore point is restorable at once, not five minutes later
		// as on DynamoDB (where the drill waits for it).
		Engine: []func(*ddblocal.Options){func(o *ddblocal.Options) { o.PITRLag = -1 }},
		During: func(ctx context.Context, live *workload.Live) error {
			if err := canRestore(ctx, live.DB); err != nil {
				unsupported = err
				return err
			}
			if err := enablePITR(ctx, live.DB, live.Table); err != nil {
				return err
			}
			fmt.Fprintf(cfg.Out, "dr-drill: point-in-time recovery enabled on %s\n", live.Table)
			wait := time.Duration(float64(cfg.Duration)*cfg.RestoreAt) - live.Elapsed()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			rep.Point = time.Now().UTC()
			fmt.Fprintf(cfg.Out, "dr-drill: restore point %s, %.1fs into the traffic (%d requests so far)\n",
				rep.Point.Format(time.RFC3339Nano), live.Elapsed().Seconds(), live.Attempts())
			return nil
		},
		Check: func(ctx context.Context, live *workload.Live, _ *workload.State) ([]workload.Violation, error) {
			if unsupported != nil {
				return nil, unsupported
			}
			if rep.Point.IsZero() {
				return nil, errors.New("dr-drill: the traffic ended before the restore point")
			}
			if cfg.Torn {
				if err := tornFault(live); err != nil {
					return nil, err
				}
				fmt.Fprintln(cfg.Out, "dr-drill: torn-backup fault on: the restore captures part of a transaction in flight")
			}
			var err error
			restoredEntries, err = rep.restore(ctx, live)
			return nil, err
		},
	}
	fmt.Fprintf(cfg.Out, "dr-drill: invariant workload for %s, %d clients, every fault on in windows of %s; restore point at %.0f%% of the traffic\n",
		cfg.Duration, cfg.Clients, cfg.Phase, cfg.RestoreAt*100)
	res, err := workload.Run(ctx, wcfg)
	if err != nil {
		return nil, err
	}
	if res.During != nil {
		return nil, fmt.Errorf("dr-drill: %w", res.During)
	}
	rep.Soak = res
	rep.RPO = measure(movements(res.Events), restoredEntries, rep.Point, cfg.Slack)
	return rep, nil
}

// restore restores the table to the point, verifies it and returns the
// ids of the ledger entries it holds.
func (r *Report) restore(ctx context.Context, live *workload.Live) (map[string]bool, error) {
	out, db := r.Config.Out, live.DB
	ctx, cancel := context.WithTimeout(ctx, r.Config.RestoreWait)
	defer cancel()
	if err := restorable(ctx, db, live.Table, r.Point, out); err != nil {
		return nil, err
	}
	r.Target = live.Table + "-restored-" + r.Point.Format("150405")
	start := time.Now()
	_, err := db.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(live.Table),
		TargetTableName: aws.String(r.Target), RestoreDateTime: aws.Time(r.Point)})
	if err != nil {
		return nil, fmt.Errorf("dr-drill: RestoreTableToPointInTime: %w", err)
	}
	if err := active(ctx, db, r.Target); err != nil {
		return nil, err
	}
	r.Restore = time.Since(start)
	fmt.Fprintf(out, "dr-drill: RestoreTableToPointInTime %s -> %s at %s: ACTIVE after %s\n",
		live.Table, r.Target, r.Point.Format(time.RFC3339Nano), r.Restore.Round(time.Millisecond))
	start = time.Now()
	r.Check, err = verify.Table(ctx, db, func(o *verify.Options) { o.Table, o.MaxRCU = r.Target, -1 })
	if err != nil {
		return nil, fmt.Errorf("dr-drill: verify: %w", err)
	}
	r.Verify = time.Since(start)
	st, err := workload.ReadState(ctx, db, r.Target)
	if err != nil {
		return nil, err
	}
	entries := map[string]bool{}
	for _, e := range st.Ledger {
		entries[e.EntryID] = true
	}
	return entries, nil
}

// canRestore asks the endpoint to restore a table that does not exist: an
// endpoint that knows the operation refuses the table, one that does not
// refuses the operation, which the drill cannot do without.
func canRestore(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("dr-drill-no-such-table"),
		TargetTableName: aws.String("dr-drill-no-such-table-restored"), UseLatestRestorableTime: aws.Bool(true)})
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException" {
		return fmt.Errorf("the DynamoDB endpoint does not support RestoreTableToPointInTime (%s): the embedded engine gets it with issue 22 part 1", api.ErrorCode())
	}
	return nil
}

func enablePITR(ctx context.Context, db *dynamodb.Client, table string) error {
	_, err := db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	if err != nil {
		return fmt.Errorf("enable point-in-time recovery: %w", err)
	}
	return nil
}

// restorable waits until point is no later than the table's
// LatestRestorableDateTime (DynamoDB's trails the present by minutes).
func restorable(ctx context.Context, db *dynamodb.Client, table string, point time.Time, out io.Writer) error {
	told := false
	for {
		d, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		if err != nil {
			return fmt.Errorf("dr-drill: DescribeContinuousBackups: %w", err)
		}
		pitr := d.ContinuousBackupsDescription.PointInTimeRecoveryDescription
		if pitr == nil || pitr.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
			return fmt.Errorf("dr-drill: point-in-time recovery is not enabled on %s", table)
		}
		earliest, latest := aws.ToTime(pitr.EarliestRestorableDateTime), aws.ToTime(pitr.LatestRestorableDateTime)
		if point.Before(earliest) {
			return fmt.Errorf("dr-drill: restore point %s is before the earliest restorable time %s", point, earliest)
		}
		if !point.After(latest) {
			return nil
		}
		if !told {
			fmt.Fprintf(out, "dr-drill: waiting for the restore point to become restorable (latest restorable: %s)\n", latest.Format(time.RFC3339Nano))
			told = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dr-drill: restore point %s not restorable in time: %w", point, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// active waits for the restored table to be ACTIVE.
func active(ctx context.Context, db *dynamodb.Client, table string) error {
	for {
		d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err == nil && d.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			return fmt.Errorf("dr-drill: describe %s: %w", table, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dr-drill: %s not ACTIVE in time: %w", table, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// prefixed writes each line with a prefix.
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	lines := strings.SplitAfter(string(b), "\n")
	var sb strings.Builder
	for _, l := range lines {
		if l != "" {
			sb.WriteString(p.prefix + strings.TrimLeft(l, " "))
		}
	}
	_, err := io.WriteString(p.w, sb.String())
	return len(b), err
}
