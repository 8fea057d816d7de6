package workbench

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Model is a NoSQL Workbench data model.
type Model struct {
	ModelName     string
	ModelMetadata Metadata
	DataModel     []Table
}

// Metadata describes the model.
type Metadata struct {
	Author           string
	DateCreated      string
	DateLastModified string
	Description      string
	AWSService       string
	Version          string
}

// Table is one table of the model.
type Table struct {
	TableName              string
	KeyAttributes          KeyAttributes
	NonKeyAttributes       []Attribute
	TableFacets            []Facet
	GlobalSecondaryIndexes []Index
	DataAccess             map[string]any
	BillingMode            string
}

// KeyAttributes is a table's or index's key.
type KeyAttributes struct {
	PartitionKey Attribute
	SortKey      *Attribute `json:",omitempty"`
}

// Attribute is a named, typed attribute.
type Attribute struct {
	AttributeName string
	AttributeType string
}

// Facet is one entity (access pattern view) of a table.
type Facet struct {
	FacetName         string
	KeyAttributeAlias Alias
	TableData         []Item
	NonKeyAttributes  []string
	DataAccess        map[string]any
}

// Alias names what a facet keeps in the table's key attributes.
type Alias struct {
	PartitionKeyAlias string
	SortKeyAlias      string
}

// Item is one sample item in DynamoDB JSON ({"PK": {"S": "USER#u1"}}).
type Item map[string]map[string]any

// Index is a global secondary index.
type Index struct {
	IndexName     string
	KeyAttributes KeyAttributes
	Projection    Projection
}

// Projection is an index's projection.
type Projection struct {
	ProjectionType   string
	NonKeyAttributes []string `json:",omitempty"`
}

// entity is one facet's source: its EntityType, key aliases and struct.
type entity struct {
	name     string
	pk, sk   string
	template any
}

// entities are the facets of the table, in the order of
// docs/access-patterns.md's item table.
func entities(kl keys.Layout) []entity {
	return []entity{
		{store.TypeUser, kl.UserPrefix + "<userId>", kl.ProfileSK, store.User{}},
		{store.TypeAddress, kl.UserPrefix + "<userId>", kl.AddressPrefix + "<addressId>", store.Address{}},
		{store.TypeUserOrder, kl.UserPrefix + "<userId>", kl.UserOrderPrefix + "<createdAt>#<orderId>", store.UserOrder{}},
		{store.TypeLedgerEntry, kl.UserPrefix + "<userId>", kl.LedgerPrefix + "<at>#<entryId>", store.LedgerEntry{}},
		{store.TypeHold, kl.UserPrefix + "<userId>", kl.HoldPrefix + "<holdId>", store.Hold{}},
		{store.TypeOrder, kl.OrderPrefix + "<orderId>", kl.OrderPrefix + "<orderId>", store.Order{}},
		{store.TypeOrderItem, kl.OrderPrefix + "<orderId>", kl.ItemPrefix + "<line>", store.OrderItem{}},
		{store.TypePayment, kl.OrderPrefix + "<orderId>", kl.PaymentPrefix + "<paymentId>", store.Payment{}},
		{store.TypeRefund, kl.OrderPrefix + "<orderId>", kl.RefundPrefix + "<refundId>", store.Refund{}},
		{store.TypeProduct, kl.ProductPrefix + "<productId>", kl.ProductPrefix + "<productId>", store.Product{}},
		{idempotency.EntityType, kl.IdemPrefix + "<sha256(caller, operation, key)>", kl.IdemPrefix + "<sha256(caller, operation, key)>",
			idempotency.NewTable(nil, schema.DefaultTableName).Attributes()},
	}
}

// recordAttributes lists the attributes of an idempotency record, named by
// a (idempotency.Attributes), with their types.
func recordAttributes(a idempotency.Attributes) []Attribute {
	types := map[string]string{"TTL": "N", "Status": "N", "LockedUntil": "N", "Header": "M"}
	v := reflect.ValueOf(a)
	var out []Attribute
	for i := range v.NumField() {
		typ := types[v.Type().Field(i).Name]
		if typ == "" {
			typ = "S"
		}
		out = append(out, Attribute{AttributeName: v.Field(i).String(), AttributeType: typ})
	}
	return out
}

// attributes lists the dynamodbav attributes of an entity struct and their
// types, or those of an idempotency.Attributes (the record's names).
func attributes(v any) []Attribute {
	if a, ok := v.(idempotency.Attributes); ok {
		return recordAttributes(a)
	}
	t := reflect.TypeOf(v)
	var out []Attribute
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("dynamodbav"), ",")
		if name == "" || name == "-" {
			continue
		}
		typ := "S"
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64:
			typ = "N"
		case reflect.Bool:
			typ = "BOOL"
		case reflect.Map, reflect.Struct:
			typ = "M"
		case reflect.Slice:
			typ = "L"
		}
		out = append(out, Attribute{AttributeName: name, AttributeType: typ})
	}
	return out
}

