package ddblocal

import (
	"errors"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// exprSources are the expressions of one request (nil when absent).
type exprSources struct {
	condition       *string
	filter          *string
	keyCondition    *string
	update          *string
	projection      *string
	attributesToGet []string
	legacy          legacySet // the legacy parameters the operation takes
}

// compiled wraps a request's compiled expressions.
type compiled struct {
	c *expr.Compiled
	// legacyFilter and legacyProjection mark a filter compiled from
	// QueryFilter or ScanFilter and a projection from AttributesToGet.
	legacyFilter, legacyProjection bool
}

var noExpressions = &compiled{c: &expr.Compiled{}}

// compile parses and validates a request's expressions together.
func compile(p exprParams, src exprSources) (*compiled, error) {
	have := p.legacyPresent(src)
	if have != 0 {
		if err := checkMixed(have, src); err != nil {
			return nil, err
		}
	}
	if src.condition == nil && src.filter == nil && src.keyCondition == nil && src.update == nil && src.projection == nil &&
		have == 0 && p.ExpressionAttributeNames == nil && p.ExpressionAttributeValues == nil {
		// Nothing to compile (a plain PutItem or GetItem); compiled values
		// are never modified, so one is shared.
		return noExpressions, nil
	}
	in := expr.Input{
		Condition:    src.condition,
		Filter:       src.filter,
		KeyCondition: src.keyCondition,
		Update:       src.update,
		Projection:   src.projection,
	}
	if p.ExpressionAttributeNames != nil {
		in.Names = expr.Names(p.ExpressionAttributeNames)
	}
	if p.ExpressionAttributeValues != nil {
		in.Values = expr.Values(p.ExpressionAttributeValues)
	}
	c := noExpressions.c
	if in.Condition != nil || in.Filter != nil || in.KeyCondition != nil || in.Update != nil || in.Projection != nil ||
		in.Names != nil || in.Values != nil {
		var err error
		if c, err = expr.Compile(in); err != nil {
			return nil, asAPIError(err)
		}
	}
	if have != 0 {
		return p.compileLegacy(c, have, src)
	}
	return &compiled{c: c}, nil
}

// asAPIError turns the validation errors of attr and expr into
// ValidationException.
func asAPIError(err error) error {
	var ve *attr.ValidationError
	if errors.As(err, &ve) {
		return validationf("%s", ve.Message)
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	return newError(CodeInternalServerError, "%v", err)
}

// check evaluates the ConditionExpression against the current item (nil
// when absent) and returns ConditionalCheckFailedException when it is false.
func (x *compiled) check(old attr.Item) error {
	if x.c.Condition == nil {
		return nil
	}
	mustBeLive(old, "condition evaluation")
	ok, err := x.c.Check(old)
	if err != nil {
		return asAPIError(err)
	}
	if !ok {
		return newError(CodeConditionalCheckFailed, "The conditional request failed")
	}
	return nil
}

// match evaluates the FilterExpression.
func (x *compiled) match(it attr.Item) (bool, error) {
	if x.c.Filter == nil {
		return true, nil
	}
	mustBeLive(it, "filter evaluation")
	ok, err := x.c.Match(it)
	if err != nil {
		return false, asAPIError(err)
	}
	return ok, nil
}

// update applies the UpdateExpression to base (nil when the item does not
// exist) and returns the new item; base is not modified.
func (x *compiled) update(base attr.Item) (attr.Item, error) {
	if x.c.Update == nil {
		return base.Clone(), nil
	}
	next, err := x.c.Apply(base)
	if err != nil {
		return nil, asAPIError(err)
	}
	return next, nil
}

// updateNew is update for an item that does not exist yet: the update
// reads its key attributes (SET b = a, where a is the key).
func (x *compiled) updateNew(key attr.Item) (attr.Item, error) {
	next, err := x.c.ApplyNew(key)
	if err != nil {
		return nil, asAPIError(err)
	}
	return next, nil
}

// updateOwned is update for a base the caller gives up: it is updated in
// place and must not be used again, whether or not the update failed.
func (x *compiled) updateOwned(base attr.Item) (attr.Item, error) {
	next, err := x.c.ApplyOwned(base)
	if err != nil {
		return nil, asAPIError(err)
	}
	return next, nil
}

// project applies the ProjectionExpression (or AttributesToGet).
func (x *compiled) project(it attr.Item) attr.Item {
	if x.c.Projection == nil {
		return it
	}
	return x.c.Project(it)
}

func (x *compiled) hasProjection() bool { return x.c.Projection != nil }

// checkUpdateKeys rejects an update expression that touches a key
// attribute of the table.
func (x *compiled) checkUpdateKeys(t *table) error {
	hash, rng := t.keys.hash.name, t.keys.rng.name
	k, found := x.c.UpdatedAttribute(func(name string) bool { return name == hash || (rng != "" && name == rng) })
	if found {
		return validationf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", k)
	}
	return nil
}

// returnValues builds UpdateItem's Attributes for ReturnValues.
func (x *compiled) returnValues(mode string, old, next attr.Item) attr.Item {
	var src attr.Item
	switch mode {
	case "ALL_OLD":
		return old
	case "ALL_NEW":
		return next
	case "UPDATED_OLD":
		src = old
	case "UPDATED_NEW":
		src = next
	default:
		return nil
	}
	if src == nil || x.c.Update == nil {
		return nil
	}
	out := expr.ProjectPaths(src, x.c.UpdatedPaths())
	if len(out) == 0 {
		return nil
	}
	return out
}

// keyQuery resolves the KeyConditionExpression against a key schema.
func (x *compiled) keyQuery(ks keySchema) (*expr.KeyQuery, error) {
	q, err := x.c.KeyCondition.Resolve(x.c.Names, x.c.Values, ks.exprSchema())
	if err != nil {
		return nil, asAPIError(err)
	}
	return q, nil
}
