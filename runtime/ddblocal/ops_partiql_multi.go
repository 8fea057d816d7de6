package ddblocal

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// PartiQL limits, as DynamoDB documents them.
const (
	maxBatchStatements    = 25
	maxTransactStatements = 100
)

// validate checks ExecuteStatement's model constraints.
func (in *executeStatementInput) validate(c *checker) {
	statementConstraints(c, "statement", in.Statement, in.Parameters)
	if in.NextToken != nil && (len(*in.NextToken) < 1 || len(*in.NextToken) > 32768) {
		bound := "greater than or equal to 1"
		if len(*in.NextToken) > 0 {
			bound = "less than or equal to 32768"
		}
		c.add(showValue, *in.NextToken, "nextToken", "Member must have length "+bound)
	}
	c.minValue("limit", in.Limit, 1, showValue)
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
	c.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, enumOnConditionFailure...)
}

func statementConstraints(c *checker, path string, text *string, params []attr.Value) {
	switch {
	case text == nil:
		c.notNull(path, false)
	case len(*text) < 1:
		c.add(showValue, *text, path, "Member must have length greater than or equal to 1")
	case len(*text) > partiql.MaxStatementSize:
		c.add(showValue, *text, path, "Member must have length less than or equal to "+strconv.Itoa(partiql.MaxStatementSize))
	}
	if params != nil && len(params) == 0 {
		c.add(showValue, "[]", strings.TrimSuffix(path, "statement")+"parameters", "Member must have length greater than or equal to 1")
	}
}

// listConstraint checks the length of a list of statements.
func listConstraint(c *checker, member, path string, n, max int) {
	switch {
	case n == 0 && !c.present(member):
		c.notNull(path, false)
	case n == 0:
		c.add(showValue, "[]", path, "Member must have length greater than or equal to 1")
	case n > max:
		c.add(showValue, javaString(c.raw(member)), path, "Member must have length less than or equal to "+strconv.Itoa(max))
	}
}

type batchStatementRequest struct {
	Statement                           *string
	Parameters                          []attr.Value
	ConsistentRead                      bool
	ReturnValuesOnConditionCheckFailure string
}

type batchExecuteStatementInput struct {
	Statements             []batchStatementRequest
	ReturnConsumedCapacity string
}

