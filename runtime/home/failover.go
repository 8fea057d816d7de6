package home

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// noRegion is the home of a stopped cell's ownership item: no Region's
// fence passes until Claim names one.
const noRegion = "-"

// Claim writes the cell's ownership item in the Region of db as l says,
// unless the item there is already at l's epoch with a home, or later. It is the step
// that lets l.Region write; run it only where l.Region commits, after the
// previous epoch's items are there (DrainProof) or in takeover mode.
func Claim(ctx context.Context, db DB, table string, l Lease) error {
	return claimAt(ctx, db, table, l, time.Now())
}

// claimAt is Claim recording at as the claim's time: the lease store's
// clock, for the claims a Failover or Assign makes.
func claimAt(ctx context.Context, db DB, table string, l Lease, at time.Time) error {
	cond, err := expression.NewBuilder().WithCondition(expression.Or(
		expression.AttributeNotExists(expression.Name(schema.PartitionKey)),
		expression.Name(attrEpoch).LessThan(expression.Value(l.Epoch)),
		expression.Name(attrEpoch).Equal(expression.Value(l.Epoch)).And(expression.Name(attrHome).Equal(expression.Value(noRegion))))).Build()
	if err != nil {
		return err
	}
	item := OwnerKey(l.Cell)
	item[attrHome] = &types.AttributeValueMemberS{Value: l.Region}
	item[attrEpoch] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.Epoch, 10)}
	// The claiming Region's clock: its stream consumer flags a write of an
	// older epoch that reaches its replica after this (runtime/regionwatch).
	item[attrClaimedAt] = &types.AttributeValueMemberN{Value: strconv.FormatInt(at.UnixMilli(), 10)}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("home: claim of cell %s at epoch %d: the ownership item is at that epoch with a home, or later: %w", l.Cell, l.Epoch, ErrLeaseConflict)
	}
	return err
}

// Stop fences the cell's current owner at once: in the Region of db,
// where that owner commits, the ownership item moves from epoch to
// epoch+1 with no home, so every later transaction of the old epoch fails
// its fence there. Stop is a single conditional write in the owner's own
// replica, so no replication delay lets a write of the old epoch commit
// after it.
func Stop(ctx context.Context, db DB, table, cell string, epoch int64) error {
	ex, err := expression.NewBuilder().
		WithCondition(expression.Name(attrEpoch).Equal(expression.Value(epoch))).
		WithUpdate(expression.Set(expression.Name(attrHome), expression.Value(noRegion)).
			Set(expression.Name(attrEpoch), expression.Value(epoch+1))).Build()
	if err != nil {
		return err
	}
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: OwnerKey(cell),
		ConditionExpression: ex.Condition(), UpdateExpression: ex.Update(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values()})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("home: stop of cell %s: its ownership item is not at epoch %d: %w", cell, epoch, ErrLeaseConflict)
	}
	return err
}

// Proof is what DrainProof found.
type Proof struct {
	// Items is how many items of the compared partitions the source
	// Region holds.
	Items int
	// Partitions is how many partitions were compared: the cell's own and
	// every partition its trail lists.
	Partitions int
	// Differences names the keys ("<PK> <SK>") that differ, at most 10.
	Differences []string
	// Differing names every partition with an item that differs.
	Differing []string
}

// Drained reports whether the cell's items are identical in both Regions.
func (p Proof) Drained() bool { return len(p.Differences) == 0 }

// DrainProof compares every item of the cell in two Regions with strongly
// consistent Queries: its partition ("CELL#<cell>": the ownership item and
// the trail items Fencer writes with every transaction), then each
// partition a trail item read in from lists (a user's, an order's, an
// idempotency record's). Identical items in both, the stopped ownership
// item included, prove that every write the old owner made before Stop
// has reached the new one: Stop is the old owner's last write of the
// cell, every transaction of the cell wrote its trail in the same commit,
// and replication does not invent items. Partitions a trail no longer
// lists (older than the trail's TTL) are not compared.
func DrainProof(ctx context.Context, from, to DB, table, cell string) (Proof, error) {
	var p Proof
	parts := []string{PK(cell)}
	listed := map[string]bool{}
	for i := 0; i < len(parts); i++ {
		a, err := partitionItems(ctx, from, table, parts[i])
		if err != nil {
			return Proof{}, err
		}
		b, err := partitionItems(ctx, to, table, parts[i])
		if err != nil {
			return Proof{}, err
		}
		p.Partitions++
		p.Items += len(a)
		compare(parts[i], a, b, &p)
		if i > 0 {
			continue
		}
		for _, it := range a {
			for _, pk := range trailPartitions(it) {
				if !listed[pk] {
					listed[pk] = true
					parts = append(parts, pk)
				}
			}
		}
		sort.Strings(parts[1:])
	}
	return p, nil
}

// compare adds to p the sort keys of partition pk whose items differ
// between a and b.
func compare(pk string, a, b map[string]map[string]types.AttributeValue, p *Proof) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	differs := false
	for _, k := range keys {
		if reflect.DeepEqual(a[k], b[k]) {
			continue
		}
		differs = true
		if len(p.Differences) < 10 {
			p.Differences = append(p.Differences, pk+" "+k)
		}
	}
	if differs {
		p.Differing = append(p.Differing, pk)
	}
}

