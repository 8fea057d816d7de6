package ddblocal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"hash/fnv"
	"strconv"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
// Statements are parsed by package partiql into the expression language's
// trees and run through the engine's own operations: INSERT is a PutItem
// conditioned on the key being absent, UPDATE an UpdateItem conditioned on
// it being present (and on the rest of the WHERE clause), DELETE a
// DeleteItem, SELECT a Query when the WHERE clause pins the partition key
// and a Scan otherwise, and a transaction a TransactWriteItems or
// TransactGetItems. Conditions are evaluated by package expr alone.

// CodeDuplicateItem is DynamoDB's error for an INSERT whose key exists.
const CodeDuplicateItem = "DuplicateItemException"

const (
	msgDuplicateItem = "Duplicate primary key exists in table"
	msgIncompleteKey = "Where clause does not contain a mandatory equality on all key attributes"
	// keyPH is the placeholder of the partition key in the conditions the
	// engine adds; a statement's own placeholders are #n0, #n1, ...
	keyPH = "#k"
)

type executeStatementInput struct {
	Statement                           *string
	Parameters                          []attr.Value
	ConsistentRead                      bool
	NextToken                           *string
	Limit                               *int
	ReturnConsumedCapacity              string
	ReturnValuesOnConditionCheckFailure string
}

// pqRequest is one parsed statement with its values and options.
type pqRequest struct {
	text       string
	st         *partiql.Statement
	params     []attr.Value
	vals       expr.Values
	consistent bool
	limit      int
	nextToken  *string
	capacity   string // ReturnConsumedCapacity
	onFailure  string // ReturnValuesOnConditionCheckFailure
}

// pqResult is what a statement returns.
type pqResult struct {
	items     any       // SELECT: rawItems or []attr.Item
	item      attr.Item // UPDATE and DELETE: the RETURNING attributes, nil for none
	nextToken string
	lastKey   attr.Item
	cc        map[string]any
}

