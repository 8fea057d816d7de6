package ddblocal

import (
	"bytes"
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// Transaction limits, as DynamoDB documents them.
const (
	maxTransactItems = 100
	maxTransactBytes = 4 * 1024 * 1024
)

type txAction struct {
	TableName                           string
	Key                                 attr.Item         `json:",omitempty"`
	Item                                attr.Item         `json:",omitempty"`
	ConditionExpression                 *string           `json:",omitempty"`
	UpdateExpression                    *string           `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure string            `json:",omitempty"`
	ExpressionAttributeNames            map[string]string `json:",omitempty"`
	ExpressionAttributeValues           expr.Values       `json:",omitempty"`

	// condition and update hold what ConditionExpression and
	// UpdateExpression point to when the fast decoder filled them, which
	// saves an allocation per pointer.
	condition, update string
}

type transactWriteItem struct {
	ConditionCheck *txAction `json:",omitempty"`
	Put            *txAction `json:",omitempty"`
	Delete         *txAction `json:",omitempty"`
	Update         *txAction `json:",omitempty"`
}

type transactWriteItemsInput struct {
	TransactItems               []transactWriteItem
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
	ClientRequestToken          *string

	token string // what ClientRequestToken points to, when decoded fast
}

func (in *transactWriteItemsInput) tableNames() []string {
	names := make([]string, 0, len(in.TransactItems))
	for _, ti := range in.TransactItems {
		for _, a := range []*txAction{ti.ConditionCheck, ti.Put, ti.Delete, ti.Update} {
			if a != nil {
				names = append(names, a.TableName)
			}
		}
	}
	return names
}

// txOp is one validated action of a transaction.
type txOp struct {
	kind    string // ConditionCheck, Put, Delete, Update
	act     *txAction
	t       *table
	key     []byte
	x       *compiled
	old     attr.Item // nil when absent, or when an update was made to it in place
	prior   prior     // what the write replaces
	next    attr.Item
	keySize int    // attr.ItemSize of the action's Key
	row     *entry // next's row when evaluate encoded it (then &rowBuf)
	rowBuf  entry
	write   bool
	// invalid is the ValidationError reason of an action that cannot run.
	invalid string
}

// cancellationReason is one entry of CancellationReasons.
type cancellationReason struct {
	Code    string
	Message string    `json:",omitempty"`
	Item    attr.Item `json:",omitempty"`
}

func transactionCanceled(reasons []cancellationReason) *APIError {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	err := newError(CodeTransactionCanceled, "Transaction cancelled, please refer cancellation reasons for specific reasons [%s]", strings.Join(codes, ", "))
	err.Extra = map[string]any{"CancellationReasons": reasons}
	return err
}

func (e *Engine) transactWriteItems(_ context.Context, in *transactWriteItemsInput) (any, error) {
	if err := checkTransactWrite(in); err != nil {
		return nil, err
	}
	ops, err := e.prepareTxOps(in.TransactItems)
	if err != nil {
		return nil, err
	}
	var digest uint64
	if in.ClientRequestToken != nil {
		// The SDK writes maps in random order, so the digest is taken over
		// the decoded items, not over the body.
		digest = txDigest(ops)
	}

	tables := lockTables(ops, true)
	defer unlockTables(tables, true)
	for _, op := range ops {
		if op.kind == "Put" {
			if err := op.t.checkIndexKeys(op.act.Item); err != nil {
				return nil, err
			}
		}
	}
	now := e.now()
	if in.ClientRequestToken != nil {
		out, found, mismatch := e.tokens.lookup(*in.ClientRequestToken, digest, now, e.opts.IdempotencyWindow)
		if mismatch {
			return nil, newError(CodeIdempotentParameterMismatch, "Request parameters do not match the previous request with the same client token")
		}
		if found {
			return replayed(ops, out, in.ReturnConsumedCapacity), nil
		}
	}
	if e.faults.active.Load() {
		if i := e.faults.transactionConflict("TransactWriteItems", in.tableNames(), len(ops)); i >= 0 {
			return nil, transactionCanceled(reasonsAt(len(ops), i, cancellationReason{Code: "TransactionConflict", Message: "Transaction is ongoing for the item"}))
		}
	}
	if err := evaluateTx(e, ops); err != nil {
		return nil, err
	}
	if e.parts != nil {
		if err := e.chargeTxWrite(ops); err != nil {
			return nil, err
		}
	}
	var tok *tokenRecord
	if in.ClientRequestToken != nil {
		tok = &tokenRecord{token: *in.ClientRequestToken, digest: digest, at: now}
	}
	out, err := e.commitTx(ops, tables, in, tok, now)
	if err != nil {
		return nil, err
	}
	if tok != nil {
		e.tokens.store(tok.token, digest, now, e.opts.IdempotencyWindow, out)
	}
	return out, nil
}

// checkTransactWrite validates a TransactWriteItems request's own
// parameters, before any of its items.
func checkTransactWrite(in *transactWriteItemsInput) error {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return err
	}
	if in.TransactItems == nil {
		return validationf("1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
	}
	n := len(in.TransactItems)
	if n == 0 || n > maxTransactItems {
		bound := "less than or equal to 100"
		if n == 0 {
			bound = "greater than or equal to 1"
		}
		return validationf("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length %s", bound)
	}
	if in.ClientRequestToken != nil && (len(*in.ClientRequestToken) < 1 || len(*in.ClientRequestToken) > 36) {
		return validationf("1 validation error detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36", *in.ClientRequestToken)
	}
	return nil
}

// prepareTxOps validates every action of a transaction without reading
// data: one action per item, 4 MB in all, each action runnable.
func (e *Engine) prepareTxOps(items []transactWriteItem) ([]*txOp, error) {
	ops := make([]*txOp, 0, len(items))
	store := make([]txOp, len(items)) // one allocation for every action
	seen := newItemSet(len(items))
	size := 0
	var prev *txOp
	// Every action is validated before any table is looked up.
	for i, ti := range items {
		op := &store[i]
		if err := checkTxAction(op, ti, prev); err != nil {
			return nil, err
		}
		prev = op
	}
	for i := range items {
		op := &store[i]
		if err := e.bindTxOp(op); err != nil {
			return nil, err
		}
		if op.invalid == "" && !seen.add(op.t, op.key) {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		switch {
		case op.act.Item != nil:
			size += attr.ItemSize(op.act.Item)
		case op.invalid == "":
			size += op.keySize
		default:
			size += attr.ItemSize(op.act.Key)
		}
		ops = append(ops, op)
	}
	if size > maxTransactBytes {
		return nil, validationf("Transaction request cannot be larger than 4 MB")
	}
	return ops, invalidActions(ops)
}

// evaluateTx evaluates every action; any failure cancels the transaction,
// with a reason for each action in order. The caller holds the locks.
func evaluateTx(e *Engine, ops []*txOp) error {
	var reasons []cancellationReason // made at the first failure
	for i, op := range ops {
		err := op.evaluate(e)
		if err == nil {
			continue
		}
		r, ok := cancellationFor(op, err)
		if !ok {
			return err
		}
		if reasons == nil {
			reasons = reasonsAt(len(ops), -1, cancellationReason{})
		}
		reasons[i] = r
	}
	if reasons != nil {
		return transactionCanceled(reasons)
	}
	return nil
}

// cancellationFor is the cancellation reason of an action that failed with
// err; false when err fails the whole request instead.
func cancellationFor(op *txOp, err error) (cancellationReason, bool) {
	ae, _ := asAPIError(err).(*APIError)
	switch {
	case ae != nil && ae.Code == CodeConditionalCheckFailed:
		r := cancellationReason{Code: "ConditionalCheckFailed", Message: "The conditional request failed"}
		if op.act.ReturnValuesOnConditionCheckFailure == "ALL_OLD" && op.old != nil {
			r.Item = op.old
		}
		return r, true
	case ae != nil && ae.Code == CodeValidation:
		return cancellationReason{Code: "ValidationError", Message: ae.Message}, true
	case ae != nil && ae.Code == CodeItemCollectionSizeLimitExceeded:
		return cancellationReason{Code: "ItemCollectionSizeLimitExceeded", Message: ae.Message}, true
	}
	return cancellationReason{}, false
}

// reasonsAt is n reasons None, with r at i (none when i < 0).
func reasonsAt(n, i int, r cancellationReason) []cancellationReason {
	reasons := make([]cancellationReason, n)
	for j := range reasons {
		reasons[j] = cancellationReason{Code: "None"}
	}
	if i >= 0 {
		reasons[i] = r
	}
	return reasons
}

// commitTx writes the evaluated actions and builds the response; the
// store gets every table's writes and tok (when not nil, its out is set
// to the response) in one commit. The caller holds the locks.
func (e *Engine) commitTx(ops []*txOp, tables []*table, in *transactWriteItemsInput, tok *tokenRecord, now time.Time) (map[string]any, error) {
	usage := newTxUsage(in.ReturnConsumedCapacity, tables)
	collections := newCollectionReport(in.ReturnItemCollectionMetrics)
	for _, op := range ops {
		if !op.write {
			usage.of(op.t).write += 2 * writeUnits(op.prior.size)
			continue
		}
		delay := e.faults.gsiDelay(op.t.name)
		usage.of(op.t).addWrite(op.t, op.t.writeEntry(op.key, op.prior, op.next, op.row, delay, now), 2)
		if op.next != nil {
			collections.add(op.t, op.next)
		} else {
			collections.add(op.t, op.old)
		}
	}
	out := map[string]any{}
	if r := usage.report(); r != nil {
		out["ConsumedCapacity"] = r
	}
	collections.addTo(out)
	if tok != nil {
		tok.out = out
	}
	if err := e.commit(tables, tok, true); err != nil {
		return nil, err
	}
	releaseTxItems(ops)
	return out, nil
}

// txUsage is the capacity a transaction consumes, per table: tables
// holds them in name order, as the report lists them.
type txUsage struct {
	mode   string
	tables []*table
	each   []consumed
}

func newTxUsage(mode string, tables []*table) *txUsage {
	return &txUsage{mode: mode, tables: tables, each: make([]consumed, len(tables))}
}

func (u *txUsage) of(t *table) *consumed {
	for i, x := range u.tables {
		if x == t {
			c := &u.each[i]
			c.table = t.name
			return c
		}
	}
	panic("ddblocal: transaction table not locked: " + t.name)
}

// report is the ConsumedCapacity list, or nil when none was asked for.
func (u *txUsage) report() []map[string]any {
	if !reportsCapacity(u.mode) {
		return nil
	}
	out := make([]map[string]any, 0, len(u.each))
	for i := range u.each {
		out = append(out, u.each[i].report(u.mode))
	}
	return out
}

// itemSet tells the items of one transaction apart, by table and key:
// by comparing when there are few, by a map when there are many.
type itemSet struct {
	list []itemRef
	m    map[string]bool
}

type itemRef struct {
	t   *table
	key []byte
}

const itemSetLinear = 16

func newItemSet(n int) *itemSet {
	if n > itemSetLinear {
		return &itemSet{m: make(map[string]bool, n)}
	}
	return &itemSet{list: make([]itemRef, 0, n)}
}

// add reports whether the item is new to the set, and adds it.
func (s *itemSet) add(t *table, key []byte) bool {
	if s.m != nil {
		id := t.name + "\x00" + string(key)
		if s.m[id] {
			return false
		}
		s.m[id] = true
		return true
	}
	for _, r := range s.list {
		if r.t == t && bytes.Equal(r.key, key) {
			return false
		}
	}
	s.list = append(s.list, itemRef{t, key})
	return true
}

// releaseTxItems gives the maps of a committed transaction back for reuse:
// the items written are encoded, the items read are returned to no one,
// and the request's keys and values were copied from.
func releaseTxItems(ops []*txOp) {
	for _, op := range ops {
		if op.old != nil && !sameMap(op.old, op.next) {
			releaseItem(op.old)
		}
		releaseItem(op.next)
		releaseItem(op.act.Key)
		releaseItem(attr.Item(op.act.ExpressionAttributeValues))
		op.old, op.next, op.act.Key, op.act.Item, op.act.ExpressionAttributeValues = nil, nil, nil, nil, nil
	}
}

// sameMap reports whether a and b are one map.
func sameMap(a, b attr.Item) bool {
	if a == nil || b == nil {
		return false
	}
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// replayed is the response to a transaction replayed with its
// ClientRequestToken. Nothing is written again; as the API reference
// (TransactWriteItems, ClientRequestToken) says, the replay reports the read
// capacity consumed in reading the items, not the write capacity of the
// first call: a transactional read of each item's current version. The
// caller holds the tables' locks.
func replayed(ops []*txOp, first map[string]any, mode string) map[string]any {
	if !reportsCapacity(mode) {
		return map[string]any{}
	}
	usage := map[string]*consumed{}
	for _, op := range ops {
		cc := usage[op.t.name]
		if cc == nil {
			cc = &consumed{table: op.t.name}
			usage[op.t.name] = cc
		}
		size := 0
		if en, ok := op.t.items.Get(probe(op.key)); ok {
			size = int(en.size)
		}
		cc.read += 2 * readUnits(size, true)
	}
	out := map[string]any{}
	for k, v := range first {
		out[k] = v
	}
	out["ConsumedCapacity"] = reportAll(usage, mode)
	return out
}

// reportAll lists the consumed capacity of every table, by name.
func reportAll(usage map[string]*consumed, mode string) []map[string]any {
	if mode != "TOTAL" && mode != "INDEXES" {
		return nil
	}
	out := []map[string]any{}
	for _, name := range sortedKeys(usage) {
		out = append(out, usage[name].report(mode))
	}
	return out
}

// checkTxAction validates one TransactItems entry without its table: one
// kind of action, its members and expressions. prev is the entry checked
// before it (nil for the first), whose compiled expressions it shares when
// it has the same ones.
func checkTxAction(op *txOp, ti transactWriteItem, prev *txOp) error {
	count := 0
	for _, k := range [...]struct {
		kind string
		a    *txAction
	}{{"ConditionCheck", ti.ConditionCheck}, {"Put", ti.Put}, {"Delete", ti.Delete}, {"Update", ti.Update}} {
		if k.a != nil {
			op.kind, op.act = k.kind, k.a
			count++
		}
	}
	if count != 1 {
		return validationf("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	a := op.act
	if err := checkOnFailure(a.ReturnValuesOnConditionCheckFailure); err != nil {
		return err
	}
	params := exprParams{ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: a.ExpressionAttributeValues}
	src := exprSources{condition: a.ConditionExpression}
	switch op.kind {
	case "ConditionCheck":
		if a.ConditionExpression == nil {
			return validationf("1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null")
		}
	case "Update":
		if a.UpdateExpression == nil {
			return validationf("1 validation error detected: Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: Member must not be null")
		}
		src.update = a.UpdateExpression
	}
	var err error
	if prev != nil && prev.x != nil && sameExpressions(prev.act, a) {
		op.x = prev.x // compiled expressions are never modified
	} else if op.x, err = compile(params, src); err != nil {
		return err
	}
	switch {
	case op.kind == "Put" && a.Item == nil:
		return validationf("1 validation error detected: Value null at 'transactItems.1.member.put.item' failed to satisfy constraint: Member must not be null")
	case op.kind != "Put" && a.Key == nil:
		return validationf("1 validation error detected: Value null at 'transactItems.1.member.key' failed to satisfy constraint: Member must not be null")
	}
	return nil
}

// bindTxOp finds the table of a validated action and its item's key.
func (e *Engine) bindTxOp(op *txOp) error {
	a := op.act
	t, err := e.table(a.TableName)
	if err != nil {
		return err
	}
	op.t = t
	if op.kind == "Put" {
		if op.key, err = t.itemKey(a.Item); err != nil {
			// A mistyped or missing key cancels the transaction with a
			// ValidationError reason instead of failing the request.
			if ae, ok := err.(*APIError); ok && (strings.Contains(ae.Message, "Type mismatch for key") || strings.Contains(ae.Message, "Missing the key")) {
				op.invalid = ae.Message
				return nil
			}
			return err
		}
		if err := checkItemSize(a.Item, false); err != nil {
			return err
		}
		return nil
	}
	if op.key, op.keySize, err = t.keyAndSize(a.Key); err != nil {
		// As for a Put: the action cancels with a ValidationError reason.
		if msg, ok := keyMismatch(err); ok {
			op.invalid = msg
			return nil
		}
		return err
	}
	if op.kind == "Update" {
		if err := op.x.checkUpdateKeys(t); err != nil {
			return err
		}
	}
	return nil
}

// evaluate reads the item, checks the condition and computes the new item.
// The caller holds the table's write lock.
func (op *txOp) evaluate(e *Engine) error {
	switch op.kind {
	case "Update":
		// The item read is a decoded copy: updated in place when in no
		// index, it costs nothing should the transaction be cancelled.
		u, err := e.applyUpdate(op.t, op.key, op.act.Key, op.x, false)
		// A REMOVE of a missing item writes nothing.
		op.old, op.prior, op.next, op.write = u.old, u.prior, u.next, err != nil || u.next != nil
		if err == nil && op.write {
			op.rowBuf = u.row
			op.row = &op.rowBuf
			err = e.checkItemCollection(op.t, op.t.collectionBytes(op.old), op.next)
		}
		return err
	default:
		old, size, err := op.t.getSized(op.key)
		if err != nil {
			return err
		}
		op.old, op.prior = old, op.t.priorOf(old, size)
		if err := op.x.check(old); err != nil {
			return err
		}
		switch op.kind {
		case "Put":
			op.next, op.write = op.act.Item, true
			return e.checkItemCollection(op.t, op.t.collectionBytes(old), op.next)
		case "Delete":
			op.write = old != nil
		}
		return nil
	}
}

// lockTables locks the distinct tables of ops in name order, so that
// concurrent transactions cannot deadlock.
func lockTables(ops []*txOp, write bool) []*table {
	tables := distinctTables(ops)
	for i := range tables {
		if write {
			tables[i].mu.Lock()
		} else {
			tables[i].mu.RLock()
		}
	}
	return tables
}

// distinctTables lists the tables of ops once each, in name order.
func distinctTables(ops []*txOp) []*table {
	tables := make([]*table, 0, 1)
	for _, op := range ops {
		if !slices.Contains(tables, op.t) {
			tables = append(tables, op.t)
		}
	}
	slices.SortFunc(tables, func(a, b *table) int { return strings.Compare(a.name, b.name) })
	return tables
}

func unlockTables(tables []*table, write bool) {
	for i := len(tables) - 1; i >= 0; i-- {
		if write {
			tables[i].mu.Unlock()
		} else {
			tables[i].mu.RUnlock()
		}
	}
}

type transactGetItemsInput struct {
	TransactItems []struct {
		Get *struct {
			TableName                string
			Key                      attr.Item
			ProjectionExpression     *string
			ExpressionAttributeNames map[string]string
		}
	}
	ReturnConsumedCapacity string
}

func (in *transactGetItemsInput) tableNames() []string {
	var names []string
	for _, ti := range in.TransactItems {
		if ti.Get != nil {
			names = append(names, ti.Get.TableName)
		}
	}
	return names
}

func (e *Engine) transactGetItems(_ context.Context, in *transactGetItemsInput) (any, error) {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	n := len(in.TransactItems)
	if n == 0 || n > maxTransactItems {
		bound := "less than or equal to 100"
		if n == 0 {
			bound = "greater than or equal to 1"
		}
		return nil, validationf("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length %s", bound)
	}
	ops := make([]*txOp, n)
	xs := make([]*compiled, n)
	// Every Get is validated before any table is looked up.
	for i, ti := range in.TransactItems {
		if ti.Get == nil {
			return nil, validationf("1 validation error detected: Value null at 'transactItems.%d.member.get' failed to satisfy constraint: Member must not be null", i+1)
		}
		var err error
		xs[i], err = compile(exprParams{ExpressionAttributeNames: ti.Get.ExpressionAttributeNames}, exprSources{projection: ti.Get.ProjectionExpression})
		if err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		g, x := ti.Get, xs[i]
		t, err := e.table(g.TableName)
		if err != nil {
			return nil, err
		}
		if e.global != nil {
			if err := refuseStrongTransaction(t); err != nil {
				return nil, err
			}
		}
		key, err := t.keyOf(g.Key)
		if err != nil {
			// A key that does not match the schema cancels the
			// transaction with a ValidationError reason.
			if msg, ok := keyMismatch(err); ok {
				ops[i] = &txOp{kind: "Get", t: t, invalid: msg}
				continue
			}
			return nil, err
		}
		id := t.name + "\x00" + string(key)
		if seen[id] {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		ops[i] = &txOp{kind: "Get", t: t, key: key, x: x}
	}
	if err := invalidActions(ops); err != nil {
		return nil, err
	}
	if i := e.faults.transactionConflict("TransactGetItems", in.tableNames(), n); i >= 0 {
		reasons := make([]cancellationReason, n)
		for j := range reasons {
			reasons[j] = cancellationReason{Code: "None"}
		}
		reasons[i] = cancellationReason{Code: "TransactionConflict", Message: "Transaction is ongoing for the item"}
		return nil, transactionCanceled(reasons)
	}
	tables := lockTables(ops, false)
	defer unlockTables(tables, false)
	responses := make([]map[string]any, n)
	usage := map[string]*consumed{}
	var reads []charge // one per item, when partitions are limited
	var err error
	for i, op := range ops {
		var it attr.Item
		if it, err = op.t.get(op.key); err != nil {
			break
		}
		cc := usage[op.t.name]
		if cc == nil {
			cc = &consumed{table: op.t.name}
			usage[op.t.name] = cc
		}
		responses[i] = map[string]any{}
		size := 0
		if it != nil {
			size = attr.ItemSize(it)
			responses[i]["Item"] = op.x.project(it)
		}
		cc.read += 2 * readUnits(size, true)
		if e.parts != nil {
			reads = append(reads, op.t.readCharge(nil, in.TransactItems[i].Get.Key, 2*readUnits(size, true)))
		}
	}
	if err != nil {
		return nil, err
	}
	if e.parts != nil {
		if err := e.chargeTxRead(reads); err != nil {
			return nil, err
		}
	}
	out := map[string]any{"Responses": responses}
	if r := reportAll(usage, in.ReturnConsumedCapacity); r != nil {
		out["ConsumedCapacity"] = r
	}
	return out, nil
}

// invalidActions cancels a transaction one of whose actions cannot run,
// with a ValidationError reason for each such action and None for the
// others; nil when every action is valid.
func invalidActions(ops []*txOp) error {
	invalid := false
	for _, op := range ops {
		invalid = invalid || op.invalid != ""
	}
	if !invalid {
		return nil
	}
	reasons := make([]cancellationReason, len(ops))
	for i, op := range ops {
		reasons[i] = cancellationReason{Code: "None"}
		if op.invalid != "" {
			reasons[i] = cancellationReason{Code: "ValidationError", Message: op.invalid}
		}
	}
	return transactionCanceled(reasons)
}

// keyMismatch reports a key that does not match the table's key schema
// (a missing, extra or mistyped key attribute), with its message.
func keyMismatch(err error) (string, bool) {
	ae, ok := err.(*APIError)
	if !ok || ae.Code != CodeValidation {
		return "", false
	}
	for _, m := range []string{"does not match the schema", "Missing the key", "Type mismatch for key"} {
		if strings.Contains(ae.Message, m) {
			return ae.Message, true
		}
	}
	return "", false
}

// sameExpressions reports whether two transaction actions compile to the
// same expressions: the same expression strings, names and values. Values
// are compared exactly, as the request spelled them, and only scalar ones:
// a transaction often applies one update to several items, and comparing
// costs much less than compiling again.
func sameExpressions(a, b *txAction) bool {
	if !sameString(a.ConditionExpression, b.ConditionExpression) || !sameString(a.UpdateExpression, b.UpdateExpression) ||
		!maps.Equal(a.ExpressionAttributeNames, b.ExpressionAttributeNames) ||
		(a.ExpressionAttributeNames == nil) != (b.ExpressionAttributeNames == nil) ||
		(a.ExpressionAttributeValues == nil) != (b.ExpressionAttributeValues == nil) ||
		len(a.ExpressionAttributeValues) != len(b.ExpressionAttributeValues) {
		return false
	}
	for k, av := range a.ExpressionAttributeValues {
		bv, ok := b.ExpressionAttributeValues[k]
		if !ok || !sameScalar(av, bv) {
			return false
		}
	}
	return true
}

func sameString(a, b *string) bool { return a == b || a != nil && b != nil && *a == *b }

// sameScalar reports whether a and b are one scalar value, spelled alike.
func sameScalar(a, b attr.Value) bool {
	return a.L == nil && a.M == nil && a.Set == nil && b.L == nil && b.M == nil && b.Set == nil &&
		a.T == b.T && a.S == b.S && a.Bool == b.Bool
}