func partitionItems(ctx context.Context, db DB, table, pk string) (map[string]map[string]types.AttributeValue, error) {
	kc, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.PartitionKey).Equal(expression.Value(pk))).Build()
	if err != nil {
		return nil, err
	}
	items := map[string]map[string]types.AttributeValue{}
	in := &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: kc.KeyCondition(), ExpressionAttributeNames: kc.Names(), ExpressionAttributeValues: kc.Values()}
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			sk, _ := it[schema.SortKey].(*types.AttributeValueMemberS)
			if sk != nil {
				items[sk.Value] = it
			}
		}
		if out.LastEvaluatedKey == nil {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Failover moves cells between Regions. Regions maps each Region to its
// client of the money table.
type Failover struct {
	Table   string
	Leases  *Leases
	Regions map[string]DB
	// Wait is called between drain proofs that found differences (in a
	// deployment, a sleep of about the replication latency; in the
	// simulation, a delivery of replicated writes). Attempts bounds them.
	Wait     func(context.Context) error
	Attempts int
}

// PlannedReport is what a planned failover did.
type PlannedReport struct {
	From, To   string
	Epoch      int64 // the new epoch
	Items      int   // items proven replicated
	Partitions int   // partitions they are in
	Proofs     int   // drain proofs run
}

// ErrNotDrained is a planned failover whose drain proof still found
// differences after Attempts: the cell is stopped (no Region writes it)
// until Resume or a retry of Planned.
var ErrNotDrained = errors.New("home: the cell's items are not identical in both Regions")

// Planned moves a cell from its home Region to another with nothing lost
// and nothing applied twice: the lease moves to the next epoch (the old
// Region can no longer renew), Stop fences the old Region in its own
// replica, DrainProof shows the cell's items identical in both Regions,
// and Claim lets the new Region write.
func (f *Failover) Planned(ctx context.Context, cell, to string) (PlannedReport, error) {
	l, err := f.Leases.Get(ctx, cell)
	if err != nil {
		return PlannedReport{}, err
	}
	if l.Region == to {
		return PlannedReport{}, fmt.Errorf("home: cell %s is already homed in %s", cell, to)
	}
	src, dst := f.Regions[l.Region], f.Regions[to]
	if src == nil || dst == nil {
		return PlannedReport{}, fmt.Errorf("home: planned failover of cell %s from %s to %s: unknown Region", cell, l.Region, to)
	}
	nl, err := f.Leases.Move(ctx, l, to)
	if err != nil {
		return PlannedReport{}, err
	}
	if err := Stop(ctx, src, f.Table, cell, l.Epoch); err != nil {
		return PlannedReport{}, err
	}
	rep := PlannedReport{From: l.Region, To: to, Epoch: nl.Epoch}
	if err := f.drain(ctx, src, dst, cell, &rep); err != nil {
		return rep, err
	}
	return rep, claimAt(ctx, dst, f.Table, nl, f.Leases.o.Clock())
}

// Resume finishes a planned failover that ErrNotDrained left stopped.
func (f *Failover) Resume(ctx context.Context, cell, from string) (PlannedReport, error) {
	nl, err := f.Leases.Get(ctx, cell)
	if err != nil {
		return PlannedReport{}, err
	}
	rep := PlannedReport{From: from, To: nl.Region, Epoch: nl.Epoch}
	if err := f.drain(ctx, f.Regions[from], f.Regions[nl.Region], cell, &rep); err != nil {
		return rep, err
	}
	return rep, claimAt(ctx, f.Regions[nl.Region], f.Table, nl, f.Leases.o.Clock())
}

func (f *Failover) drain(ctx context.Context, src, dst DB, cell string, rep *PlannedReport) error {
	for rep.Proofs < max(f.Attempts, 1) {
		p, err := DrainProof(ctx, src, dst, f.Table, cell)
		rep.Proofs++
		if err != nil {
			return err
		}
		if p.Drained() {
			rep.Items, rep.Partitions = p.Items, p.Partitions
			return nil
		}
		if f.Wait != nil {
			if err := f.Wait(ctx); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("home: cell %s after %d proofs: %w", cell, rep.Proofs, ErrNotDrained)
}

// Takeover gives a cell whose home Region is unreachable to another
// Region under the next epoch, once the old lease has run out by the
// margin (before that it fails with ErrLeaseConflict: retry later). The
// old Region's acknowledged writes that had not replicated arrive later
// under the old epoch; the ledger check finds and quarantines them.
func (f *Failover) Takeover(ctx context.Context, cell, to string) (Lease, error) {
	l, err := f.Leases.Get(ctx, cell)
	if err != nil {
		return Lease{}, err
	}
	if l.Region == to {
		return l, fmt.Errorf("home: cell %s is already homed in %s", cell, to)
	}
	dst := f.Regions[to]
	if dst == nil {
		return Lease{}, fmt.Errorf("home: takeover of cell %s by %s: unknown Region", cell, to)
	}
	nl, err := f.Leases.Takeover(ctx, l, to)
	if err != nil {
		return Lease{}, err
	}
	return nl, claimAt(ctx, dst, f.Table, nl, f.Leases.o.Clock())
}