// Build returns the model of sch and kl (defaults filled), with the
// sample items (as stored, under sch's names) in their entities' facets.
// sch must be a stage without multi-attribute indexes (v1).
func Build(name string, sch schema.Schema, kl keys.Layout, sample []map[string]types.AttributeValue) (Model, error) {
	sch, kl = sch.WithDefaults(), kl.WithDefaults()
	renames := sch.Renames()
	rename := func(n string) string {
		if to, ok := renames[n]; ok {
			return to
		}
		return n
	}
	t := Table{
		TableName: schema.DefaultTableName,
		KeyAttributes: KeyAttributes{PartitionKey: Attribute{sch.PartitionKey, "S"},
			SortKey: &Attribute{sch.SortKey, "S"}},
		DataAccess:  map[string]any{"MySql": map[string]any{}},
		BillingMode: "PAY_PER_REQUEST",
	}
	seen := map[string]string{}
	var skipped []string
	for _, ix := range sch.Indexes() {
		if ix.MultiAttribute() {
			skipped = append(skipped, ix.Name)
			continue
		}
		gi := Index{IndexName: ix.Name, KeyAttributes: KeyAttributes{PartitionKey: Attribute{ix.PartitionKey, "S"}},
			Projection: Projection{ProjectionType: string(ix.Projection)}}
		if ix.SortKey != "" {
			gi.KeyAttributes.SortKey = &Attribute{ix.SortKey, "S"}
		}
		if ix.Projection == schema.ProjectInclude {
			gi.Projection.NonKeyAttributes = append([]string(nil), ix.NonKeyAttributes...)
		}
		t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, gi)
	}
	byType := map[string][]map[string]types.AttributeValue{}
	for _, it := range sample {
		if v, ok := it[sch.EntityType].(*types.AttributeValueMemberS); ok {
			byType[v.Value] = append(byType[v.Value], it)
		}
	}
	for _, e := range entities(kl) {
		f := Facet{FacetName: e.name, KeyAttributeAlias: Alias{e.pk, e.sk}, DataAccess: map[string]any{"MySql": map[string]any{}}, TableData: []Item{}}
		for _, a := range attributes(e.template) {
			a.AttributeName = rename(a.AttributeName)
			if a.AttributeName == sch.PartitionKey || a.AttributeName == sch.SortKey {
				continue
			}
			if typ, ok := seen[a.AttributeName]; ok && typ != a.AttributeType {
				return Model{}, fmt.Errorf("workbench: attribute %s is %s in %s and %s elsewhere", a.AttributeName, a.AttributeType, e.name, typ)
			} else if !ok {
				seen[a.AttributeName] = a.AttributeType
				t.NonKeyAttributes = append(t.NonKeyAttributes, a)
			}
			f.NonKeyAttributes = append(f.NonKeyAttributes, a.AttributeName)
		}
		items := byType[e.name]
		sort.Slice(items, func(i, j int) bool { return itemKey(items[i], sch) < itemKey(items[j], sch) })
		for _, it := range items {
			f.TableData = append(f.TableData, toJSON(it))
		}
		t.TableFacets = append(t.TableFacets, f)
	}
	desc := fmt.Sprintf("oncetable's single table, generated by `make model` from runtime/schema, runtime/keys and the entities of runtime/store "+
		"(sample items written by the real flows). The TTL attribute is %s (idempotency records only). Unprocessed and Featured are sparse.", sch.TTLAttribute)
	if len(skipped) > 0 {
		desc += fmt.Sprintf(" Not in the model: %s, whose multi-attribute keys the model format cannot express.", strings.Join(skipped, ", "))
	} else {
		desc += fmt.Sprintf(" The v2 index %s (HASH %s, RANGE %s; ORDER_INDEXES=v2) has multi-attribute keys and is not expressible here; see docs/access-patterns.md.",
			sch.OrdersByStatus.Name, names(sch.OrdersByStatus.HashKeys()), names(sch.OrdersByStatus.RangeKeys()))
	}
	return Model{
		ModelName:     name,
		ModelMetadata: Metadata{Author: "oncetable", Description: desc, AWSService: "Amazon DynamoDB", Version: "3.0"},
		DataModel:     []Table{t},
	}, nil
}

func names(as []schema.KeyAttribute) string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name+" ("+string(a.Type)+")")
	}
	return strings.Join(out, " + ")
}

func itemKey(it map[string]types.AttributeValue, sch schema.Schema) string {
	s := func(n string) string {
		if v, ok := it[n].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	return s(sch.PartitionKey) + "\x00" + s(sch.SortKey)
}

// toJSON writes an item in DynamoDB JSON.
func toJSON(it map[string]types.AttributeValue) Item {
	out := Item{}
	for k, v := range it {
		out[k] = value(v)
	}
	return out
}

func value(v types.AttributeValue) map[string]any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = value(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			m[k] = value(e)
		}
		return map[string]any{"M": m}
	}
	return map[string]any{"NULL": true}
}