// parseStatement validates a statement's own parameters, parses it and
// binds its ? parameters.
func parseStatement(text *string, params []attr.Value, field string) (*pqRequest, error) {
	if text == nil {
		return nil, validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	if n := len(*text); n < 1 || n > partiql.MaxStatementSize {
		bound := "greater than or equal to 1"
		if n > 0 {
			bound = "less than or equal to " + strconv.Itoa(partiql.MaxStatementSize)
		}
		return nil, validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length %s", *text, field, bound)
	}
	if params != nil && len(params) == 0 {
		return nil, validationf("1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	st, err := partiql.Parse(*text)
	if err != nil {
		return nil, pqError(err)
	}
	vals, err := st.Bind(params)
	if err != nil {
		return nil, pqError(err)
	}
	return &pqRequest{text: *text, st: st, params: params, vals: vals}, nil
}

// pqError turns the parser's errors into ValidationException.
func pqError(err error) error {
	var pe *partiql.Error
	if errors.As(err, &pe) {
		return validationf("%s", pe.Message)
	}
	return asAPIError(err)
}

func runExecuteStatement(ctx context.Context, e *Engine, opName string, body []byte) (any, []string, error) {
	in := &executeStatementInput{}
	if err := decodeValidated(body, in); err != nil {
		return nil, nil, err
	}
	req, err := in.request()
	if err != nil {
		return nil, nil, err
	}
	tables := []string{req.st.Table}
	kind := faultWrite
	if req.st.Kind.IsRead() {
		kind = faultRead
	}
	if err := e.faults.before(ctx, kind, opName, tables); err != nil {
		return nil, tables, err
	}
	res, err := e.runStatement(ctx, req)
	if req.st.Kind.IsRead() {
		tables = nil // only writes lose their responses
	}
	if err != nil {
		return nil, tables, err
	}
	return res.statementOutput(req.st.Kind), tables, nil
}

// request parses the statement of a validated input.
func (in *executeStatementInput) request() (*pqRequest, error) {
	req, err := parseStatement(in.Statement, in.Parameters, "statement")
	if err != nil {
		return nil, err
	}
	req.consistent, req.nextToken = in.ConsistentRead, in.NextToken
	req.capacity, req.onFailure = in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure
	if in.Limit != nil {
		req.limit = *in.Limit
	}
	return req, nil
}

func (res *pqResult) statementOutput(kind partiql.Kind) map[string]any {
	out := map[string]any{}
	switch {
	case res.items != nil:
		out["Items"] = res.items
	case res.item != nil:
		out["Items"] = []attr.Item{res.item}
	default:
		out["Items"] = []attr.Item{}
	}
	if res.nextToken != "" {
		out["NextToken"] = res.nextToken
		out["LastEvaluatedKey"] = res.lastKey
	}
	if res.cc != nil {
		out["ConsumedCapacity"] = res.cc
	}
	return out
}

// runStatement runs one statement outside a transaction.
func (e *Engine) runStatement(ctx context.Context, req *pqRequest) (*pqResult, error) {
	switch req.st.Kind {
	case partiql.Select:
		return e.pqSelect(req)
	case partiql.Insert:
		return e.pqInsert(ctx, req)
	case partiql.Update:
		return e.pqUpdate(ctx, req)
	case partiql.Delete:
		return e.pqDelete(ctx, req)
	}
	return nil, validationf("EXISTS can only be used in ExecuteTransaction write requests.")
}

// keyCondition builds attribute_exists(#k) or attribute_not_exists(#k).
func keyCondition(exists bool) expr.Cond {
	name := "attribute_not_exists"
	if exists {
		name = "attribute_exists"
	}
	return &expr.Call{Name: name, Args: []expr.Operand{expr.Path{{Name: keyPH}}}}
}

// withKeyName adds #k, the table's partition key, to a statement's names.
func withKeyName(st *partiql.Statement, t *table) expr.Names {
	names := make(expr.Names, len(st.Names)+1)
	for k, v := range st.Names {
		names[k] = v
	}
	names[keyPH] = t.keys.hash.name
	return names
}

// rendered is the text of an expression tree, nil for none.
func rendered(x interface{ String() string }, present bool) *string {
	if !present {
		return nil
	}
	s := x.String()
	return &s
}

// pqKey splits the WHERE clause of a single-item statement into the item's
// key and the other conditions.
func pqKey(t *table, st *partiql.Statement, vals expr.Values) (attr.Item, []expr.Cond, error) {
	key := attr.Item{}
	var rest []expr.Cond
	isKey := func(n string) bool { return n == t.keys.hash.name || (t.keys.rng.name != "" && n == t.keys.rng.name) }
	for _, c := range partiql.Conjuncts(st.Where) {
		name, ref, ok := st.Equality(c)
		if _, dup := key[name]; ok && isKey(name) && !dup {
			key[name] = vals[string(ref)]
			continue
		}
		rest = append(rest, c)
	}
	for _, n := range t.keys.names() {
		if _, ok := key[n]; !ok {
			return nil, nil, validationf(msgIncompleteKey)
		}
	}
	return key, rest, nil
}

func (e *Engine) pqInsert(ctx context.Context, req *pqRequest) (*pqResult, error) {
	t, err := e.table(req.st.Table)
	if err != nil {
		return nil, err
	}
	item, err := req.st.BoundItem(req.params)
	if err != nil {
		return nil, pqError(err)
	}
	in := &putItemInput{Item: item}
	in.TableName = req.st.Table
	in.ConditionExpression = rendered(keyCondition(false), true)
	in.ExpressionAttributeNames = map[string]string{keyPH: t.keys.hash.name}
	in.ReturnConsumedCapacity = req.capacity
	out, err := e.putItem(ctx, in)
	if err != nil {
		return nil, duplicateItem(err)
	}
	return &pqResult{cc: out.(*writeOutput).ConsumedCapacity}, nil
}

// duplicateItem reports a failed INSERT condition as DynamoDB does.
func duplicateItem(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == CodeConditionalCheckFailed {
		return newError(CodeDuplicateItem, msgDuplicateItem)
	}
	return err
}

// pqSingle resolves the table and the key of an UPDATE or DELETE, and the
// WHERE conditions left over once the key is taken out.
func (e *Engine) pqSingle(req *pqRequest) (*table, attr.Item, []expr.Cond, error) {
	t, err := e.table(req.st.Table)
	if err != nil {
		return nil, nil, nil, err
	}
	key, rest, err := pqKey(t, req.st, req.vals)
	if err != nil {
		return nil, nil, nil, err
	}
	return t, key, rest, nil
}

// writeOptions are the options an UPDATE or DELETE passes on to the item
// operation it runs as.
func (req *pqRequest) writeOptions() writeOptions {
	return writeOptions{TableName: req.st.Table, ReturnValues: req.st.Returning,
		ReturnConsumedCapacity: req.capacity, ReturnValuesOnConditionCheckFailure: req.onFailure}
}

// pqWritten is the result of an item write an UPDATE or DELETE ran as.
func pqWritten(out any, err error) (*pqResult, error) {
	if err != nil {
		return nil, err
	}
	wo := out.(*writeOutput)
	return &pqResult{item: wo.Attributes, cc: wo.ConsumedCapacity}, nil
}

func (e *Engine) pqUpdate(ctx context.Context, req *pqRequest) (*pqResult, error) {
	st := req.st
	t, key, rest, err := e.pqSingle(req)
	if err != nil {
		return nil, err
	}
	cond := keyCondition(true)
	if len(rest) > 0 {
		cond = &expr.And{Left: cond, Right: partiql.Join(rest)}
	}
	in := &updateItemInput{Key: key, UpdateExpression: rendered(st.Update, true), writeOptions: req.writeOptions()}
	in.ConditionExpression = rendered(cond, true)
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = partiql.Placeholders(withKeyName(st, t), req.vals, cond, st.Update)
	return pqWritten(e.updateItem(ctx, in))
}

func (e *Engine) pqDelete(ctx context.Context, req *pqRequest) (*pqResult, error) {
	t, key, rest, err := e.pqSingle(req)
	if err != nil {
		return nil, err
	}
	in := &deleteItemInput{Key: key, writeOptions: req.writeOptions()}
	if len(rest) > 0 {
		// A missing item is deleted without a word; an item that is there
		// must meet the rest of the WHERE clause.
		cond := &expr.Or{Left: keyCondition(false), Right: partiql.Join(rest)}
		in.ConditionExpression = rendered(cond, true)
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = partiql.Placeholders(withKeyName(req.st, t), req.vals, cond)
	}
	return pqWritten(e.deleteItem(ctx, in))
}

// pqToken is the content of a SELECT's NextToken: which partition of the
// statement to go on with, and after which key.
type pqToken struct {
	Hash string    `json:"h"`
	Part int       `json:"p"`
	Key  attr.Item `json:"k,omitempty"`
}

// requestHash ties a NextToken to the statement and parameters it pages.
func (req *pqRequest) requestHash() string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(req.text))
	raw, _ := json.Marshal(req.params)
	_, _ = h.Write(raw)
	return strconv.FormatUint(h.Sum64(), 36)
}

func (req *pqRequest) token() (pqToken, error) {
	if req.nextToken == nil {
		return pqToken{}, nil
	}
	var tok pqToken
	raw, err := base64.RawURLEncoding.DecodeString(*req.nextToken)
	if err != nil || json.Unmarshal(raw, &tok) != nil || tok.Part < 0 {
		return pqToken{}, validationf("Invalid NextToken")
	}
	if tok.Hash != req.requestHash() {
		return pqToken{}, validationf("NextToken does not match request")
	}
	return tok, nil
}

func (req *pqRequest) encodeToken(part int, key attr.Item) string {
	raw, _ := json.Marshal(pqToken{Hash: req.requestHash(), Part: part, Key: key})
	return base64.RawURLEncoding.EncodeToString(raw)
}
