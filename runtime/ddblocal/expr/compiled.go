package expr

import (
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Check evaluates the ConditionExpression against the current item (nil
// when there is none). Without a ConditionExpression it is true.
func (c *Compiled) Check(item attr.Item) (bool, error) {
	if c.Condition == nil {
		return true, nil
	}
	return c.Condition.Eval(item, c.Names, c.Values)
}

// Match evaluates the FilterExpression. Without one every item matches.
func (c *Compiled) Match(item attr.Item) (bool, error) {
	if c.Filter == nil {
		return true, nil
	}
	return c.Filter.eval(item, c.Names, c.Values, "FilterExpression")
}

// Apply applies the UpdateExpression and returns the new item; item itself
// is not modified. Without an UpdateExpression it returns item.
func (c *Compiled) Apply(item attr.Item) (attr.Item, error) {
	if c.Update == nil {
		return item, nil
	}
	next, _, err := c.Update.apply(item, c.Names, c.Values, applyOpts{})
	return next, err
}

// ApplyNew is Apply for an item that does not exist yet, whose key
// attributes are key: as in DynamoDB, the update reads them (SET b = a,
// where a is the partition key, gives b the key's value) and REMOVE does
// nothing. The result does not hold the key attributes; key is not
// modified.
func (c *Compiled) ApplyNew(key attr.Item) (attr.Item, error) {
	if c.Update == nil {
		return nil, nil
	}
	next, _, err := c.Update.apply(nil, c.Names, c.Values, applyOpts{key: key})
	return next, err
}

// RemovesOnly reports whether the UpdateExpression has REMOVE actions and
// nothing else. Applied to an item that does not exist, such an update
// changes nothing, and DynamoDB creates no item for it.
func (c *Compiled) RemovesOnly() bool {
	u := c.Update
	return u != nil && len(u.Remove) > 0 && len(u.Set) == 0 && len(u.Add) == 0 && len(u.Delete) == 0
}

// ApplyOwned is Apply for an item the caller gives up: the update is made
// to item itself, which saves copying it, and the result may be item. After
// ApplyOwned, item must not be used again, whether or not it failed.
func (c *Compiled) ApplyOwned(item attr.Item) (attr.Item, error) {
	if c.Update == nil {
		return item, nil
	}
	next, _, err := c.Update.apply(item, c.Names, c.Values, applyOpts{owned: true})
	return next, err
}

// Project applies the ProjectionExpression; without one it returns item.
func (c *Compiled) Project(item attr.Item) attr.Item {
	if c.Projection == nil {
		return item
	}
	return c.Projection.Apply(item, c.Names)
}

// UpdatedPaths lists the resolved target paths of every SET, REMOVE, ADD
// and DELETE action, in that order; nil without an UpdateExpression.
func (c *Compiled) UpdatedPaths() []Path {
	if c.Update == nil {
		return nil
	}
	targets := c.Update.targets()
	out := make([]Path, 0, len(targets))
	for _, p := range targets {
		if rp, err := resolvePath(p, c.Names); err == nil {
			out = append(out, rp)
		}
	}
	return out
}

// UpdatedAttribute returns the first top-level attribute, in the order of
// UpdatedPaths, for which match is true; it builds no paths.
func (c *Compiled) UpdatedAttribute(match func(name string) bool) (string, bool) {
	if c.Update == nil {
		return "", false
	}
	u := c.Update
	check := func(p Path) (string, bool) {
		if len(p) == 0 || p[0].IsIndex {
			return "", false
		}
		name := p[0].Name
		if strings.HasPrefix(name, "#") {
			n, ok := c.Names[name]
			if !ok {
				return "", false
			}
			name = n
		}
		return name, match(name)
	}
	for _, a := range u.Set {
		if n, ok := check(a.Path); ok {
			return n, true
		}
	}
	for _, p := range u.Remove {
		if n, ok := check(p); ok {
			return n, true
		}
	}
	for _, a := range u.Add {
		if n, ok := check(a.Path); ok {
			return n, true
		}
	}
	for _, a := range u.Delete {
		if n, ok := check(a.Path); ok {
			return n, true
		}
	}
	return "", false
}

// ProjectPaths is Project under the name the engine uses for ReturnValues
// UPDATED_OLD and UPDATED_NEW.
func ProjectPaths(item attr.Item, paths []Path) attr.Item { return Project(item, paths) }

// CheckFilterKeys returns DynamoDB's ValidationException when the
// FilterExpression of a Query names a key attribute of the table or index
// queried; keys are given in schema order, partition key first. Scans may
// filter on keys, so the engine calls this for Query only.
func (c *Compiled) CheckFilterKeys(keys ...string) error {
	if c.Filter == nil {
		return nil
	}
	used := map[string]bool{}
	for _, a := range c.Filter.Attributes(c.Names) {
		used[a] = true
	}
	for _, k := range keys {
		if k != "" && used[k] {
			return invalid("Filter Expression can only contain non-primary key attributes: Primary key attribute: " + k)
		}
	}
	return nil
}
