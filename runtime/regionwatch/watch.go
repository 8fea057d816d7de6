package regionwatch

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
)

// DB is what the watcher needs of a client of its Region's replica.
type DB interface {
	home.DB
}

// Options configure a Watcher.
type Options struct {
	// Cells is how many cells users are hashed into (home.CellOf).
	// Default: 64, config.DefaultHomeCells.
	Cells int
	// Metrics receives the flags' metrics. Default: nil, none.
	Metrics *obs.Metrics
	// Logger logs each flag with its amounts. Default: slog.Default().
	Logger *slog.Logger
	// Clock stamps a quarantine's detection. Default: time.Now.
	Clock func() time.Time
}

// Watcher is the stream consumer of one Region's replica of table.
type Watcher struct {
	region, table string
	db            DB
	o             Options
}

// New returns the watcher of region's replica of table, read and written
// through db, a client of that Region.
func New(region, table string, db DB, opts ...func(*Options)) *Watcher {
	o := Options{Cells: 64, Logger: slog.Default(), Clock: time.Now}
	for _, f := range opts {
		f(&o)
	}
	if o.Cells <= 0 {
		o.Cells = 64
	}
	return &Watcher{region: region, table: table, db: db, o: o}
}

// Flags is what one batch found.
type Flags struct {
	// Late are the ledger entries quarantined by this batch.
	Late []home.LateWrite
	// Mismatches are the violations of accounts homed here.
	Mismatches []verify.Violation
}

// Handle is the Lambda handler of the stream's event source mapping
// (ReportBatchItemFailures): a record it cannot check is reported, with
// the records after it, to be delivered again; a quarantine already
// written is not written twice.
func (w *Watcher) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	_, resp := w.Check(ctx, ev)
	return resp, nil
}

// Check is Handle that also returns what the batch found.
func (w *Watcher) Check(ctx context.Context, ev events.DynamoDBEvent) (Flags, events.DynamoDBEventResponse) {
	var flags Flags
	var resp events.DynamoDBEventResponse
	owners := map[string]home.Ownership{}
	for _, r := range ev.Records {
		if err := w.record(ctx, r, owners, &flags); err != nil {
			w.o.Logger.ErrorContext(ctx, "regionwatch: record not checked", "region", w.region, "sequence", r.Change.SequenceNumber, "error", err)
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
			break
		}
	}
	w.emit(flags)
	return flags, resp
}

func (w *Watcher) emit(f Flags) {
	if len(f.Late) > 0 {
		var sum int64
		for _, l := range f.Late {
			sum += l.Entry.Amount
		}
		w.o.Metrics.Regions(w.table, obs.OutsideOwnerWrites, float64(len(f.Late)))
		w.o.Metrics.Regions(w.table, obs.OutsideOwnerAmount, float64(sum))
	}
	if len(f.Mismatches) > 0 {
		w.o.Metrics.Regions(w.table, obs.LedgerMismatches, float64(len(f.Mismatches)))
	}
}

func (w *Watcher) record(ctx context.Context, r events.DynamoDBEventRecord, owners map[string]home.Ownership, f *Flags) error {
	img := item(r.Change.NewImage)
	if img == nil {
		return nil
	}
	if tr, ok := home.ReadTrail(img); ok {
		return w.trail(ctx, r, tr, owners, f)
	}
	if isUser(img) && balanceChanged(r) {
		return w.account(ctx, img, owners, f)
	}
	return nil
}

func (w *Watcher) owner(ctx context.Context, cell string, owners map[string]home.Ownership) (home.Ownership, error) {
	if o, ok := owners[cell]; ok {
		return o, nil
	}
	o, err := home.ReadOwnership(ctx, w.db, w.table, cell)
	if err == nil {
		owners[cell] = o
	}
	return o, err
}

