package ddblocal

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// selectPlan is how a SELECT reads: the key conditions of the partitions
// a Query reads (none for a Scan), a condition on the sort key it narrows
// them with, and the rest of the WHERE clause as a filter.
type selectPlan struct {
	keys       keySchema
	partitions []expr.Cond
	keyNames   expr.Names // the placeholders of the partition attributes
	sort       expr.Cond
	filter     expr.Cond
}

// planSelect finds in the WHERE clause's top-level conjuncts an equality
// (or IN, or OR of equalities) on the partition key, as DynamoDB does, and
// then one condition on the sort key that a key condition can express.
func planSelect(st *partiql.Statement, keys keySchema, vals expr.Values) selectPlan {
	if keys.nHash > 1 || len(keys.attrs) > 2 {
		return planMultiKey(st, keys)
	}
	plan := selectPlan{keys: keys, keyNames: expr.Names{keyPH: keys.hash.name}}
	rest := partiql.Conjuncts(st.Where)
	for i, c := range rest {
		if refs, ok := partitionRefs(st, c, keys.hash.name); ok {
			for _, ref := range distinctValues(refs, vals) {
				plan.partitions = append(plan.partitions, &expr.Compare{Op: "=", Left: expr.Path{{Name: keyPH}}, Right: ref})
			}
			rest = append(rest[:i:i], rest[i+1:]...)
			break
		}
	}
	if plan.partitions != nil && keys.rng.name != "" {
		for i, c := range rest {
			if isSortCondition(st, c, keys.rng.name) {
				plan.sort = c
				rest = append(rest[:i:i], rest[i+1:]...)
				break
			}
		}
	}
	plan.filter = partiql.Join(rest)
	return plan
}

