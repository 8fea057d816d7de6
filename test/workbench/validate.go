package workbench

import (
	"errors"
	"fmt"
	"strings"
)

// The attribute types of the model format.
var attributeTypes = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "M": true, "L": true, "SS": true, "NS": true, "BS": true, "NULL": true}

var projections = map[string]bool{"ALL": true, "KEYS_ONLY": true, "INCLUDE": true}

// Validate checks that m has the structure NoSQL Workbench imports: a name
// and metadata (Version, AWSService), at least one table, each with its key
// (S, N or B), uniquely named typed non-key attributes, facets whose key
// aliases are set and whose attributes the table declares, sample rows
// that carry the key and only the facet's attributes, each with one value
// of the declared type, and indexes keyed by declared attributes of the
// same type with a known projection. It returns every violation.
func Validate(m Model) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if m.ModelName == "" {
		bad("ModelName is empty")
	}
	if m.ModelMetadata.Version == "" || m.ModelMetadata.AWSService != "Amazon DynamoDB" {
		bad("ModelMetadata needs a Version and AWSService \"Amazon DynamoDB\" (got %q, %q)", m.ModelMetadata.Version, m.ModelMetadata.AWSService)
	}
	if len(m.DataModel) == 0 {
		bad("DataModel has no table")
	}
	for _, t := range m.DataModel {
		errs = append(errs, validateTable(t)...)
	}
	return errors.Join(errs...)
}

func keyType(t string) bool { return t == "S" || t == "N" || t == "B" }

func validateTable(t Table) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("table %s: "+format, append([]any{t.TableName}, a...)...))
	}
	if t.TableName == "" {
		bad("TableName is empty")
	}
	types := map[string]string{}
	key := []Attribute{t.KeyAttributes.PartitionKey}
	if t.KeyAttributes.SortKey != nil {
		key = append(key, *t.KeyAttributes.SortKey)
	}
	for _, a := range key {
		if a.AttributeName == "" || !keyType(a.AttributeType) {
			bad("key attribute %q of type %q", a.AttributeName, a.AttributeType)
		}
		types[a.AttributeName] = a.AttributeType
	}
	for _, a := range t.NonKeyAttributes {
		if _, dup := types[a.AttributeName]; dup || a.AttributeName == "" {
			bad("non-key attribute %q is empty or declared twice", a.AttributeName)
		}
		if !attributeTypes[a.AttributeType] {
			bad("attribute %s has type %q", a.AttributeName, a.AttributeType)
		}
		types[a.AttributeName] = a.AttributeType
	}
	facets := map[string]bool{}
	for _, f := range t.TableFacets {
		if facets[f.FacetName] || f.FacetName == "" {
			bad("facet %q is unnamed or twice", f.FacetName)
		}
		facets[f.FacetName] = true
		errs = append(errs, validateFacet(t, f, types)...)
	}
	for _, ix := range t.GlobalSecondaryIndexes {
		ik := []Attribute{ix.KeyAttributes.PartitionKey}
		if ix.KeyAttributes.SortKey != nil {
			ik = append(ik, *ix.KeyAttributes.SortKey)
		}
		for _, a := range ik {
			if types[a.AttributeName] != a.AttributeType || !keyType(a.AttributeType) {
				bad("index %s: key attribute %s (%s) is not a declared attribute of that type (%q)", ix.IndexName, a.AttributeName, a.AttributeType, types[a.AttributeName])
			}
		}
		if !projections[ix.Projection.ProjectionType] || (ix.Projection.ProjectionType == "INCLUDE") != (len(ix.Projection.NonKeyAttributes) > 0) {
			bad("index %s: projection %+v", ix.IndexName, ix.Projection)
		}
		for _, n := range ix.Projection.NonKeyAttributes {
			if _, ok := types[n]; !ok {
				bad("index %s projects the undeclared attribute %s", ix.IndexName, n)
			}
		}
	}
	return errs
}

func validateFacet(t Table, f Facet, types map[string]string) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("table %s, facet %s: "+format, append([]any{t.TableName, f.FacetName}, a...)...))
	}
	if f.KeyAttributeAlias.PartitionKeyAlias == "" || (t.KeyAttributes.SortKey != nil && f.KeyAttributeAlias.SortKeyAlias == "") {
		bad("key aliases %+v", f.KeyAttributeAlias)
	}
	allowed := map[string]bool{t.KeyAttributes.PartitionKey.AttributeName: true}
	if t.KeyAttributes.SortKey != nil {
		allowed[t.KeyAttributes.SortKey.AttributeName] = true
	}
	for _, n := range f.NonKeyAttributes {
		if _, ok := types[n]; !ok {
			bad("attribute %s is not declared by the table", n)
		}
		allowed[n] = true
	}
	for i, row := range f.TableData {
		for k := range allowed {
			if _, ok := row[k]; !ok && (k == t.KeyAttributes.PartitionKey.AttributeName || (t.KeyAttributes.SortKey != nil && k == t.KeyAttributes.SortKey.AttributeName)) {
				bad("row %d has no key attribute %s", i, k)
			}
		}
		for k, v := range row {
			if !allowed[k] {
				bad("row %d has attribute %s, which the facet does not list", i, k)
				continue
			}
			if len(v) != 1 {
				bad("row %d: attribute %s has %d type tags", i, k, len(v))
				continue
			}
			for typ := range v {
				if typ != types[k] {
					bad("row %d: attribute %s is %s, declared %s", i, k, typ, types[k])
				}
			}
		}
		if err := matchAlias(f, row, t); err != nil {
			bad("row %d: %v", i, err)
		}
	}
	return errs
}

// matchAlias checks that a row's key starts as the facet's aliases do
// (up to their first placeholder).
func matchAlias(f Facet, row Item, t Table) error {
	check := func(alias, attr string) error {
		fixed, _, _ := strings.Cut(alias, "<")
		v, _ := row[attr]["S"].(string)
		if !strings.HasPrefix(v, fixed) {
			return fmt.Errorf("%s %q does not match the alias %q", attr, v, alias)
		}
		return nil
	}
	if err := check(f.KeyAttributeAlias.PartitionKeyAlias, t.KeyAttributes.PartitionKey.AttributeName); err != nil {
		return err
	}
	if t.KeyAttributes.SortKey != nil {
		return check(f.KeyAttributeAlias.SortKeyAlias, t.KeyAttributes.SortKey.AttributeName)
	}
	return nil
}