func (in *batchExecuteStatementInput) validate(c *checker) {
	listConstraint(c, "Statements", "statements", len(in.Statements), maxBatchStatements)
	for i, s := range in.Statements {
		path := "statements." + strconv.Itoa(i+1) + ".member."
		statementConstraints(c, path+"statement", s.Statement, s.Parameters)
		c.enum(path+"returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, enumOnConditionFailure...)
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
}

type parameterizedStatement struct {
	Statement  *string
	Parameters []attr.Value
}

type executeTransactionInput struct {
	TransactStatements     []parameterizedStatement
	ClientRequestToken     *string
	ReturnConsumedCapacity string
}

func (in *executeTransactionInput) validate(c *checker) {
	listConstraint(c, "TransactStatements", "transactStatements", len(in.TransactStatements), maxTransactStatements)
	for i, s := range in.TransactStatements {
		statementConstraints(c, "transactStatements."+strconv.Itoa(i+1)+".member.statement", s.Statement, s.Parameters)
	}
	if t := in.ClientRequestToken; t != nil {
		if len(*t) < 1 {
			c.add(showValue, *t, "clientRequestToken", "Member must have length greater than or equal to 1")
		} else if len(*t) > 36 {
			c.add(showValue, *t, "clientRequestToken", "Member must have length less than or equal to 36")
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity...)
}

// decodeValidated decodes a request body and checks its model constraints.
func decodeValidated(body []byte, in any) error {
	if err := decodeRequest(body, in); err != nil {
		return err
	}
	return validateRequest("", body, in)
}

// batchCode is a BatchStatementError code: DynamoDB's error code without
// its "Exception" suffix.
func batchCode(code string) string {
	switch code {
	case CodeValidation:
		return "ValidationError"
	case CodeThrottling:
		return "ThrottlingError"
	}
	return strings.TrimSuffix(code, "Exception")
}

func batchError(err error) map[string]any {
	ae, ok := asAPIError(err).(*APIError)
	if !ok {
		ae = newError(CodeInternalServerError, "%v", err)
	}
	out := map[string]any{"Code": batchCode(ae.Code), "Message": ae.Message}
	if it, ok := ae.Extra["Item"]; ok {
		out["Item"] = it
	}
	return out
}

// mixedStatements is DynamoDB's rule for batches and transactions.
func mixedStatements(what string) error {
	return validationf("The entire %s must consist of either read statements or write statements, you cannot mix both in one %s.", what, what)
}

func runBatchExecuteStatement(ctx context.Context, e *Engine, opName string, body []byte) (any, []string, error) {
	in := &batchExecuteStatementInput{}
	if err := decodeValidated(body, in); err != nil {
		return nil, nil, err
	}
	reqs := make([]*pqRequest, len(in.Statements))
	errs := make([]error, len(in.Statements))
	var tables []string
	reads, writes := 0, 0
	for i, s := range in.Statements {
		if reqs[i], errs[i] = parseStatement(s.Statement, s.Parameters, "statement"); errs[i] != nil {
			continue
		}
		reqs[i].consistent, reqs[i].onFailure = s.ConsistentRead, s.ReturnValuesOnConditionCheckFailure
		tables = append(tables, reqs[i].st.Table)
		if reqs[i].st.Kind.IsRead() {
			reads++
		} else {
			writes++
		}
	}
	if reads > 0 && writes > 0 {
		return nil, nil, mixedStatements("batch")
	}
	if err := e.faults.before(ctx, faultBatch, opName, tables); err != nil {
		return nil, tables, err
	}
	usage := batchUsage{}
	responses := make([]map[string]any, len(reqs))
	for i, req := range reqs {
		if errs[i] != nil {
			responses[i] = map[string]any{"Error": batchError(errs[i])}
			continue
		}
		req.capacity = in.ReturnConsumedCapacity
		responses[i] = e.batchStatement(ctx, req, usage)
	}
	out := map[string]any{"Responses": responses}
	if reportsCapacity(in.ReturnConsumedCapacity) {
		out["ConsumedCapacity"] = usage.list()
	}
	if writes == 0 {
		tables = nil // only writes lose their responses
	}
	return out, tables, nil
}

// batchStatement runs one statement of a batch and counts its capacity.
func (e *Engine) batchStatement(ctx context.Context, req *pqRequest, usage batchUsage) map[string]any {
	resp := map[string]any{"TableName": req.st.Table}
	var it attr.Item
	var err error
	if req.st.Kind == partiql.Select {
		cc := &consumed{table: req.st.Table}
		if it, err = e.pqGet(ctx, req, "BatchExecuteStatement", cc); err == nil {
			usage.add(cc.report(req.capacity))
		}
	} else {
		var res *pqResult
		if res, err = e.runStatement(ctx, req); err == nil {
			it = res.item
			usage.add(res.cc)
		}
	}
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Code == CodeResourceNotFound {
			return map[string]any{"Error": batchError(err)}
		}
		resp["Error"] = batchError(err)
	}
	if it != nil {
		resp["Item"] = it
	}
	return resp
}

// batchUsage sums the ConsumedCapacity reports of a batch's statements,
// per table.
type batchUsage map[string]map[string]any

func (u batchUsage) add(report map[string]any) {
	if report == nil {
		return
	}
	name, _ := report["TableName"].(string)
	if cur := u[name]; cur != nil {
		sumReport(cur, report)
	} else {
		u[name] = report
	}
}

// sumReport adds src's units to dst's, index by index.
func sumReport(dst, src map[string]any) {
	for k, v := range src {
		switch v := v.(type) {
		case float64:
			d, _ := dst[k].(float64)
			dst[k] = d + v
		case map[string]any:
			if d, ok := dst[k].(map[string]any); ok {
				sumReport(d, v)
			} else {
				dst[k] = v
			}
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

func (u batchUsage) list() []map[string]any {
	out := []map[string]any{}
	for _, name := range sortedKeys(u) {
		out = append(out, u[name])
	}
	return out
}

// pqGet runs a SELECT that must name one item by its full primary key, as
// every read of a batch or a transaction must. It returns the item if it
// exists and meets the rest of the WHERE clause, projected.
func (e *Engine) pqGet(ctx context.Context, req *pqRequest, within string, cc *consumed) (attr.Item, error) {
	st := req.st
	t, err := e.table(st.Table)
	if err != nil {
		return nil, err
	}
	bad := validationf("Select statements within %s must specify the primary key in the where clause.", within)
	if st.Index != "" {
		return nil, bad
	}
	key, rest, err := pqKey(t, st, req.vals)
	if err != nil {
		return nil, bad
	}
	out, err := e.getItem(ctx, &getItemInput{TableName: st.Table, Key: key, ConsistentRead: req.consistent})
	if err != nil {
		return nil, err
	}
	var it attr.Item
	switch v := out.(*getOutput).Item.(type) {
	case attr.Item:
		it = v
	case rawItem:
		if it, err = decodeItem(v); err != nil {
			return nil, err
		}
	}
	cc.read += readUnits(attr.ItemSize(it), req.consistent)
	return pqMatch(req, it, rest)
}

// pqMatch applies the rest of a single-item SELECT's WHERE clause, with the
// expression language's filter, then its projection.
func pqMatch(req *pqRequest, it attr.Item, rest []expr.Cond) (attr.Item, error) {
	if it == nil {
		return nil, nil
	}
	if filter := partiql.Join(rest); filter != nil {
		names, vals := partiql.Placeholders(req.st.Names, req.vals, filter)
		x, err := compile(exprParams{ExpressionAttributeNames: names, ExpressionAttributeValues: vals}, exprSources{filter: rendered(filter, true)})
		if err != nil {
			return nil, err
		}
		if ok, err := x.match(it); err != nil || !ok {
			return nil, err
		}
	}
	if req.st.Projection != nil {
		return projectSelect(req.st, []attr.Item{it})[0], nil
	}
	return it, nil
}

func runExecuteTransaction(ctx context.Context, e *Engine, opName string, body []byte) (any, []string, error) {
	in := &executeTransactionInput{}
	if err := decodeValidated(body, in); err != nil {
		return nil, nil, err
	}
	reqs := make([]*pqRequest, len(in.TransactStatements))
	tables := make([]string, len(reqs))
	reads := 0
	for i, s := range in.TransactStatements {
		req, err := parseStatement(s.Statement, s.Parameters, "statement")
		if err != nil {
			return nil, nil, err
		}
		reqs[i], tables[i] = req, req.st.Table
		if req.st.Kind.IsRead() {
			reads++
		}
	}
	if reads > 0 && reads < len(reqs) {
		return nil, nil, mixedStatements("transaction")
	}
	kind := faultTransact
	if reads > 0 {
		kind = faultTransactRead
	}
	if err := e.faults.before(ctx, kind, opName, tables); err != nil {
		return nil, tables, err
	}
	if reads > 0 {
		out, err := e.readTransaction(ctx, reqs, in.ReturnConsumedCapacity)
		return out, nil, err
	}
	out, err := e.writeTransaction(ctx, reqs, in)
	return out, tables, err
}

// writeTransaction runs INSERT, UPDATE, DELETE and EXISTS statements as
// one TransactWriteItems.
func (e *Engine) writeTransaction(ctx context.Context, reqs []*pqRequest, in *executeTransactionInput) (any, error) {
	items := make([]transactWriteItem, len(reqs))
	for i, req := range reqs {
		var err error
		if items[i], err = e.transactItem(req); err != nil {
			return nil, err
		}
	}
	out, err := e.transactWriteItems(ctx, &transactWriteItemsInput{
		TransactItems: items, ReturnConsumedCapacity: in.ReturnConsumedCapacity, ClientRequestToken: in.ClientRequestToken,
	})
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == CodeTransactionCanceled {
		reasons, _ := ae.Extra["CancellationReasons"].([]cancellationReason)
		for i, r := range reasons {
			if reqs[i].st.Kind == partiql.Insert && r.Code == "ConditionalCheckFailed" {
				reasons[i] = cancellationReason{Code: "DuplicateItem", Message: msgDuplicateItem}
			}
		}
		return nil, transactionCanceled(reasons)
	}
	return out, err
}

// transactItem is the TransactWriteItems action of one statement.
func (e *Engine) transactItem(req *pqRequest) (transactWriteItem, error) {
	st := req.st
	t, err := e.table(st.Table)
	if err != nil {
		return transactWriteItem{}, err
	}
	act := &txAction{TableName: st.Table}
	if st.Kind == partiql.Insert {
		if act.Item, err = st.BoundItem(req.params); err != nil {
			return transactWriteItem{}, pqError(err)
		}
		act.ConditionExpression = rendered(keyCondition(false), true)
		act.ExpressionAttributeNames = map[string]string{keyPH: t.keys.hash.name}
		return transactWriteItem{Put: act}, nil
	}
	if st.Index != "" {
		return transactWriteItem{}, validationf("Operations on indices are not supported in transactions")
	}
	key, rest, err := pqKey(t, st, req.vals)
	if err != nil {
		if st.Kind == partiql.Exists {
			return transactWriteItem{}, validationf("EXISTS() must contain a single item read with additional condition")
		}
		return transactWriteItem{}, err
	}
	act.Key = key
	var cond expr.Cond
	switch {
	case st.Kind == partiql.Delete && len(rest) > 0:
		cond = &expr.Or{Left: keyCondition(false), Right: partiql.Join(rest)}
	case st.Kind == partiql.Delete:
	case len(rest) > 0:
		cond = &expr.And{Left: keyCondition(true), Right: partiql.Join(rest)}
	default:
		cond = keyCondition(true)
	}
	act.ConditionExpression = rendered(cond, cond != nil)
	act.UpdateExpression = rendered(st.Update, st.Update != nil)
	if cond != nil || st.Update != nil {
		act.ExpressionAttributeNames, act.ExpressionAttributeValues = partiql.Placeholders(withKeyName(st, t), req.vals, cond, st.Update)
	}
	switch st.Kind {
	case partiql.Update:
		return transactWriteItem{Update: act}, nil
	case partiql.Delete:
		return transactWriteItem{Delete: act}, nil
	}
	return transactWriteItem{ConditionCheck: act}, nil
}

// readTransaction runs SELECT statements, each naming one item by its key,
// as one TransactGetItems.
func (e *Engine) readTransaction(ctx context.Context, reqs []*pqRequest, capacity string) (any, error) {
	type get struct {
		TableName string
		Key       attr.Item
	}
	gets := make([]map[string]get, len(reqs))
	rests := make([][]expr.Cond, len(reqs))
	for i, req := range reqs {
		t, err := e.table(req.st.Table)
		if err != nil {
			return nil, err
		}
		if req.st.Index != "" {
			return nil, validationf("Reads on indices are not supported within transactions.")
		}
		key, rest, err := pqKey(t, req.st, req.vals)
		if err != nil {
			return nil, validationf("Select statements within ExecuteTransaction must specify the primary key in the where clause.")
		}
		gets[i], rests[i] = map[string]get{"Get": {TableName: req.st.Table, Key: key}}, rest
	}
	raw, err := json.Marshal(map[string]any{"TransactItems": gets, "ReturnConsumedCapacity": capacity})
	if err != nil {
		return nil, newError(CodeInternalServerError, "%v", err)
	}
	in := &transactGetItemsInput{}
	if err := decodeRequest(raw, in); err != nil {
		return nil, err
	}
	res, err := e.transactGetItems(ctx, in)
	if err != nil {
		return nil, err
	}
	out := res.(map[string]any)
	for i, r := range out["Responses"].([]map[string]any) {
		it, _ := r["Item"].(attr.Item)
		if it, err = pqMatch(reqs[i], it, rests[i]); err != nil {
			return nil, err
		}
		delete(r, "Item")
		if it != nil {
			r["Item"] = it
		}
	}
	return out, nil
}
