package ddblocal

import (
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// Multi-attribute keys (Amazon DynamoDB Developer Guide, "Multi-attribute
// key schema" and "Multi-attribute keys pattern"): a global secondary
// index's partition key and sort key may each be made of up to four
// attributes, every one with its own AttributeDefinition. An item is in the
// index only when it has all of them. Its row key is the order-preserving
// encoding of each attribute in key schema order, then the table key, so
// the partition attributes make one prefix and rows sort by the sort
// attributes left to right.

// maxKeyParts is the number of partition, and of sort, attributes a GSI
// key may have.
const maxKeyParts = 4

// isMultiKey reports whether a GSI KeySchema has more than one partition or
// more than one sort attribute; other key schemas keep the table rules.
func isMultiKey(elems []keySchemaElement) bool {
	var hash, rng int
	for _, el := range elems {
		if el.KeyType == "HASH" {
			hash++
		} else {
			rng++
		}
	}
	return hash > 1 || rng > 1
}

// parseIndexKeySchema parses an index's KeySchema: a GSI's may be a
// multi-attribute key, an LSI's is a partition and a sort attribute.
func parseIndexKeySchema(elems []keySchemaElement, defs map[string]attr.Type, local bool) (keySchema, error) {
	if local || !isMultiKey(elems) {
		return parseKeySchema(elems, defs, "keySchema")
	}
	return parseMultiKeySchema(elems, defs)
}

// parseMultiKeySchema parses a multi-attribute GSI key: HASH elements
// first, then RANGE elements, at most four of each, no name twice.
func parseMultiKeySchema(elems []keySchemaElement, defs map[string]attr.Type) (keySchema, error) {
	var ks keySchema
	if elems[0].KeyType != "HASH" {
		return ks, validationf("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	seen := map[string]string{}
	for i, el := range elems {
		if el.KeyType == "HASH" && i > 0 && elems[i-1].KeyType == "RANGE" {
			return ks, validationf("Invalid KeySchema: All HASH KeySchemaElements must come before the RANGE KeySchemaElements")
		}
		if el.KeyType == "HASH" {
			ks.nHash++
		}
		if prev, dup := seen[el.AttributeName]; dup {
			if prev != el.KeyType {
				return ks, validationf("Both the Hash Key and the Range Key element in the KeySchema have the same name")
			}
			return ks, validationf("Invalid KeySchema: Duplicate KeySchemaElement attribute name: %s", el.AttributeName)
		}
		seen[el.AttributeName] = el.KeyType
	}
	if ks.nHash > maxKeyParts {
		return ks, validationf("Invalid KeySchema: A global secondary index partition key can have at most %d attributes, got %d", maxKeyParts, ks.nHash)
	}
	if n := len(elems) - ks.nHash; n > maxKeyParts {
		return ks, validationf("Invalid KeySchema: A global secondary index sort key can have at most %d attributes, got %d", maxKeyParts, n)
	}
	for _, el := range elems {
		typ, ok := defs[el.AttributeName]
		if !ok {
			return ks, validationf("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(elemNames(elems), ", "), strings.Join(sortedKeys(defs), ", "))
		}
		ks.attrs = append(ks.attrs, keyAttr{el.AttributeName, typ})
	}
	ks.hash = ks.attrs[0]
	if ks.nHash < len(ks.attrs) {
		ks.rng = ks.attrs[ks.nHash]
	}
	return ks, nil
}

// withAttrs fills attrs from hash and rng, for a key of one attribute each.
func (k keySchema) withAttrs() keySchema {
	k.attrs, k.nHash = []keyAttr{k.hash}, 1
	if k.rng.name != "" {
		k.attrs = append(k.attrs, k.rng)
	}
	return k
}

// exprSchema is k as the expression package resolves key conditions with.
func (k keySchema) exprSchema() expr.KeySchema {
	s := expr.KeySchema{PartitionKey: k.hash.name, PartitionType: k.hash.typ, SortKey: k.rng.name, SortType: k.rng.typ}
	if len(k.attrs) > 2 || k.nHash > 1 {
		for i, ka := range k.attrs {
			a := expr.KeyAttribute{Name: ka.name, Type: ka.typ}
			if i < k.nHash {
				s.Partition = append(s.Partition, a)
			} else {
				s.Sort = append(s.Sort, a)
			}
		}
	}
	return s
}

// keyPrefix encodes the partition values of a resolved key condition and
// the sort values it fixes by equality: the rows it reads begin with it.
func keyPrefix(ks keySchema, q *expr.KeyQuery) ([]byte, error) {
	var part []byte
	for i, v := range q.PartitionValues {
		if v.T == attr.S && v.S == "" {
			return nil, validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", ks.attrs[i].name)
		}
		part = appendKey(part, v)
	}
	for _, v := range q.SortEqual {
		part = appendKey(part, v)
	}
	return part, nil
}

// keySchemaJSON is k as DescribeTable shows it: every attribute, in order.
func keySchemaJSON(k keySchema) []keySchemaElement {
	out := make([]keySchemaElement, len(k.attrs))
	for i, ka := range k.attrs {
		typ := "RANGE"
		if i < k.nHash {
			typ = "HASH"
		}
		out[i] = keySchemaElement{ka.name, typ}
	}
	return out
}
