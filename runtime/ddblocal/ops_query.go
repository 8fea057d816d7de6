package ddblocal

import (
	"bytes"
	"context"
	"hash/fnv"
	"sync"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// maxPageBytes is the 1 MB a single Query or Scan reads at most.
const maxPageBytes = 1 << 20

type readInput struct {
	TableName              string
	IndexName              *string
	FilterExpression       *string
	ProjectionExpression   *string
	AttributesToGet        []string
	Limit                  *int
	ExclusiveStartKey      attr.Item
	Select                 string
	ConsistentRead         bool
	ReturnConsumedCapacity string
	exprParams
}

type queryInput struct {
	readInput
	KeyConditionExpression *string
	ScanIndexForward       *bool
}

func (in *queryInput) tableNames() []string { return in.oneTable(in.TableName) }

type scanInput struct {
	readInput
	Segment       *int
	TotalSegments *int
}

func (in *scanInput) tableNames() []string { return in.oneTable(in.TableName) }

// reader is a validated Query or Scan over a table or one of its indexes.
type reader struct {
	t     *table
	ix    *index // nil for the table itself
	x     *compiled
	in    *readInput
	sel   string
	limit int
	fetch bool      // read the full item from the table (LSI, ALL_ATTRIBUTES)
	keys  keySchema // of the table or index read
}

func (e *Engine) newReader(in *readInput, src exprSources) (*reader, error) {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if in.Limit != nil && *in.Limit < 1 {
		return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
	}
	src.filter = in.FilterExpression
	src.projection = in.ProjectionExpression
	src.attributesToGet = in.AttributesToGet
	// The expressions are the request's own: checked before the table is
	// looked up.
	x, err := compile(in.exprParams, src)
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	r := &reader{t: t, in: in, keys: t.keys, x: x}
	if in.IndexName != nil {
		t.mu.RLock()
		r.ix = t.index(*in.IndexName)
		t.mu.RUnlock()
		if r.ix == nil {
			return nil, validationf("The table does not have the specified index: %s", *in.IndexName)
		}
		r.keys = r.ix.keys
		if in.ConsistentRead && !r.ix.local {
			return nil, validationf("Consistent reads are not supported on global secondary indexes")
		}
	}
	if in.Limit != nil {
		r.limit = *in.Limit
	}
	r.sel = in.Select
	switch in.Select {
	case "":
		switch {
		case r.x.hasProjection():
			r.sel = "SPECIFIC_ATTRIBUTES"
		case r.ix != nil:
			r.sel = "ALL_PROJECTED_ATTRIBUTES"
		default:
			r.sel = "ALL_ATTRIBUTES"
		}
	case "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT", "SPECIFIC_ATTRIBUTES":
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", in.Select)
	}
	if in.Select != "" && in.Select != "SPECIFIC_ATTRIBUTES" && r.x.hasProjection() {
		if !r.x.legacyProjection {
			return nil, validationf("Cannot specify the ProjectionExpression when choosing to get %s", in.Select)
		}
		return nil, validationf("Cannot specify the AttributesToGet when choosing to get %s", in.Select)
	}
	if r.sel == "SPECIFIC_ATTRIBUTES" && !r.x.hasProjection() {
		return nil, validationf("1 validation error detected: Must specify the ProjectionExpression or AttributesToGet when choosing to get SPECIFIC_ATTRIBUTES")
	}
	if r.sel == "ALL_PROJECTED_ATTRIBUTES" && r.ix == nil {
		return nil, validationf("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
	}
	if r.ix != nil && r.ix.proj.typ != "ALL" && (r.sel == "ALL_ATTRIBUTES" || r.sel == "SPECIFIC_ATTRIBUTES") {
		if r.ix.local {
			r.fetch = true
		} else if r.sel == "ALL_ATTRIBUTES" {
			return nil, validationf("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", r.ix.name)
		}
	}
	return r, nil
}

// startKey validates ExclusiveStartKey and returns the row key after which
// reading resumes.
func (r *reader) startKey() ([]byte, error) {
	esk := r.in.ExclusiveStartKey
	if esk == nil {
		return nil, nil
	}
	bad := validationf("The provided starting key is invalid: The provided key element does not match the schema")
	want := map[string]attr.Type{}
	for _, ka := range r.t.keys.attrs {
		want[ka.name] = ka.typ
	}
	if r.ix != nil {
		for _, ka := range r.ix.keys.attrs {
			want[ka.name] = ka.typ
		}
	}
	if len(esk) != len(want) {
		return nil, bad
	}
	for n, typ := range want {
		if v, ok := esk[n]; !ok || v.T != typ {
			return nil, bad
		}
	}
	tk, err := r.t.itemKey(esk)
	if err != nil {
		return nil, bad
	}
	if r.ix == nil {
		return tk, nil
	}
	row, err := r.ix.rowKey(esk, tk)
	if err != nil || row == nil {
		return nil, bad
	}
	return row, nil
}

// page is the result of reading one page.
type page struct {
	items    []attr.Item
	raw      rawItems // items kept encoded, when nothing needs them decoded
	count    int
	scanned  int
	bytes    int
	lastKey  attr.Item
	extraRCU float64 // table reads for LSI fetches
}

// visit reads the rows of tree between lo (inclusive) and hi (exclusive,
// nil for no bound) in the given direction, after start, stopping at Limit
// or 1 MB. keep filters rows (Scan segments); it may be nil.
func (r *reader) visit(lo, hi, start []byte, forward bool, keep func(attr.Item) bool) (*page, error) {
	var tree entryTree = r.t.items
	if r.ix != nil {
		tree = r.ix.tree
	}
	p := &page{}
	var err error
	var last attr.Item
	var lastRaw []byte
	stopped := false
	// Without a filter, a projection or a fetch, rows go to the response
	// still encoded.
	fast := keep == nil && r.x.c.Filter == nil && !r.x.hasProjection() && !r.fetch
	each := func(en entry) bool {
		k := en.key()
		if hi != nil && bytes.Compare(k, hi) >= 0 {
			return !forward
		}
		if bytes.Compare(k, lo) < 0 {
			return forward
		}
		if start != nil {
			c := bytes.Compare(k, start)
			if (forward && c <= 0) || (!forward && c >= 0) {
				return true
			}
		}
		if fast {
			p.scanned++
			p.count++
			p.bytes += int(en.size)
			lastRaw = en.val()
			if r.sel != "COUNT" {
				if p.raw == nil {
					p.raw = getRawItems()
				}
				p.raw = append(p.raw, lastRaw)
			}
			if (r.limit > 0 && p.scanned >= r.limit) || p.bytes >= maxPageBytes {
				stopped = true
				return false
			}
			return true
		}
		var it attr.Item
		if it, err = decodeItem(en.val()); err != nil {
			return false
		}
		if keep != nil && !keep(it) {
			return true
		}
		p.scanned++
		p.bytes += int(en.size)
		last = it
		ok, merr := r.x.match(it)
		if merr != nil {
			err = merr
			return false
		}
		if ok {
			p.count++
			if r.sel != "COUNT" {
				if r.fetch {
					full, ferr := r.t.get(tableKeyOf(r.t, it))
					if ferr != nil {
						err = ferr
						return false
					}
					if full != nil {
						p.extraRCU += readUnits(attr.ItemSize(full), r.in.ConsistentRead)
						it = full
					}
				}
				p.items = append(p.items, r.x.project(it))
			}
		}
		if (r.limit > 0 && p.scanned >= r.limit) || p.bytes >= maxPageBytes {
			stopped = true
			return false
		}
		return true
	}
	switch {
	case forward && start != nil && bytes.Compare(start, lo) > 0:
		tree.AscendGreaterOrEqual(probe(start), each)
	case forward:
		tree.AscendGreaterOrEqual(probe(lo), each)
	case start != nil && (hi == nil || bytes.Compare(start, hi) < 0):
		tree.DescendLessOrEqual(probe(start), each)
	case hi != nil:
		tree.DescendLessOrEqual(probe(hi), each)
	default:
		tree.Descend(each)
	}
	if err != nil {
		return nil, err
	}
	if stopped && lastRaw != nil {
		if last, err = decodeItem(lastRaw); err != nil {
			return nil, err
		}
	}
	if stopped && last != nil {
		p.lastKey = r.lastEvaluatedKey(last)
	}
	return p, nil
}

// tableKeyOf encodes the table key of an item read from an index.
func tableKeyOf(t *table, it attr.Item) []byte {
	k, _ := t.itemKey(it)
	return k
}

func (r *reader) lastEvaluatedKey(it attr.Item) attr.Item {
	out := r.t.keyItem(it)
	if r.ix != nil {
		for _, ka := range r.ix.keys.attrs {
			out[ka.name] = it[ka.name]
		}
	}
	return out
}

func (r *reader) response(p *page) *readOutput {
	out := &readOutput{Count: p.count, ScannedCount: p.scanned, LastEvaluatedKey: p.lastKey}
	if r.sel != "COUNT" {
		switch {
		case p.raw != nil:
			out.Items = p.raw
			out.pooled = p.raw
		case p.items != nil:
			out.Items = p.items
		default:
			out.Items = []attr.Item{}
		}
	}
	if reportsCapacity(r.in.ReturnConsumedCapacity) {
		cc := consumed{table: r.t.name}
		units := readUnits(p.bytes, r.in.ConsistentRead)
		if r.ix != nil {
			cc.addIndex(r.ix, units, false)
			cc.read = p.extraRCU
		} else {
			cc.read = units
		}
		out.ConsumedCapacity = cc.report(r.in.ReturnConsumedCapacity)
	}
	return out
}

// readOutput is the response of Query and Scan; nil fields are left out.
type readOutput struct {
	ConsumedCapacity map[string]any
	Count            int
	Items            any // rawItems, []attr.Item, or nil for Select COUNT
	LastEvaluatedKey attr.Item
	ScannedCount     int

	pooled rawItems // returned to rawItemsPool once the response is written
}

// release returns the page's row list for reuse; the response has been
// written and nothing else refers to it.
func (o *readOutput) release() {
	if o.pooled != nil && cap(o.pooled) <= 4096 {
		clear(o.pooled) // do not keep rows alive
		s := o.pooled[:0]
		rawItemsPool.Put(&s)
	}
	o.pooled, o.Items = nil, nil
}

var rawItemsPool = sync.Pool{New: func() any { s := make(rawItems, 0, 128); return &s }}

func getRawItems() rawItems { return (*rawItemsPool.Get().(*rawItems))[:0] }

// read runs fn under the table's read lock, first applying the GSI writes
// whose delay has passed.
func (e *Engine) read(r *reader, fn func() (*page, error)) (p *page, err error) {
	t := r.t
	if r.ix != nil && !r.ix.local {
		var pending bool
		t.rlocked(func() { pending = len(r.ix.pending) > 0 })
		if pending {
			_ = t.locked(func() error { r.ix.drain(e.now()); return nil })
		}
	}
	t.rlocked(func() { p, err = fn() })
	return p, err
}

func (e *Engine) query(_ context.Context, in *queryInput) (any, error) {
	if in.KeyConditionExpression == nil && !present(in.KeyConditions) {
		return nil, validationf("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	r, err := e.newReader(&in.readInput, exprSources{keyCondition: in.KeyConditionExpression, legacy: legacyQuery})
	if err != nil {
		return nil, err
	}
	q, err := r.x.keyQuery(r.keys)
	if err != nil {
		return nil, err
	}
	if err := r.x.checkQueryFilterKeys(r.keys.names()); err != nil {
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
	if start != nil && (bytes.Compare(start, lo) < 0 || (hi != nil && bytes.Compare(start, hi) >= 0)) {
		return nil, validationf("The provided starting key is outside query boundaries based on provided conditions")
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	p, err := e.read(r, func() (*page, error) { return r.visit(lo, hi, start, forward, nil) })
	if err != nil {
		return nil, err
	}
	if e.parts != nil {
		if err := e.chargeQuery(r, q, p); err != nil {
			return nil, err
		}
	}
	return r.response(p), nil
}

// keyRange turns a resolved key condition into a row key range [lo, hi).
func keyRange(ks keySchema, q *expr.KeyQuery) (lo, hi []byte, err error) {
	part, err := keyPrefix(ks, q)
	if err != nil {
		return nil, nil, err
	}
	if q.Sort == nil {
		return part, prefixEnd(part), nil
	}
	v := q.Sort.Values[0]
	at := func(v attr.Value) []byte { return appendKey(append([]byte(nil), part...), v) }
	switch q.Sort.Op {
	case "=":
		k := at(v)
		return k, prefixEnd(k), nil
	case "<":
		return part, at(v), nil
	case "<=":
		return part, prefixEnd(at(v)), nil
	case ">":
		return prefixEnd(at(v)), prefixEnd(part), nil
	case ">=":
		return at(v), prefixEnd(part), nil
	case "BETWEEN":
		if c, _ := attr.Compare(v, q.Sort.Values[1]); c > 0 {
			return nil, nil, validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s:%s}, upper bound operand: AttributeValue: {%s:%s}", v.T, v.S, q.Sort.Values[1].T, q.Sort.Values[1].S)
		}
		return at(v), prefixEnd(at(q.Sort.Values[1])), nil
	case "begins_with":
		k := appendEscaped(append([]byte(nil), part...), v.S, false)
		return k, prefixEnd(k), nil
	}
	return nil, nil, validationf("Query key condition not supported")
}

func (e *Engine) scan(_ context.Context, in *scanInput) (any, error) {
	if (in.Segment == nil) != (in.TotalSegments == nil) {
		if in.Segment == nil {
			return nil, validationf("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
		}
		return nil, validationf("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	}
	if in.TotalSegments != nil {
		total, seg := *in.TotalSegments, *in.Segment
		if total < 1 || total > 1000000 {
			return nil, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000", total)
		}
		if seg < 0 || seg >= total {
			return nil, validationf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", seg, total)
		}
	}
	r, err := e.newReader(&in.readInput, exprSources{legacy: legacyScan})
	if err != nil {
		return nil, err
	}
	var keep func(attr.Item) bool
	if in.TotalSegments != nil {
		h := r.t.keys.hash.name
		keep = func(it attr.Item) bool { return segmentOfValue(it[h], *in.TotalSegments) == *in.Segment }
	}
	start, err := r.startKey()
	if err != nil {
		return nil, err
	}
	if keep != nil && start != nil && !keep(in.ExclusiveStartKey) {
		return nil, validationf("The provided Exclusive start key does not map to the provided Segment and TotalSegments values.")
	}
	p, err := e.read(r, func() (*page, error) { return r.visit(nil, nil, start, true, keep) })
	if err != nil {
		return nil, err
	}
	return r.response(p), nil
}

// segmentOfValue assigns a partition key to a scan segment by hash, so that
// all items of a partition fall into the same segment.
func segmentOfValue(v attr.Value, total int) int {
	h := fnv.New32a()
	_, _ = h.Write(appendKey(nil, v))
	return int(h.Sum32() % uint32(total))
}
