package ddblocal

import (
	"context"
	"encoding/json"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// exprParams are the expression parameters shared by item operations,
// and the legacy parameters that expressions replaced.
type exprParams struct {
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues expr.Values

	Expected            json.RawMessage
	AttributeUpdates    json.RawMessage
	ConditionalOperator json.RawMessage
	KeyConditions       json.RawMessage
	QueryFilter         json.RawMessage
	ScanFilter          json.RawMessage

	// tables backs tableNames of the inputs that embed exprParams, which
	// name one table: no slice allocated per request.
	tables [1]string
}

func (p *exprParams) oneTable(name string) []string {
	p.tables[0] = name
	return p.tables[:]
}

// writeOptions are the parameters PutItem, UpdateItem and DeleteItem share.
type writeOptions struct {
	TableName                           string
	ConditionExpression                 *string
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
	exprParams
}

func (w *writeOptions) tableNames() []string { return w.oneTable(w.TableName) }

type putItemInput struct {
	Item attr.Item
	writeOptions
}

func checkOnFailure(v string) error {
	switch v {
	case "", "NONE", "ALL_OLD":
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", v)
}

func checkReturnValues(v string, allowed ...string) error {
	if v == "" || v == "NONE" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	switch v {
	case "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW":
		return validationf("ReturnValues can only be ALL_OLD or NONE")
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]", v)
}

// conditionFailed builds the ConditionalCheckFailedException, with the
// item when ReturnValuesOnConditionCheckFailure is ALL_OLD.
func conditionFailed(onFailure string, old attr.Item) *APIError {
	err := newError(CodeConditionalCheckFailed, "The conditional request failed")
	if onFailure == "ALL_OLD" && old != nil {
		err.Extra = map[string]any{"Item": old}
	}
	return err
}

func (e *Engine) putItem(_ context.Context, in *putItemInput) (any, error) {
	if err := checkWriteOptions(&in.writeOptions, "ALL_OLD"); err != nil {
		return nil, err
	}
	if in.Item == nil {
		return nil, validationf("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
	}
	x, err := compile(in.exprParams, exprSources{condition: in.ConditionExpression, legacy: legacyPutDelete})
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	key, err := t.itemKey(in.Item)
	if err != nil {
		return nil, err
	}
	if err := checkItemDepth(in.Item); err != nil {
		return nil, err
	}
	row := newEntry(key, in.Item) // encoded outside the lock
	if row.size > maxItemSize {
		return nil, validationf("Item size has exceeded the maximum allowed size")
	}
	delay := e.faults.gsiDelay(t.name)
	now := e.now()
	var cc consumed
	var old attr.Item
	var icm map[string]any
	err = t.locked(func() error {
		// Indexes change under UpdateTable, so their keys are checked
		// under the lock.
		if err := t.checkIndexKeys(in.Item); err != nil {
			return err
		}
		var res writeResult
		if blindPut(t, x, in.ReturnValues, e.parts) {
			// Nothing needs the item replaced before the write: the tree
			// is searched once, and the replaced row describes itself.
			res = t.writeEntry(key, prior{fromRow: true}, in.Item, &row, delay, now)
		} else {
			var err error
			var size int
			old, size, err = t.getSized(key)
			if err == nil {
				err = x.check(old)
			}
			if err != nil {
				return withFailureItem(err, in.ReturnValuesOnConditionCheckFailure, old)
			}
			if err := e.checkItemCollection(t, t.collectionBytes(old), in.Item); err != nil {
				return err
			}
			if e.parts != nil {
				if err := e.chargeWrite(t, rowChange{old: old, oldSize: size, next: in.Item, nextSize: int(row.size)}); err != nil {
					return err
				}
			}
			res = t.writeEntry(key, t.priorOf(old, size), in.Item, &row, delay, now)
		}
		icm = t.itemCollectionMetrics(in.ReturnItemCollectionMetrics, in.Item)
		if reportsCapacity(in.ReturnConsumedCapacity) {
			cc.addWrite(t, res, 1)
		}
		return e.flush(t)
	})
	if err != nil {
		return nil, err
	}
	out := &writeOutput{ConsumedCapacity: cc.report(in.ReturnConsumedCapacity), ItemCollectionMetrics: icm}
	if in.ReturnValues == "ALL_OLD" && old != nil {
		out.Attributes = old
	}
	// The item was encoded and the values only read: their maps are reused,
	// and so is the old item unless it is returned.
	if out.Attributes == nil {
		releaseItem(old)
	}
	releaseItem(in.Item)
	releaseItem(attr.Item(in.ExpressionAttributeValues))
	in.Item, in.ExpressionAttributeValues = nil, nil
	return out, nil
}

// blindPut reports whether a PutItem on t needs nothing of the item it
// replaces, before or after writing: no condition, no old item returned,
// no partition limits charged by size, and no index or TTL order to
// update from the old item.
func blindPut(t *table, x *compiled, returnValues string, parts *partitionLimiter) bool {
	return x.c.Condition == nil && returnValues != "ALL_OLD" && parts == nil && len(t.indexes()) == 0 && t.ttlAttr == ""
}

// writeOutput is the response of PutItem, UpdateItem and DeleteItem; nil
// fields are left out.
type writeOutput struct {
	Attributes            attr.Item
	ConsumedCapacity      map[string]any
	ItemCollectionMetrics map[string]any
}

// getOutput is the response of GetItem; Item is nil, an attr.Item or a
// rawItem.
type getOutput struct {
	ConsumedCapacity map[string]any
	Item             any
}

// withFailureItem attaches the old item to a failed condition.
func withFailureItem(err error, onFailure string, old attr.Item) error {
	if ae, ok := err.(*APIError); ok && ae.Code == CodeConditionalCheckFailed {
		return conditionFailed(onFailure, old)
	}
	return err
}

type getItemInput struct {
	TableName              string
	Key                    attr.Item
	ConsistentRead         bool
	ProjectionExpression   *string
	AttributesToGet        []string
	ReturnConsumedCapacity string
	exprParams
}

func (in *getItemInput) tableNames() []string { return in.oneTable(in.TableName) }

func (e *Engine) getItem(_ context.Context, in *getItemInput) (any, error) {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, validationf("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	x, err := compile(in.exprParams, exprSources{projection: in.ProjectionExpression, attributesToGet: in.AttributesToGet, legacy: legacyAttributesToGet})
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	key, err := t.keyOf(in.Key)
	if err != nil {
		return nil, err
	}
	var en entry
	var found bool
	t.rlocked(func() { en, found = t.items.Get(probe(key)) })
	out := &getOutput{}
	size := 0
	if found {
		size = int(en.size)
		if x.hasProjection() {
			it, err := decodeItem(en.val())
			if err != nil {
				return nil, err
			}
			out.Item = x.project(it)
		} else {
			out.Item = rawItem(en.val())
		}
	}
	cc := consumed{table: t.name, read: readUnits(size, in.ConsistentRead)}
	if e.parts != nil {
		if err := e.chargeRead(t.readCharge(nil, in.Key, cc.read)); err != nil {
			return nil, err
		}
	}
	out.ConsumedCapacity = cc.report(in.ReturnConsumedCapacity)
	return out, nil
}

type deleteItemInput struct {
	Key attr.Item
	writeOptions
}

func (e *Engine) deleteItem(_ context.Context, in *deleteItemInput) (any, error) {
	if err := checkWriteOptions(&in.writeOptions, "ALL_OLD"); err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, validationf("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	x, err := compile(in.exprParams, exprSources{condition: in.ConditionExpression, legacy: legacyPutDelete})
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	key, err := t.keyOf(in.Key)
	if err != nil {
		return nil, err
	}
	delay := e.faults.gsiDelay(t.name)
	now := e.now()
	cc := consumed{table: t.name}
	var old attr.Item
	var icm map[string]any
	err = t.locked(func() error {
		var err error
		old, err = t.get(key)
		if err == nil {
			err = x.check(old)
		}
		if err != nil {
			return withFailureItem(err, in.ReturnValuesOnConditionCheckFailure, old)
		}
		if e.parts != nil {
			if err := e.chargeWrite(t, rowChange{key: in.Key, old: old, oldSize: attr.ItemSize(old)}); err != nil {
				return err
			}
		}
		if old == nil {
			cc.write = 1
			return nil
		}
		res := t.write(key, old, nil, delay, now)
		icm = t.itemCollectionMetrics(in.ReturnItemCollectionMetrics, old)
		if reportsCapacity(in.ReturnConsumedCapacity) {
			cc.addWrite(t, res, 1)
		}
		return e.flush(t)
	})
	if err != nil {
		return nil, err
	}
	out := &writeOutput{ConsumedCapacity: cc.report(in.ReturnConsumedCapacity), ItemCollectionMetrics: icm}
	if in.ReturnValues == "ALL_OLD" && old != nil {
		out.Attributes = old
	}
	return out, nil
}

type updateItemInput struct {
	Key              attr.Item
	UpdateExpression *string
	writeOptions
}

func (e *Engine) updateItem(_ context.Context, in *updateItemInput) (any, error) {
	if err := checkWriteOptions(&in.writeOptions, "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"); err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, validationf("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	x, err := compile(in.exprParams, exprSources{condition: in.ConditionExpression, update: in.UpdateExpression, legacy: legacyUpdate})
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	key, err := t.keyOf(in.Key)
	if err != nil {
		return nil, err
	}
	if err := x.checkUpdateKeys(t); err != nil {
		return nil, err
	}
	delay := e.faults.gsiDelay(t.name)
	now := e.now()
	cc := consumed{table: t.name}
	// Only ALL_OLD and UPDATED_OLD return the item as it was.
	keepOld := in.ReturnValues == "ALL_OLD" || in.ReturnValues == "UPDATED_OLD"
	var old, next attr.Item
	var icm map[string]any
	err = t.locked(func() error {
		u, err := e.applyUpdate(t, key, in.Key, x, keepOld)
		old, next = u.old, u.next
		if err != nil {
			return withFailureItem(err, in.ReturnValuesOnConditionCheckFailure, old)
		}
		if next == nil {
			// A REMOVE of a missing item: nothing is written (no item, no
			// stream record), but the request still consumes a write unit.
			if reportsCapacity(in.ReturnConsumedCapacity) {
				cc.addWrite(t, writeResult{table: 1}, 1)
			}
			return nil
		}
		if err := e.checkItemCollection(t, u.prior.collectionBytes(t), next); err != nil {
			return err
		}
		if e.parts != nil {
			if err := e.chargeWrite(t, rowChange{key: in.Key, old: old, oldSize: u.prior.size, next: next, nextSize: int(u.row.size)}); err != nil {
				return err
			}
		}
		res := t.writeEntry(key, u.prior, next, &u.row, delay, now)
		icm = t.itemCollectionMetrics(in.ReturnItemCollectionMetrics, next)
		if reportsCapacity(in.ReturnConsumedCapacity) {
			cc.addWrite(t, res, 1)
		}
		return e.flush(t)
	})
	if err != nil {
		return nil, err
	}
	attrs := x.returnValues(in.ReturnValues, old, next)
	if in.ReturnValues == "" || in.ReturnValues == "NONE" {
		// Written (encoded) and returned to no one: its room can be reused.
		releaseItem(next)
	}
	// The request's maps were encoded (the key) or copied from (values
	// are cloned into the item) and are not referred to any more.
	releaseItem(in.Key)
	releaseItem(attr.Item(in.ExpressionAttributeValues))
	in.Key, in.ExpressionAttributeValues = nil, nil
	out := &writeOutput{Attributes: attrs, ConsumedCapacity: cc.report(in.ReturnConsumedCapacity), ItemCollectionMetrics: icm}
	return out, nil
}

// updated is the outcome of applyUpdate.
type updated struct {
	// old is the item before the update (nil when absent), unless the
	// update was made to it in place.
	old   attr.Item
	next  attr.Item
	prior prior
	row   entry // next encoded under its key
}

// applyUpdate reads the item, checks the condition and computes the updated
// item, validated and encoded. The caller holds t.mu for writing. Unless
// keepOld, the decoded item may be updated in place when nothing else needs
// it: it must be in no index (whose old row and projection the write would
// need); its size and TTL expiry are taken before. u.old is then nil, also
// when the update fails (only a failed condition returns the old item, and
// that is checked first). u.next is nil when the item is missing and the
// update only removes: there is nothing to write.
func (e *Engine) applyUpdate(t *table, key []byte, keyItem attr.Item, x *compiled, keepOld bool) (u updated, err error) {
	old, size, err := t.getSized(key)
	if err != nil {
		return u, err
	}
	u.old = old
	if err := x.check(old); err != nil {
		return u, err
	}
	u.prior = t.priorOf(old, size)
	if old == nil && x.c.RemovesOnly() {
		// Nothing to remove from an item that does not exist: no item
		// is created, and u.next stays nil.
		return u, nil
	}
	// A missing item is updated from its key alone: the update may read
	// the key attributes, and REMOVE does nothing.
	var next attr.Item
	if !keepOld && old != nil && !t.inIndex(old) {
		u.old, u.prior.item = nil, nil
		next, err = x.updateOwned(old)
	} else if old != nil {
		next, err = x.update(old)
	} else {
		next, err = x.updateNew(keyItem)
	}
	if err != nil {
		return u, err
	}
	if old == nil {
		if next == nil {
			next = attr.Item{}
		}
		for k, v := range keyItem {
			next[k] = v
		}
	}
	if err := t.checkIndexKeys(next); err != nil {
		return u, err
	}
	if err := checkItemDepth(next); err != nil {
		return u, err
	}
	u.row = newEntry(key, next)
	if u.row.size > maxItemSize {
		return u, validationf("Item size to update has exceeded the maximum allowed size")
	}
	u.next = next
	return u, nil
}

// checkWriteOptions validates the return options every single-item write
// shares (ReturnValues against the operation's allowed set, the failure and
// capacity options), in DynamoDB's order of checks. Like every check of the
// request alone, it comes before the table is looked up.
func checkWriteOptions(w *writeOptions, allowed ...string) error {
	if err := checkReturnValues(w.ReturnValues, allowed...); err != nil {
		return err
	}
	if err := checkOnFailure(w.ReturnValuesOnConditionCheckFailure); err != nil {
		return err
	}
	return checkReturnConsumedCapacity(w.ReturnConsumedCapacity)
}
