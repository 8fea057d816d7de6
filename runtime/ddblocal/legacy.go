package ddblocal

import (
	"encoding/json"

	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// legacySet names the legacy parameters an operation takes (DynamoDB
// Developer Guide, "Legacy conditional parameters"); others in a request
// are ignored, as DynamoDB ignores members an operation does not have.
type legacySet uint8

const (
	legacyAttributeUpdates legacySet = 1 << iota
	legacyExpected
	legacyAttributesToGet
	legacyQueryFilter
	legacyScanFilter
	legacyConditionalOperator
	legacyKeyConditions
)

// The legacy parameters of each operation.
const (
	legacyPutDelete = legacyExpected | legacyConditionalOperator
	legacyUpdate    = legacyAttributeUpdates | legacyPutDelete
	legacyQuery     = legacyAttributesToGet | legacyQueryFilter | legacyConditionalOperator | legacyKeyConditions
	legacyScan      = legacyAttributesToGet | legacyScanFilter | legacyConditionalOperator
)

// legacyNames lists the legacy parameters in the order DynamoDB names them
// in its "Can not use both expression and non-expression parameters" error.
var legacyNames = []struct {
	bit  legacySet
	name string
}{
	{legacyAttributeUpdates, "AttributeUpdates"},
	{legacyExpected, "Expected"},
	{legacyAttributesToGet, "AttributesToGet"},
	{legacyQueryFilter, "QueryFilter"},
	{legacyScanFilter, "ScanFilter"},
	{legacyConditionalOperator, "ConditionalOperator"},
	{legacyKeyConditions, "KeyConditions"},
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// legacyPresent returns the legacy parameters of the request that the
// operation takes.
func (p *exprParams) legacyPresent(src exprSources) legacySet {
	var have legacySet
	for _, f := range []struct {
		bit legacySet
		raw json.RawMessage
	}{
		{legacyAttributeUpdates, p.AttributeUpdates},
		{legacyExpected, p.Expected},
		{legacyQueryFilter, p.QueryFilter},
		{legacyScanFilter, p.ScanFilter},
		{legacyConditionalOperator, p.ConditionalOperator},
		{legacyKeyConditions, p.KeyConditions},
	} {
		if present(f.raw) {
			have |= f.bit
		}
	}
	if src.attributesToGet != nil {
		have |= legacyAttributesToGet
	}
	return have & src.legacy
}

// checkMixed refuses legacy and expression parameters in one request where
// DynamoDB does.
func checkMixed(have legacySet, src exprSources) error {
	var legacy, exprs []string
	for _, l := range legacyNames {
		if have&l.bit != 0 {
			legacy = append(legacy, l.name)
		}
	}
	for _, e := range []struct {
		src  *string
		name string
	}{
		{src.update, "UpdateExpression"},
		{src.condition, "ConditionExpression"},
		{src.projection, "ProjectionExpression"},
		{src.filter, "FilterExpression"},
		{src.keyCondition, "KeyConditionExpression"},
	} {
		if e.src != nil {
			exprs = append(exprs, e.name)
		}
	}
	if err := expr.MixedParameters(legacy, exprs); err != nil {
		return asAPIError(err)
	}
	return nil
}

// decodeLegacy decodes the legacy parameters in have.
func (p *exprParams) decodeLegacy(have legacySet, src exprSources) (*expr.Legacy, error) {
	l := &expr.Legacy{}
	if have&legacyAttributesToGet != 0 {
		l.AttributesToGet = src.attributesToGet
	}
	for _, f := range []struct {
		bit legacySet
		raw json.RawMessage
		dst any
	}{
		{legacyAttributeUpdates, p.AttributeUpdates, &l.AttributeUpdates},
		{legacyExpected, p.Expected, &l.Expected},
		{legacyQueryFilter, p.QueryFilter, &l.QueryFilter},
		{legacyScanFilter, p.ScanFilter, &l.ScanFilter},
		{legacyConditionalOperator, p.ConditionalOperator, &l.ConditionalOperator},
		{legacyKeyConditions, p.KeyConditions, &l.KeyConditions},
	} {
		if have&f.bit == 0 {
			continue
		}
		if err := decodeRequest(f.raw, f.dst); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// compileLegacy adds the legacy parameters to the request's compiled
// expressions, in place of the expressions they stand for.
func (p *exprParams) compileLegacy(c *expr.Compiled, have legacySet, src exprSources) (*compiled, error) {
	l, err := p.decodeLegacy(have, src)
	if err != nil {
		return nil, err
	}
	if c == noExpressions.c {
		c = &expr.Compiled{}
	}
	if err := c.AddLegacy(l); err != nil {
		return nil, asAPIError(err)
	}
	return &compiled{c: c, legacyFilter: have&(legacyQueryFilter|legacyScanFilter) != 0, legacyProjection: l.AttributesToGet != nil}, nil
}

// checkQueryFilterKeys refuses a Query filter on a key attribute of the
// table or index queried, naming the parameter it came from.
func (x *compiled) checkQueryFilterKeys(keys []string) error {
	if !x.legacyFilter {
		if err := x.c.CheckFilterKeys(keys...); err != nil {
			return asAPIError(err)
		}
		return nil
	}
	if x.c.Filter == nil {
		return nil
	}
	used := map[string]bool{}
	for _, a := range x.c.Filter.Attributes(x.c.Names) {
		used[a] = true
	}
	for _, k := range keys {
		if k != "" && used[k] {
			return validationf("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", k)
		}
	}
	return nil
}

// rawValue captures one JSON value (for the legacy parameters, which are
// decoded only when a request has them), copied out of the body.
func (r *jsonReader) rawValue() (json.RawMessage, bool) {
	r.ws()
	start := r.pos
	if !r.skipValue(0) || !json.Valid(r.src[start:r.pos]) {
		return nil, false
	}
	return append(json.RawMessage(nil), r.src[start:r.pos]...), true
}

// skipValue moves past one JSON value; strings may hold escapes here.
func (r *jsonReader) skipValue(depth int) bool {
	r.ws()
	if r.pos >= len(r.src) || depth > 64 {
		return false
	}
	switch c := r.src[r.pos]; {
	case c == '{' || c == '[':
		return r.skipContainer(depth)
	case c == '"':
		return r.skipString()
	default:
		start := r.pos
		for r.pos < len(r.src) && !r.delimited() {
			r.pos++
		}
		return r.pos > start
	}
}

func (r *jsonReader) skipContainer(depth int) bool {
	closing := byte('}')
	if r.src[r.pos] == '[' {
		closing = ']'
	}
	r.pos++
	for i := 0; ; i++ {
		if r.consume(closing) {
			return true
		}
		if i > 0 && !r.consume(',') {
			return false
		}
		if closing == '}' && (!r.skipString() || !r.consume(':')) {
			return false
		}
		if !r.skipValue(depth + 1) {
			return false
		}
	}
}

func (r *jsonReader) skipString() bool {
	if !r.consume('"') {
		return false
	}
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case '"':
			r.pos++
			return true
		case '\\':
			r.pos++
		}
		r.pos++
	}
	return false
}
