package workload_test

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/reconcile"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
	"github.com/oncetable/oncetable/test/workload"
)

// TestReconcileCatchesACorruptBalanceInTheSoak runs the live reconciliation
// beside the soak's clients, as the scheduled function runs beside
// production traffic. With a mutant that drops the ledger entry of one
// transaction (its balance no longer matches its ledger), a pass must
// confirm the balance mismatch; on the healthy system, no pass may confirm
// anything, however the scan interleaves with the clients' transactions.
func TestReconcileCatchesACorruptBalanceInTheSoak(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutant bool
	}{{"healthy", false}, {"one ledger entry dropped", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var corruptedAt atomic.Int64 // Unix ns of the dropped entry's transaction
			var opts []func(*dynamodb.Options)
			if tc.mutant {
				start := time.Now()
				opts = append(opts, transactMutant(func(in *dynamodb.TransactWriteItemsInput) bool {
					if time.Since(start) < time.Second || corruptedAt.Load() != 0 {
						return false
					}
					for i, it := range in.TransactItems {
						if it.Put == nil {
							continue
						}
						// A credit's ledger entry. The credit's transaction can still be
						// cancelled (a conflict with another client's transaction on the
						// same balance), and its retry then carries the entry again: the
						// mutant drops entries until a transaction without one commits.
						et, ok := it.Put.Item["EntityType"].(*types.AttributeValueMemberS)
						kind, _ := it.Put.Item["kind"].(*types.AttributeValueMemberS)
						if ok && et.Value == store.TypeLedgerEntry && kind != nil && kind.Value == store.LedgerCredit && hasUpdate(in) {
							in.TransactItems = append(in.TransactItems[:i:i], in.TransactItems[i+1:]...)
							return true
						}
					}
					return false
				}, func(sentAt time.Time) { corruptedAt.CompareAndSwap(0, sentAt.UnixNano()) }))
			}
			var verdicts []reconcile.Verdict
			var caughtAt time.Time
			res, err := workload.Run(context.Background(), workload.Config{Duration: 4 * time.Second, Clients: 4, Users: 6, Seed: 5,
				NoFaults: true, Intruders: -1, ClientOptions: opts,
				During: func(ctx context.Context, live *workload.Live) error {
					r, err := reconcile.New(live.DB, func(o *reconcile.Options) {
						o.Table, o.Segments, o.MaxRCU, o.PageSize, o.Budget, o.ConfirmDelay = live.Table, 2, -1, 20, 50*time.Millisecond, 200*time.Millisecond
						// Effects stamped a second before a pass began are checked for
						// their records: most of the run's, under any load this test meets.
						o.InFlight = time.Second
						// The confirmed violations' lines (keys, transaction) go to the test's log.
						o.Log = slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
					})
					if err != nil {
						return err
					}
					// With the mutant, go on (up to 20 s) until a pass that
					// started after the corruption has ended: the corruption
					// may land late in the run.
					passedSince := func() bool {
						at := corruptedAt.Load()
						for _, v := range verdicts {
							if at != 0 && v.Started.UnixNano() > at {
								return true
							}
						}
						return false
					}
					// On a loaded machine a pass over every flow's items can take
					// most of the run: go on until two have ended.
					for live.Elapsed() < 4*time.Second || (len(verdicts) < 2 || tc.mutant && !passedSince()) && live.Elapsed() < 20*time.Second {
						out, err := r.Run(ctx)
						if err != nil {
							return err
						}
						if out.Verdict != nil {
							verdicts = append(verdicts, *out.Verdict)
							if out.Verdict.Confirmed > 0 && caughtAt.IsZero() {
								caughtAt = time.Now()
							}
						}
						time.Sleep(20 * time.Millisecond)
					}
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if res.During != nil {
				t.Fatal(res.During)
			}
			if len(verdicts) < 2 {
				t.Fatalf("%d passes finished during the run, want several", len(verdicts))
			}
			found, confirmed := 0, 0
			kinds := map[string]int{}
			for _, v := range verdicts {
				found += v.Found
				confirmed += v.Confirmed
				for k, n := range v.Kinds {
					kinds[k] += n
				}
			}
			t.Logf("%d passes: %d violations seen mid-transaction, %d confirmed %v", len(verdicts), found, confirmed, kinds)
			if !tc.mutant {
				if confirmed != 0 {
					t.Errorf("the healthy soak: %d confirmed violations %v, want none", confirmed, kinds)
				}
				return
			}
			if corruptedAt.Load() == 0 {
				t.Fatal("the mutant found no transaction with a ledger entry to drop")
			}
			if kinds[string(verify.BalanceMismatch)] == 0 || caughtAt.IsZero() {
				t.Fatalf("the dropped ledger entry was not caught: %v", kinds)
			}
			lag := caughtAt.Sub(time.Unix(0, corruptedAt.Load()))
			if lag < 0 {
				t.Errorf("a violation was confirmed %s before the corruption: a false page", -lag)
			}
			t.Logf("lag from the corruption to the confirmed verdict: %s", lag.Round(time.Millisecond))
		})
	}
}

// testLog writes a logger's lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// hasUpdate says whether a transaction updates an item (the balance, for
// a credit or debit).
func hasUpdate(in *dynamodb.TransactWriteItemsInput) bool {
	for _, it := range in.TransactItems {
		if it.Update != nil {
			return true
		}
	}
	return false
}

// transactMutant lets mutate change every TransactWriteItems before it is
// sent; when mutate says it changed one and DynamoDB accepted it, committed
// gets the time it was sent.
func transactMutant(mutate func(*dynamodb.TransactWriteItemsInput) bool, committed func(sentAt time.Time)) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("reconcile-mutant",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					p, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput)
					if !ok || !mutate(p) {
						return next.HandleInitialize(ctx, in)
					}
					sentAt := time.Now()
					out, md, err := next.HandleInitialize(ctx, in)
					if err == nil {
						committed(sentAt)
					}
					return out, md, err
				}), middleware.Before)
		})
	}
}