// planMultiKey plans a SELECT on an index with a multi-attribute key: a
// Query of one partition when the WHERE clause gives an equality on every
// partition attribute, the rest being a filter; a Scan otherwise.
func planMultiKey(st *partiql.Statement, keys keySchema) selectPlan {
	plan := selectPlan{keys: keys, keyNames: expr.Names{}}
	rest := partiql.Conjuncts(st.Where)
	var kc expr.Cond
	for k, ka := range keys.attrs[:keys.nHash] {
		found := false
		for i, c := range rest {
			if name, ref, ok := st.Equality(c); ok && name == ka.name {
				ph := keyPH + strconv.Itoa(k)
				plan.keyNames[ph] = ka.name
				eq := &expr.Compare{Op: "=", Left: expr.Path{{Name: ph}}, Right: ref}
				if kc == nil {
					kc = eq
				} else {
					kc = &expr.And{Left: kc, Right: eq}
				}
				rest = append(rest[:i:i], rest[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return selectPlan{keys: keys, filter: st.Where}
		}
	}
	plan.partitions = []expr.Cond{kc}
	plan.filter = partiql.Join(rest)
	return plan
}

func partitionRefs(st *partiql.Statement, c expr.Cond, hash string) ([]expr.ValueRef, bool) {
	if name, ref, ok := st.Equality(c); ok {
		return []expr.ValueRef{ref}, name == hash
	}
	switch c := c.(type) {
	case *expr.In:
		p, ok := c.Operand.(expr.Path)
		if !ok || len(p) != 1 || p[0].IsIndex || st.Name(p[0]) != hash {
			return nil, false
		}
		refs := make([]expr.ValueRef, 0, len(c.List))
		for _, o := range c.List {
			ref, ok := o.(expr.ValueRef)
			if !ok {
				return nil, false
			}
			refs = append(refs, ref)
		}
		return refs, true
	case *expr.Or:
		l, ok := partitionRefs(st, c.Left, hash)
		if !ok {
			return nil, false
		}
		r, ok := partitionRefs(st, c.Right, hash)
		return append(l, r...), ok
	}
	return nil, false
}

// distinctValues drops repeated partition values.
func distinctValues(refs []expr.ValueRef, vals expr.Values) []expr.ValueRef {
	out := refs[:0:0]
	for _, r := range refs {
		dup := false
		for _, o := range out {
			dup = dup || attr.Equal(vals[string(o)], vals[string(r)])
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out
}

// isSortCondition reports whether c is a sort key condition of a Query:
// rng op value, rng BETWEEN value AND value, or begins_with(rng, value).
func isSortCondition(st *partiql.Statement, c expr.Cond, rng string) bool {
	isRng := func(o expr.Operand) bool {
		p, ok := o.(expr.Path)
		return ok && len(p) == 1 && !p[0].IsIndex && st.Name(p[0]) == rng
	}
	isVal := func(o expr.Operand) bool { _, ok := o.(expr.ValueRef); return ok }
	switch c := c.(type) {
	case *expr.Compare:
		return c.Op != "<>" && isRng(c.Left) && isVal(c.Right)
	case *expr.Between:
		return isRng(c.Operand) && isVal(c.Low) && isVal(c.High)
	case *expr.Call:
		return c.Name == "begins_with" && isRng(c.Args[0]) && isVal(c.Args[1])
	}
	return false
}

// checkOrderBy validates ORDER BY and orders the partitions read.
func (plan *selectPlan) checkOrderBy(st *partiql.Statement, vals expr.Values) error {
	if st.OrderBy == nil {
		return nil
	}
	if st.Where == nil {
		return validationf("Must have WHERE clause in the statement when using ORDER BY clause.")
	}
	p := st.OrderBy
	name := st.Name(p[0])
	if len(p) != 1 || (name != plan.keys.hash.name && name != plan.keys.rng.name) {
		return validationf("Variable reference %s in ORDER BY clause must be part of the primary key", st.ResolvePath(p).String())
	}
	if plan.partitions == nil {
		return validationf("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
	}
	if len(plan.partitions) > 1 {
		if name != plan.keys.hash.name {
			return validationf("Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.")
		}
		value := func(c expr.Cond) []byte { return appendKey(nil, vals[string(c.(*expr.Compare).Right.(expr.ValueRef))]) }
		sort.SliceStable(plan.partitions, func(i, j int) bool {
			return (bytes.Compare(value(plan.partitions[i]), value(plan.partitions[j])) < 0) != st.Descending
		})
	}
	return nil
}

func (e *Engine) pqSelect(req *pqRequest) (*pqResult, error) {
	st := req.st
	t, err := e.table(st.Table)
	if err != nil {
		return nil, err
	}
	keys := t.keys
	if st.Index != "" {
		t.mu.RLock()
		ix := t.index(st.Index)
		t.mu.RUnlock()
		if ix == nil {
			// PartiQL's wording names no index, unlike Query's and Scan's.
			return nil, validationf("The table does not have the specified index")
		}
		keys = ix.keys
	}
	plan := planSelect(st, keys, req.vals)
	if err := plan.checkOrderBy(st, req.vals); err != nil {
		return nil, err
	}
	tok, err := req.token()
	if err != nil {
		return nil, err
	}
	return e.readPlan(req, plan, tok)
}

// readPlan reads the plan's partitions (or scans) from where the token
// left off, until the Limit or the 1 MB page is used up.
func (e *Engine) readPlan(req *pqRequest, plan selectPlan, tok pqToken) (*pqResult, error) {
	n := max(len(plan.partitions), 1)
	if tok.Part >= n {
		return nil, validationf("Invalid NextToken")
	}
	var acc page
	var r *reader
	res := &pqResult{}
	remaining := req.limit
	esk := tok.Key
	for part := tok.Part; part < n; part++ {
		var p *page
		var err error
		if r, err = e.selectReader(req, plan, part, esk, remaining); err != nil {
			return nil, err
		}
		if plan.partitions == nil {
			p, err = e.scanPage(r, req.st.Projection != nil)
		} else {
			p, err = e.queryPage(r, !req.st.Descending, req.st.Projection != nil)
		}
		if err != nil {
			return nil, err
		}
		acc.merge(p)
		esk = nil
		if p.lastKey != nil {
			res.nextToken, res.lastKey = req.encodeToken(part, p.lastKey), p.lastKey
			break
		}
		if req.limit > 0 {
			if remaining -= p.scanned; remaining <= 0 && part+1 < n {
				res.nextToken = req.encodeToken(part+1, nil)
				break
			}
		}
	}
	out := r.response(&acc)
	res.cc = out.ConsumedCapacity
	res.items = out.Items
	if req.st.Projection != nil {
		res.items = projectSelect(req.st, acc.items)
	}
	return res, nil
}

func (acc *page) merge(p *page) {
	acc.items = append(acc.items, p.items...)
	if p.raw != nil {
		acc.raw = append(acc.raw, p.raw...)
	}
	acc.count += p.count
	acc.scanned += p.scanned
	acc.bytes += p.bytes
	acc.extraRCU += p.extraRCU
}

// selectReader builds the Query or Scan reader of one partition of a plan.
func (e *Engine) selectReader(req *pqRequest, plan selectPlan, part int, esk attr.Item, limit int) (*reader, error) {
	st := req.st
	in := &readInput{TableName: st.Table, ConsistentRead: req.consistent, ReturnConsumedCapacity: req.capacity, ExclusiveStartKey: esk}
	if st.Index != "" {
		in.IndexName = &st.Index
	}
	if limit > 0 {
		in.Limit = &limit
	}
	names := make(expr.Names, len(st.Names)+len(plan.keyNames))
	for k, v := range st.Names {
		names[k] = v
	}
	for k, v := range plan.keyNames {
		names[k] = v
	}
	var kc expr.Cond
	if plan.partitions != nil {
		kc = plan.partitions[part]
		if plan.sort != nil {
			kc = &expr.And{Left: kc, Right: plan.sort}
		}
	}
	in.FilterExpression = rendered(plan.filter, plan.filter != nil)
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = partiql.Placeholders(names, req.vals, kc, plan.filter)
	return e.newReader(in, exprSources{keyCondition: rendered(kc, kc != nil)})
}

// decodeAll makes visit decode every row (for a projection).
func decodeAll(attr.Item) bool { return true }

func (e *Engine) queryPage(r *reader, forward, decode bool) (*page, error) {
	q, err := r.x.keyQuery(r.keys)
	if err != nil {
		return nil, err
	}
	lo, hi, err := keyRange(r.keys, q)
	if err != nil {
		return nil, err
	}
	start, err := r.startKey()
	if err != nil {
		return nil, err
	}
	var keep func(attr.Item) bool
	if decode {
		keep = decodeAll
	}
	return e.read(r, func() (*page, error) { return r.visit(lo, hi, start, forward, keep) })
}

func (e *Engine) scanPage(r *reader, decode bool) (*page, error) {
	start, err := r.startKey()
	if err != nil {
		return nil, err
	}
	var keep func(attr.Item) bool
	if decode {
		keep = decodeAll
	}
	return e.read(r, func() (*page, error) { return r.visit(nil, nil, start, true, keep) })
}

// projectSelect applies a SELECT list: each path's value under its alias.
func projectSelect(st *partiql.Statement, items []attr.Item) []attr.Item {
	out := make([]attr.Item, len(items))
	for i, it := range items {
		row := attr.Item{}
		for j, p := range st.Projection {
			if v, ok := st.Lookup(it, p); ok {
				row[st.Alias(p, j)] = v
			}
		}
		out[i] = row
	}
	return out
}
