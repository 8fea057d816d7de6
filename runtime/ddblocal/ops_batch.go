package ddblocal

import (
	"context"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Batch limits, as DynamoDB documents them.
const (
	maxBatchWrite    = 25
	maxBatchGet      = 100
	maxBatchGetBytes = 16 << 20
)

type keysAndAttributes struct {
	Keys                     []attr.Item
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
	AttributesToGet          []string          `json:",omitempty"`
	ConsistentRead           bool              `json:",omitempty"`
}

type batchGetItemInput struct {
	RequestItems           map[string]*keysAndAttributes
	ReturnConsumedCapacity string
	// asGiven maps the name of each table the request named by its ARN to
	// that ARN, which keys the table in the response.
	asGiven map[string]string
}

func (in *batchGetItemInput) tableNames() []string { return sortedKeys(in.RequestItems) }

func (e *Engine) batchGetItem(_ context.Context, in *batchGetItemInput) (any, error) {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	total := 0
	type plan struct {
		t    *table
		x    *compiled
		keys [][]byte
	}
	plans := map[string]*plan{}
	// Every table's entry is validated before any table is looked up.
	for _, name := range sortedKeys(in.RequestItems) {
		ka := in.RequestItems[name]
		if ka == nil || len(ka.Keys) == 0 {
			return nil, validationf("1 validation error detected: Value null at 'requestItems.%s.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1", name)
		}
		total += len(ka.Keys)
		if total > maxBatchGet {
			return nil, validationf("Too many items requested for the BatchGetItem call")
		}
		x, err := compile(exprParams{ExpressionAttributeNames: ka.ExpressionAttributeNames}, exprSources{projection: ka.ProjectionExpression, attributesToGet: ka.AttributesToGet, legacy: legacyAttributesToGet})
		if err != nil {
			return nil, err
		}
		plans[name] = &plan{x: x}
	}
	for _, name := range sortedKeys(in.RequestItems) {
		ka, p := in.RequestItems[name], plans[name]
		t, err := e.table(name)
		if err != nil {
			return nil, err
		}
		p.t = t
		seen := map[string]bool{}
		for _, k := range ka.Keys {
			key, err := t.keyOf(k)
			if err != nil {
				return nil, err
			}
			if seen[string(key)] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(key)] = true
			p.keys = append(p.keys, key)
		}
	}
	responses := map[string][]attr.Item{}
	unprocessed := map[string]*keysAndAttributes{}
	usage := map[string]*consumed{}
	requested, throttled := 0, 0
	var partErr error // the last item a partition limit throttled
	respBytes := 0
	for _, name := range sortedKeys(plans) {
		p := plans[name]
		ka := in.RequestItems[name]
		cc := &consumed{table: name}
		usage[name] = cc
		items := []attr.Item{}
		var err error
		p.t.rlocked(func() {
			for i, key := range p.keys {
				requested++
				skip, thr := e.faults.batchItem("BatchGetItem", name)
				if !skip && e.parts != nil {
					if perr := e.chargeBatchGet(p.t, ka.Keys[i], key, ka.ConsistentRead); perr != nil {
						skip, thr, partErr = true, true, perr
					}
				}
				if thr {
					throttled++
				}
				if skip || respBytes >= maxBatchGetBytes {
					u := unprocessed[name]
					if u == nil {
						u = &keysAndAttributes{ProjectionExpression: ka.ProjectionExpression, ExpressionAttributeNames: ka.ExpressionAttributeNames, AttributesToGet: ka.AttributesToGet, ConsistentRead: ka.ConsistentRead}
						unprocessed[name] = u
					}
					u.Keys = append(u.Keys, ka.Keys[i])
					continue
				}
				var it attr.Item
				if it, err = p.t.get(key); err != nil {
					return
				}
				size := 0
				if it != nil {
					size = attr.ItemSize(it)
					respBytes += size
					items = append(items, p.x.project(it))
				}
				cc.read += readUnits(size, ka.ConsistentRead)
			}
		})
		if err != nil {
			return nil, err
		}
		responses[name] = items
	}
	if throttled == requested {
		if partErr != nil {
			return nil, partErr
		}
		return nil, e.faults.throttleErrorFor(sortedKeys(plans)[0])
	}
	out := map[string]any{"Responses": asGiven(responses, in.asGiven), "UnprocessedKeys": asGiven(unprocessed, in.asGiven)}
	if r := reportAll(usage, in.ReturnConsumedCapacity); r != nil {
		out["ConsumedCapacity"] = r
	}
	return out, nil
}

type writeRequest struct {
	PutRequest    *struct{ Item attr.Item } `json:",omitempty"`
	DeleteRequest *struct{ Key attr.Item }  `json:",omitempty"`
}

type batchWriteItemInput struct {
	RequestItems                map[string][]writeRequest
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
	asGiven                     map[string]string // as in batchGetItemInput
}

