package home

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// Lease is a Region's right to write a cell's money items at an epoch,
// until Expires by the lease store's clock.
type Lease struct {
	Cell    string
	Region  string
	Epoch   int64
	Expires time.Time
}

// Writable reports whether a writer whose clock reads now may still
// commit under the lease: it stops margin before Expires, so that a clock
// up to margin behind the store's still stops before another Region can
// take the cell over (Leases.Takeover waits margin after Expires).
func (l Lease) Writable(now time.Time, margin time.Duration) bool {
	return now.Add(margin).Before(l.Expires)
}

// LeaseOptions configure Leases.
type LeaseOptions struct {
	// TTL is how long a lease lasts from its grant or renewal. Default: 10s.
	TTL time.Duration
	// Margin is the clock skew a writer allows for (Lease.Writable) and a
	// takeover waits out after a lease's end. It must exceed the largest
	// skew between Regions' clocks. Default: 2s.
	Margin time.Duration
	// Clock is the store's time. Default: time.Now.
	Clock func() time.Time
}

// Leases keep each cell's lease in a table where every Region agrees
// linearizably: every change is a single-item conditional write on the
// previous epoch, which is what a multi-Region strong consistency (MRSC)
// table serves from any of its Regions (MRSC supports conditional
// single-item writes; it refuses concurrent writes to one item from two
// Regions with ReplicatedWriteConflictException, which leaves the
// condition to decide on retry). test/regionsim runs it on an MRSC table
// of the embedded engine's US Region set.
type Leases struct {
	db    DB
	table string
	o     LeaseOptions
}

// NewLeases returns the lease store over table, reached through db.
func NewLeases(db DB, table string, opts ...func(*LeaseOptions)) *Leases {
	o := LeaseOptions{TTL: 10 * time.Second, Margin: 2 * time.Second, Clock: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return &Leases{db: db, table: table, o: o}
}

// Margin is the store's skew margin.
func (s *Leases) Margin() time.Duration { return s.o.Margin }

// TTL is the store's lease length.
func (s *Leases) TTL() time.Duration { return s.o.TTL }

// ErrLeaseConflict is a lease change whose condition failed: another
// change came first. Read the lease again with Get.
var ErrLeaseConflict = errors.New("home: the lease changed since it was read")

// ErrNoLease is a cell that has no lease yet: it has never been assigned
// a home (Assign).
var ErrNoLease = errors.New("no lease: the cell has no home yet")

func leaseKey(cell string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.PartitionKey: &types.AttributeValueMemberS{Value: "LEASE#" + cell},
		schema.SortKey:      &types.AttributeValueMemberS{Value: "LEASE"},
	}
}

// Create grants the first lease of a cell, epoch 1, to region. It fails
// with ErrLeaseConflict when the cell has one.
func (s *Leases) Create(ctx context.Context, cell, region string) (Lease, error) {
	l := Lease{Cell: cell, Region: region, Epoch: 1, Expires: time.UnixMilli(s.o.Clock().Add(s.o.TTL).UnixMilli()).UTC()}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(schema.PartitionKey))).Build()
	if err != nil {
		return Lease{}, err
	}
	item := leaseKey(cell)
	item[attrHome] = &types.AttributeValueMemberS{Value: region}
	item[attrEpoch] = &types.AttributeValueMemberN{Value: "1"}
	item[attrExpires] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.Expires.UnixMilli(), 10)}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	return l, conflict(err)
}

// Get reads a cell's lease with a strongly consistent read.
func (s *Leases) Get(ctx context.Context, cell string) (Lease, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: leaseKey(cell), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return Lease{}, err
	}
	if out.Item == nil {
		return Lease{}, fmt.Errorf("home: cell %s: %w", cell, ErrNoLease)
	}
	o := ownershipOf(cell, out.Item)
	l := Lease{Cell: cell, Region: o.Region, Epoch: o.Epoch}
	if n, ok := out.Item[attrExpires].(*types.AttributeValueMemberN); ok {
		ms, _ := strconv.ParseInt(n.Value, 10, 64)
		l.Expires = time.UnixMilli(ms).UTC()
	}
	return l, nil
}

// Renew extends l by the TTL from now, if the cell is still l.Region's at
// l.Epoch; otherwise it fails with ErrLeaseConflict and the writer stops.
func (s *Leases) Renew(ctx context.Context, l Lease) (Lease, error) {
	return s.change(ctx, l, l.Region, l.Epoch, s.o.Clock().Add(s.o.TTL), false)
}

// Move gives the cell to region under the next epoch, if it is still at
// l's epoch (planned failover: the old Region is reachable and is fenced
// by Stop, so nothing waits for its lease to run out). The new lease does
// not let region write before its ownership item says so (Claim).
func (s *Leases) Move(ctx context.Context, l Lease, region string) (Lease, error) {
	return s.change(ctx, l, region, l.Epoch+1, s.o.Clock().Add(s.o.TTL), false)
}

// Takeover gives the cell to region under the next epoch once l, the
// unreachable Region's lease, has run out by more than the margin by the
// store's clock; before that it fails with ErrLeaseConflict. Every
// writer of the old Region has stopped by then (Lease.Writable).
func (s *Leases) Takeover(ctx context.Context, l Lease, region string) (Lease, error) {
	return s.change(ctx, l, region, l.Epoch+1, s.o.Clock().Add(s.o.TTL), true)
}

func (s *Leases) change(ctx context.Context, l Lease, region string, epoch int64, expires time.Time, afterExpiry bool) (Lease, error) {
	c := expression.Name(attrEpoch).Equal(expression.Value(l.Epoch)).And(expression.Name(attrHome).Equal(expression.Value(l.Region)))
	if afterExpiry {
		c = c.And(expression.Name(attrExpires).LessThan(expression.Value(s.o.Clock().Add(-s.o.Margin).UnixMilli())))
	}
	upd := expression.Set(expression.Name(attrHome), expression.Value(region)).
		Set(expression.Name(attrEpoch), expression.Value(epoch)).
		Set(expression.Name(attrExpires), expression.Value(expires.UnixMilli()))
	ex, err := expression.NewBuilder().WithCondition(c).WithUpdate(upd).Build()
	if err != nil {
		return Lease{}, err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: leaseKey(l.Cell),
		ConditionExpression: ex.Condition(), UpdateExpression: ex.Update(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values()})
	if err != nil {
		return Lease{}, conflict(err)
	}
	return Lease{Cell: l.Cell, Region: region, Epoch: epoch, Expires: time.UnixMilli(expires.UnixMilli()).UTC()}, nil
}

func conflict(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ErrLeaseConflict
	}
	return err
}
