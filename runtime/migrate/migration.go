package migrate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is a DynamoDB item.
type Item = map[string]types.AttributeValue

// Migration declares a change of shape of some items of a table, made in
// place: the new shape's attributes are added next to the old one's (the
// mirror), and cleanup later removes the old shape's attributes.
type Migration struct {
	// Name identifies the migration; its phase state lives under it.
	Name string
	// From and To are the versions it goes from and to. Items in the new
	// shape carry To in the version attribute (Options.VersionAttribute).
	From, To int
	// Match selects the items the migration touches. Required.
	Match func(Item) bool
	// Filter, if set, is sent as the backfill Scan's FilterExpression, so
	// that fewer items come back (they are still read and paid for).
	Filter *expression.ConditionBuilder
	// Transform returns the attributes the new shape adds to an item in the
	// old shape. It must read only old-shape attributes, must not return a
	// key attribute and must not change an attribute the old shape has:
	// old readers keep reading it until cleanup.
	Transform func(old Item) (Item, error)
	// Retire lists the old shape's attributes that cleanup removes.
	Retire []string
	// Restore rebuilds the retired attributes of a cleaned-up item, for a
	// rollback from cleanup. Without it that rollback is refused.
	Restore func(item Item) (Item, error)
}

func (m Migration) validate() error {
	switch {
	case m.Name == "" || strings.ContainsAny(m.Name, "#/"):
		return fmt.Errorf("%w: name %q must be non-empty and free of '#' and '/'", ErrInvalidMigration, m.Name)
	case m.To <= m.From:
		return fmt.Errorf("%w: %s goes from version %d to %d; To must be greater", ErrInvalidMigration, m.Name, m.From, m.To)
	case m.Match == nil || m.Transform == nil:
		return fmt.Errorf("%w: %s needs Match and Transform", ErrInvalidMigration, m.Name)
	}
	return nil
}

// shaper turns an item into the shape a phase writes. keyAttrs and the
// version attribute are the names a transform may not return.
type shaper struct {
	m        Migration
	keyAttrs []string
	version  string
}

// added runs the transform on old and checks its answer.
func (s shaper) added(old Item, key string) (Item, error) {
	add, err := s.m.Transform(old)
	if err != nil {
		return nil, &TransformError{Key: key, Err: err}
	}
	for name, v := range add {
		if slices.Contains(s.keyAttrs, name) || name == s.version {
			return nil, &TransformError{Key: key, Err: fmt.Errorf("%w: returns the reserved attribute %q", ErrInvalidTransform, name)}
		}
		if was, ok := old[name]; ok && !Equal(was, v) {
			return nil, &TransformError{Key: key, Err: fmt.Errorf("%w: changes the old shape's attribute %q in place", ErrInvalidTransform, name)}
		}
	}
	return add, nil
}

// shape returns old as phase p writes it: the old shape before mirror, old
// and new from mirror to cutover, the new shape alone from cleanup on.
func (s shaper) shape(p Phase, old Item, key string) (Item, error) {
	if !p.WritesNew() {
		return old, nil
	}
	add, err := s.added(old, key)
	if err != nil {
		return nil, err
	}
	out := make(Item, len(old)+len(add)+1)
	for k, v := range old {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	out[s.version] = &types.AttributeValueMemberN{Value: fmt.Sprint(s.m.To)}
	if !p.WritesOld() {
		for _, r := range s.m.Retire {
			delete(out, r)
		}
	}
	return out, nil
}

// formatKey renders an item's key for reports: "PK=ORDER#o1 SK=ORDER#o1".
func formatKey(item Item, keyAttrs []string) string {
	parts := make([]string, 0, len(keyAttrs))
	for _, k := range keyAttrs {
		parts = append(parts, k+"="+display(item[k]))
	}
	return strings.Join(parts, " ")
}

func display(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "<absent>"
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Equal reports whether two attribute values are the same value (sets
// compare without order).
func Equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && string(a.Value) == string(b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameSet(bytesToStrings(a.Value), bytesToStrings(b.Value))
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(a.Value, b.Value, Equal)
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for k, v := range a.Value {
			if !Equal(v, b.Value[k]) {
				return false
			}
		}
		return true
	}
	return false
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

func bytesToStrings(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}