func (in *batchWriteItemInput) tableNames() []string { return sortedKeys(in.RequestItems) }

func (e *Engine) batchWriteItem(_ context.Context, in *batchWriteItemInput) (any, error) {
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	type write struct {
		req  writeRequest
		key  []byte
		item attr.Item // nil for a delete
	}
	plans := map[string][]write{}
	tables := map[string]*table{}
	total := 0
	for _, name := range sortedKeys(in.RequestItems) {
		reqs := in.RequestItems[name]
		total += len(reqs)
		if total > maxBatchWrite {
			// Each table's list is checked with the request's constraints.
			return nil, validationf("Too many items requested for the BatchWriteItem call")
		}
		t, err := e.table(name)
		if err != nil {
			return nil, err
		}
		tables[name] = t
		seen := map[string]bool{}
		for _, r := range reqs {
			w := write{req: r}
			switch {
			case r.PutRequest != nil && r.DeleteRequest == nil:
				if r.PutRequest.Item == nil {
					return nil, validationf("1 validation error detected: Value null at 'requestItems.%s.member.putRequest.item' failed to satisfy constraint: Member must not be null", name)
				}
				if w.key, err = t.itemKey(r.PutRequest.Item); err != nil {
					return nil, batchKeyError(err)
				}
				if err := checkItemSize(r.PutRequest.Item, false); err != nil {
					return nil, err
				}
				w.item = r.PutRequest.Item
			case r.DeleteRequest != nil && r.PutRequest == nil:
				if w.key, err = t.keyOf(r.DeleteRequest.Key); err != nil {
					return nil, err
				}
			default:
				return nil, validationf("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if seen[string(w.key)] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(w.key)] = true
			plans[name] = append(plans[name], w)
		}
	}
	// Index keys are checked under each table's lock (UpdateTable changes
	// the indexes), all before anything is written.
	for _, name := range sortedKeys(plans) {
		t := tables[name]
		var err error
		t.rlocked(func() {
			for _, w := range plans[name] {
				if w.item != nil {
					if err = t.checkIndexKeys(w.item); err != nil {
						return
					}
					if err = e.checkCollectionOf(t, w.key, w.item); err != nil {
						return
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	unprocessed := map[string][]writeRequest{}
	usage := map[string]*consumed{}
	collections := newCollectionReport(in.ReturnItemCollectionMetrics)
	throttled := 0
	var partErr error // the last item a partition limit throttled
	now := e.now()
	for _, name := range sortedKeys(plans) {
		t := tables[name]
		cc := &consumed{table: name}
		usage[name] = cc
		delay := e.faults.gsiDelay(name)
		err := t.locked(func() error {
			for _, w := range plans[name] {
				if skip, thr := e.faults.batchItem("BatchWriteItem", name); skip {
					if thr {
						throttled++
					}
					unprocessed[name] = append(unprocessed[name], w.req)
					continue
				}
				old, err := t.get(w.key)
				if err != nil {
					return err
				}
				if e.parts != nil {
					if perr := e.chargeBatchWrite(t, w.req, old, w.item); perr != nil {
						throttled++
						partErr = perr
						unprocessed[name] = append(unprocessed[name], w.req)
						continue
					}
				}
				if w.item == nil && old == nil {
					cc.write++
					continue
				}
				cc.addWrite(t, t.write(w.key, old, w.item, delay, now), 1)
				if w.item != nil {
					collections.add(t, w.item)
				} else {
					collections.add(t, old)
				}
			}
			return e.flush(t)
		})
		if err != nil {
			return nil, err
		}
	}
	if throttled == total {
		if partErr != nil {
			return nil, partErr
		}
		return nil, e.faults.throttleErrorFor(sortedKeys(plans)[0])
	}
	out := map[string]any{"UnprocessedItems": asGiven(unprocessed, in.asGiven)}
	if r := reportAll(usage, in.ReturnConsumedCapacity); r != nil {
		out["ConsumedCapacity"] = r
	}
	collections.addTo(out)
	return out, nil
}

// batchKeyError rewords a missing or mistyped key attribute the way
// BatchWriteItem reports it; other key errors (empty values, sizes) keep
// their wording.
func batchKeyError(err error) error {
	if ae, ok := err.(*APIError); ok && (strings.Contains(ae.Message, "Missing the key") || strings.Contains(ae.Message, "Type mismatch for key")) {
		return validationf("The provided key element does not match the schema")
	}
	return err
}

// asGiven keys m, a response map keyed by table name, as the request keyed
// its RequestItems: by ARN for the tables given by ARN (given maps their
// names to those ARNs), so that UnprocessedKeys and UnprocessedItems can be
// sent again as they are.
func asGiven[V any](m map[string]V, given map[string]string) map[string]V {
	if len(given) == 0 {
		return m
	}
	out := make(map[string]V, len(m))
	for name, v := range m {
		if arn, ok := given[name]; ok {
			name = arn
		}
		out[name] = v
	}
	return out
}
