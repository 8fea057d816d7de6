package migrate

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (mg *Migrator) version(it Item) int64 { return getN(it, mg.opts.VersionAttribute) }

func (mg *Migrator) migrated(it Item) bool { return mg.version(it) >= int64(mg.m.To) }

// update applies upd to it's key under cond. A failed condition is no
// error: the item is already as the job would leave it, or gone.
func (mg *Migrator) update(ctx context.Context, it Item, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (bool, float64, error) {
	e, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return false, 0, err
	}
	var out *dynamodb.UpdateItemOutput
	err = mg.call(ctx, func(ctx context.Context) (err error) {
		out, err = mg.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(mg.table), Key: mg.keyOf(it),
			UpdateExpression: e.Update(), ConditionExpression: e.Condition(), ExpressionAttributeNames: e.Names(),
			ExpressionAttributeValues: e.Values(), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, 1, nil
	}
	if err != nil {
		return false, 0, err
	}
	return true, units(out.ConsumedCapacity, 1), nil
}

func sortedNames(it Item) []string {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// backfillJob adds the new shape to items still in the old one. The
// condition skips an item a live writer has meanwhile written in the new
// shape (its version is already To) or deleted.
func (mg *Migrator) backfillJob() job {
	return job{name: "backfill", checkpoint: true,
		selects: func(it Item) bool { return !mg.migrated(it) },
		op: func(ctx context.Context, it Item, key string) (bool, float64, error) {
			add, err := mg.shape.added(it, key)
			if err != nil {
				return false, 0, err
			}
			v := expression.Name(mg.opts.VersionAttribute)
			upd := expression.Set(v, expression.Value(mg.m.To))
			for _, k := range sortedNames(add) {
				upd = upd.Set(expression.Name(k), expression.Value(add[k]))
			}
			cond := expression.AttributeExists(expression.Name(mg.opts.Schema.PartitionKey)).
				And(expression.AttributeNotExists(v).Or(v.LessThan(expression.Value(mg.m.To))))
			return mg.update(ctx, it, upd, cond)
		}}
}

// cleanupJob removes the retired attributes from items in the new shape.
func (mg *Migrator) cleanupJob() job {
	return job{name: "cleanup", checkpoint: true,
		selects: func(it Item) bool {
			return mg.migrated(it) && slices.ContainsFunc(mg.m.Retire, func(a string) bool { _, ok := it[a]; return ok })
		},
		op: func(ctx context.Context, it Item, key string) (bool, float64, error) {
			if len(mg.m.Retire) == 0 {
				return false, 0, nil
			}
			upd := expression.Remove(expression.Name(mg.m.Retire[0]))
			for _, a := range mg.m.Retire[1:] {
				upd = upd.Remove(expression.Name(a))
			}
			v := expression.Name(mg.opts.VersionAttribute)
			return mg.update(ctx, it, upd, v.GreaterThanEqual(expression.Value(mg.m.To)))
		}}
}

// stripJob undoes the mirror: it removes the new shape's attributes and the
// version, for a rollback from mirror to none.
func (mg *Migrator) stripJob() job {
	return job{name: "rollback-mirror", checkpoint: true,
		selects: func(it Item) bool { return mg.version(it) == int64(mg.m.To) },
		op: func(ctx context.Context, it Item, key string) (bool, float64, error) {
			add, err := mg.m.Transform(it)
			if err != nil {
				return false, 0, &TransformError{Key: key, Err: err}
			}
			v := expression.Name(mg.opts.VersionAttribute)
			upd := expression.Remove(v)
			for _, k := range sortedNames(add) {
				upd = upd.Remove(expression.Name(k))
			}
			return mg.update(ctx, it, upd, v.Equal(expression.Value(mg.m.To)))
		}}
}

// restoreJob rebuilds the retired attributes, for a rollback from cleanup.
// Its condition leaves an item a writer has meanwhile mirrored again.
func (mg *Migrator) restoreJob() job {
	return job{name: "rollback-cleanup", checkpoint: true,
		selects: func(it Item) bool {
			return mg.migrated(it) && slices.ContainsFunc(mg.m.Retire, func(a string) bool { _, ok := it[a]; return !ok })
		},
		op: func(ctx context.Context, it Item, key string) (bool, float64, error) {
			back, err := mg.m.Restore(it)
			if err != nil {
				return false, 0, &TransformError{Key: key, Err: err}
			}
			if len(back) == 0 {
				return false, 0, &TransformError{Key: key, Err: fmt.Errorf("%w: Restore returned nothing", ErrInvalidTransform)}
			}
			names := sortedNames(back)
			upd := expression.Set(expression.Name(names[0]), expression.Value(back[names[0]]))
			for _, k := range names[1:] {
				upd = upd.Set(expression.Name(k), expression.Value(back[k]))
			}
			cond := expression.AttributeExists(expression.Name(mg.opts.Schema.PartitionKey)).
				And(expression.AttributeNotExists(expression.Name(names[0])))
			return mg.update(ctx, it, upd, cond)
		}}
}

// Verify compares every matched item's new shape (or Options.Sample of
// them) with what the transform makes of its old shape, in phases backfill
// to cutover. It returns a *VerifyError listing each mismatch. A pass in
// the verify phase is recorded, which lets the migration go on to cutover.
func (mg *Migrator) Verify(ctx context.Context) (Report, error) {
	st, err := mg.Status(ctx)
	if err != nil {
		return Report{}, err
	}
	if i := st.Phase.index(); i < Backfill.index() || i > Cutover.index() {
		return Report{}, mg.phaseError(st, Verify, "verify runs from backfill to cutover, while both shapes exist")
	}
	if st.Phase != Verify {
		return mg.verify(ctx)
	}
	var rep Report
	err = mg.withLease(ctx, func(ctx context.Context) error {
		if st, err = mg.Status(ctx); err != nil {
			return err
		}
		if st.Phase != Verify {
			return fmt.Errorf("%w: %s left verify for %s", ErrConcurrentChange, mg.m.Name, st.Phase)
		}
		_, rep, err = mg.verifyAndMark(ctx, st)
		return err
	})
	return rep, err
}

func (mg *Migrator) verify(ctx context.Context) (Report, error) {
	var (
		lock  sync.Mutex
		found []Mismatch
	)
	j := job{name: "verify",
		selects: func(it Item) bool { return mg.sampled(it) },
		op: func(ctx context.Context, it Item, key string) (bool, float64, error) {
			diff := mg.compare(it, key)
			lock.Lock()
			found = append(found, diff...)
			lock.Unlock()
			return false, 0, nil
		}}
	rep, err := mg.sweep(ctx, State{}, j)
	if err != nil {
		return rep, err
	}
	if len(found) > 0 {
		sort.Slice(found, func(a, b int) bool { return found[a].Key+found[a].Attribute < found[b].Key+found[b].Attribute })
		return rep, &VerifyError{Checked: rep.Matched, Mismatches: found}
	}
	return rep, nil
}

func (mg *Migrator) sampled(it Item) bool {
	if mg.opts.Sample >= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(formatKey(it, mg.shape.keyAttrs)))
	return float64(h.Sum64()%10000) < mg.opts.Sample*10000
}

// compare lists how item it differs from its own old shape transformed.
func (mg *Migrator) compare(it Item, key string) []Mismatch {
	if !mg.migrated(it) {
		return []Mismatch{{Key: key, Reason: fmt.Sprintf("not migrated (%s is %s, want %d)", mg.opts.VersionAttribute, display(it[mg.opts.VersionAttribute]), mg.m.To)}}
	}
	var out []Mismatch
	for _, a := range mg.m.Retire {
		if _, ok := it[a]; !ok {
			out = append(out, Mismatch{Key: key, Attribute: a, Want: "present", Got: "<absent>", Reason: "old shape missing"})
		}
	}
	want, err := mg.m.Transform(it)
	if err != nil {
		return append(out, Mismatch{Key: key, Reason: "transform failed: " + err.Error()})
	}
	for _, k := range sortedNames(want) {
		switch got, ok := it[k]; {
		case !ok:
			out = append(out, Mismatch{Key: key, Attribute: k, Want: display(want[k]), Got: "<absent>", Reason: "missing"})
		case !Equal(got, want[k]):
			out = append(out, Mismatch{Key: key, Attribute: k, Want: display(want[k]), Got: display(got), Reason: "differs"})
		}
	}
	return out
}