// trail flags a transaction of an older epoch than the one this Region
// claimed, arrived after the claim; a writer other than the owner at the
// owner's epoch (which the fence forbids) is flagged too.
func (w *Watcher) trail(ctx context.Context, r events.DynamoDBEventRecord, tr home.TrailRecord, owners map[string]home.Ownership, f *Flags) error {
	if tr.Writer == w.region {
		return nil
	}
	o, err := w.owner(ctx, tr.Cell, owners)
	if err != nil {
		return err
	}
	if o.Region != w.region || o.ClaimedAt.IsZero() {
		return nil
	}
	arrived := r.Change.ApproximateCreationDateTime.Time
	late := tr.Epoch < o.Epoch && arrived.After(o.ClaimedAt)
	if !late && tr.Epoch < o.Epoch {
		return nil
	}
	if !late && tr.Epoch == o.Epoch {
		late = true // another Region wrote under this Region's epoch
	}
	if !late {
		return nil
	}
	checked := map[string]bool{}
	for _, m := range tr.Moves {
		lw := home.LateWrite{Cell: tr.Cell, Entry: m, Writer: tr.Writer, Epoch: tr.Epoch, Region: w.region, Claimed: o.Epoch,
			WrittenAt: tr.WrittenAt, DetectedAt: w.o.Clock()}
		wrote, err := home.Quarantine(ctx, w.db, w.table, lw)
		if err != nil {
			return fmt.Errorf("regionwatch: quarantine of %s %s: %w", m.PK, m.SK, err)
		}
		if !wrote {
			continue
		}
		f.Late = append(f.Late, lw)
		w.o.Logger.ErrorContext(ctx, "regionwatch: late write quarantined", "region", w.region, "cell", tr.Cell,
			"writer", tr.Writer, "epoch", tr.Epoch, "claimedEpoch", o.Epoch, "pk", m.PK, "sk", m.SK,
			"kind", m.Kind, "amount", m.Amount, "currency", m.Currency)
		// Last writer wins may have kept or dropped the old home's balance
		// item: check the account the entry moved money for.
		if !checked[m.PK] {
			checked[m.PK] = true
			if err := w.check(ctx, m.PK, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// account checks an account homed here after its balance changed.
func (w *Watcher) account(ctx context.Context, img map[string]types.AttributeValue, owners map[string]home.Ownership, f *Flags) error {
	pk, _ := img[schema.PartitionKey].(*types.AttributeValueMemberS)
	user := strings.TrimPrefix(pk.Value, keys.Default.UserPrefix)
	o, err := w.owner(ctx, home.CellOf(user, w.o.Cells), owners)
	if err != nil {
		return err
	}
	if o.Region != w.region {
		return nil
	}
	return w.check(ctx, pk.Value, f)
}

// check verifies the user partition pk alone and keeps its balance's
// violations.
func (w *Watcher) check(ctx context.Context, pk string, f *Flags) error {
	rep, err := verify.Partitions(ctx, w.db, []string{pk}, func(vo *verify.Options) { vo.Table = w.table })
	if err != nil {
		return fmt.Errorf("regionwatch: check of %s: %w", pk, err)
	}
	for _, v := range rep.Violations {
		if v.Kind != verify.BalanceMismatch && v.Kind != verify.NegativeBalance {
			continue
		}
		f.Mismatches = append(f.Mismatches, v)
		w.o.Logger.ErrorContext(ctx, "regionwatch: account mismatch", "region", w.region, "kind", v.Kind, "userId", v.UserID, "detail", v.Detail)
	}
	return nil
}

func isUser(img map[string]types.AttributeValue) bool {
	et, _ := img[schema.EntityType].(*types.AttributeValueMemberS)
	pk, _ := img[schema.PartitionKey].(*types.AttributeValueMemberS)
	return et != nil && pk != nil && et.Value == store.TypeUser && strings.HasPrefix(pk.Value, keys.Default.UserPrefix)
}

// balanceChanged: a user's profile inserted with, or modified to, another
// balance (a profile edit leaves it alone).
func balanceChanged(r events.DynamoDBEventRecord) bool {
	n, ok := r.Change.NewImage["balance"]
	if !ok {
		return false
	}
	o, had := r.Change.OldImage["balance"]
	return !had || o.Number() != n.Number()
}
