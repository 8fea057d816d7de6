package republish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// DB is the part of the DynamoDB client Rebuild uses.
type DB interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Window is a half-open range of commit times, [From, To).
type Window struct {
	From, To time.Time
}

// Contains reports whether t is in w.
func (w Window) Contains(t time.Time) bool { return !t.Before(w.From) && t.Before(w.To) }

func (w Window) String() string {
	return w.From.UTC().Format(time.RFC3339Nano) + " to " + w.To.UTC().Format(time.RFC3339Nano)
}

// ErrEmptyWindow is returned for a window whose To is not after its From.
var ErrEmptyWindow = errors.New("republish: empty window: To must be after From")

// Options configures Rebuild.
type Options struct {
	// Table is the table's name. Default: schema.DefaultTableName.
	Table string
	// Segments is how many parallel Scan segments read the table.
	// Default: 4.
	Segments int
	// PageLimit caps the items of one Scan page. Default: 0 (DynamoDB's
	// 1 MB page).
	PageLimit int32
	// Schema names the table's attributes. Its zero fields take schema.Default()'s.
	Schema schema.Schema
	// Layout is the table's key layout. Its zero fields take keys.Default's.
	Layout keys.Layout
}

// Rebuild returns the events committed inside any of windows, rebuilt
// from the table, in commit order (ties by id).
func Rebuild(ctx context.Context, db DB, windows []Window, opts ...func(*Options)) ([]outbox.Event, error) {
	o := Options{Table: schema.DefaultTableName, Segments: 4, Schema: schema.Default()}
	for _, f := range opts {
		f(&o)
	}
	o.Segments, o.Layout, o.Schema = max(1, o.Segments), o.Layout.WithDefaults(), o.Schema.WithDefaults()
	for _, w := range windows {
		if !w.To.After(w.From) {
			return nil, fmt.Errorf("%w: %s", ErrEmptyWindow, w)
		}
	}
	r := rebuilder{db: db, o: o, windows: windows}
	filter, err := r.filter()
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		out  []outbox.Event
		errs = make([]error, o.Segments)
		wg   sync.WaitGroup
	)
	for seg := range o.Segments {
		wg.Go(func() {
			errs[seg] = r.segment(ctx, seg, filter, func(evs []outbox.Event) {
				mu.Lock()
				out = append(out, evs...)
				mu.Unlock()
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b outbox.Event) int {
		return cmp.Or(a.CommittedAt.Compare(b.CommittedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

type rebuilder struct {
	db      DB
	o       Options
	windows []Window
}

// eventTypes are the entity types whose items carry events.
var eventTypes = []string{store.TypeLedgerEntry, store.TypeHold, store.TypeRefund, store.TypePayment, store.TypeOrder}

// filter keeps the scan's answers to the items that carry events.
func (r rebuilder) filter() (expression.Expression, error) {
	operands := make([]expression.OperandBuilder, len(eventTypes))
	for i, t := range eventTypes {
		operands[i] = expression.Value(t)
	}
	cond := expression.Name(r.o.Schema.EntityType).In(operands[0], operands[1:]...)
	return expression.NewBuilder().WithFilter(cond).Build()
}

func (r rebuilder) segment(ctx context.Context, seg int, filter expression.Expression, emit func([]outbox.Event)) error {
	in := &dynamodb.ScanInput{
		TableName: aws.String(r.o.Table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(r.o.Segments)),
		FilterExpression: filter.Filter(), ExpressionAttributeNames: filter.Names(), ExpressionAttributeValues: filter.Values(),
	}
	if r.o.PageLimit > 0 {
		in.Limit = aws.Int32(r.o.PageLimit)
	}
	for {
		page, err := r.db.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("republish: scan segment %d of table %s: %w", seg, r.o.Table, err)
		}
		for _, item := range page.Items {
			evs, err := outbox.FromItem(outbox.StreamImage(item), r.o.Schema.EntityType, r.chargedAt(ctx))
			if err != nil {
				return fmt.Errorf("republish: %w", err)
			}
			emit(slices.DeleteFunc(evs, func(ev outbox.Event) bool { return !r.inside(ev.CommittedAt) }))
		}
		if len(page.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

func (r rebuilder) inside(t time.Time) bool {
	return slices.ContainsFunc(r.windows, func(w Window) bool { return w.Contains(t) })
}

// chargedAt reads the payment's createdAt, unless the payment id's time
// (keys.IDTime, to the millisecond) puts it a second or more outside every
// window: then the event is left out without a read.
func (r rebuilder) chargedAt(ctx context.Context) outbox.ChargedAt {
	return func(orderID, paymentID string) (string, error) {
		if at, err := keys.IDTime(paymentID); err == nil && !r.near(at, time.Second) {
			return at.UTC().Format(time.RFC3339Nano), nil
		}
		k, err := r.o.Layout.Payment(orderID, paymentID)
		if err != nil {
			return "", err
		}
		out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(r.o.Table), Key: map[string]types.AttributeValue{
				r.o.Schema.PartitionKey: &types.AttributeValueMemberS{Value: k.PK}, r.o.Schema.SortKey: &types.AttributeValueMemberS{Value: k.SK}},
			ProjectionExpression: aws.String("#c"), ExpressionAttributeNames: map[string]string{"#c": schema.CreatedAt},
		})
		if err != nil {
			return "", err
		}
		if s, ok := out.Item[schema.CreatedAt].(*types.AttributeValueMemberS); ok {
			return s.Value, nil
		}
		return "", fmt.Errorf("payment %s of order %s has no %s", paymentID, orderID, schema.CreatedAt)
	}
}

func (r rebuilder) near(t time.Time, margin time.Duration) bool {
	return slices.ContainsFunc(r.windows, func(w Window) bool {
		return Window{From: w.From.Add(-margin), To: w.To.Add(margin)}.Contains(t)
	})
}
