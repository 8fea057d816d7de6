package schema

import "fmt"

// Primary key attributes. Both are strings; entity prefixes such as USER#
// and ORDER# overload them.
const (
	PartitionKey = "PK"
	SortKey      = "SK"
)

// Common attributes present on every entity.
const (
	EntityType = "EntityType"
	CreatedAt  = "createdAt"
	UpdatedAt  = "updatedAt"
	// TTLAttribute holds a Number of epoch seconds. DynamoDB deletes the item
	// some time after it passes; readers must treat an expired item as absent.
	TTLAttribute = "expiresAt"
)

// Projection says which attributes a secondary index copies.
type Projection string

// Projection types, named as DynamoDB names them.
const (
	ProjectAll      Projection = "ALL"
	ProjectKeysOnly Projection = "KEYS_ONLY"
	ProjectInclude  Projection = "INCLUDE"
)

// AttributeType is a key attribute's scalar type, named as DynamoDB names it.
type AttributeType string

// Key attribute types.
const (
	TypeString AttributeType = "S"
	TypeNumber AttributeType = "N"
	TypeBinary AttributeType = "B"
)

// KeyAttribute is one attribute of an index key and its type.
type KeyAttribute struct {
	Name string
	Type AttributeType
}

// Index describes one global secondary index. Its key is either the single
// string attributes PartitionKey and SortKey (an overloaded index, keyed
// by synthetic strings), or the multi-attribute key PartitionKeys and
// SortKeys (up to 4 HASH and 4 RANGE attributes of the item's own, each
// with its type, in order; DynamoDB's multi-attribute keys of November
// 2025). [Index.HashKeys] and [Index.RangeKeys] give either as a list.
type Index struct {
	Name         string
	PartitionKey string
	SortKey      string
	// PartitionKeys and SortKeys, when set, replace PartitionKey and SortKey.
	PartitionKeys []KeyAttribute
	SortKeys      []KeyAttribute
	Projection    Projection
	// NonKeyAttributes lists the projected attributes when Projection is
	// ProjectInclude.
	NonKeyAttributes []string
	// Sparse indexes hold only the items that carry their key attributes;
	// removing the key attribute takes an item out of the index.
	Sparse bool
}

// GSI1 is the generic overloaded index: each entity type writes its own
// GSI1PK/GSI1SK shapes (orders by status, for example).
var GSI1 = Index{
	Name:         "GSI1",
	PartitionKey: "GSI1PK",
	SortKey:      "GSI1SK",
	Projection:   ProjectAll,
}

// Unprocessed is the sparse index of payments not yet processed. A payment
// carries its keys only while unprocessed; processing REMOVEs them.
var Unprocessed = Index{
	Name:         "Unprocessed",
	PartitionKey: "UnprocessedPK",
	SortKey:      "UnprocessedSK",
	Projection:   ProjectInclude,
	NonKeyAttributes: []string{
		EntityType, "paymentId", "orderId", "userId", "amount", "currency", "status", CreatedAt,
	},
	Sparse: true,
}

// OrdersByStatus is the v2 index of orders by status, which the migration
// orders-by-status-v2 (runtime/migrate/orders) introduces. It is keyed by
// the order's own attributes: HASH status and shard (a small number derived
// from the order id), RANGE createdAt and orderId. So one status spreads
// over as many index partitions as there are shards, where GSI1 puts it on
// one (ORDERSTATUS#<status>). Only orders carry shard, so it is sparse.
var OrdersByStatus = Index{
	Name: "OrdersByStatus",
	PartitionKeys: []KeyAttribute{
		{Name: "status", Type: TypeString}, {Name: "shard", Type: TypeNumber},
	},
	SortKeys: []KeyAttribute{
		{Name: CreatedAt, Type: TypeString}, {Name: "orderId", Type: TypeString},
	},
	Projection: ProjectAll,
	Sparse:     true,
}

// HashKeys is ix's partition key: PartitionKeys, or PartitionKey as a string.
func (ix Index) HashKeys() []KeyAttribute {
	if len(ix.PartitionKeys) > 0 {
		return ix.PartitionKeys
	}
	return []KeyAttribute{{Name: ix.PartitionKey, Type: TypeString}}
}

// RangeKeys is ix's sort key: SortKeys, or SortKey as a string (none when
// both are empty).
func (ix Index) RangeKeys() []KeyAttribute {
	if len(ix.SortKeys) > 0 {
		return ix.SortKeys
	}
	if ix.SortKey == "" {
		return nil
	}
	return []KeyAttribute{{Name: ix.SortKey, Type: TypeString}}
}

// MultiAttribute reports whether ix has a multi-attribute key.
func (ix Index) MultiAttribute() bool { return len(ix.PartitionKeys) > 0 || len(ix.SortKeys) > 0 }

// OrderIndexes says which indexes of orders by status a table has: the
// stages of the migration orders-by-status-v2. CloudFormation adds or
// removes one GSI per stack update, so a table goes from [OrdersV1] to
// [OrdersBoth] (deploy the v2 index, then migrate) to [OrdersV2] (after the
// migration is done, drop GSI1). See docs/migrations.md.
type OrderIndexes string

// The stages.
const (
	OrdersV1   OrderIndexes = "v1"   // GSI1 only
	OrdersBoth OrderIndexes = "both" // GSI1 and OrdersByStatus
	OrdersV2   OrderIndexes = "v2"   // OrdersByStatus only
)

// ParseOrderIndexes parses "v1", "both" or "v2"; "" is [OrdersV1].
func ParseOrderIndexes(s string) (OrderIndexes, error) {
	switch o := OrderIndexes(s); o {
	case "":
		return OrdersV1, nil
	case OrdersV1, OrdersBoth, OrdersV2:
		return o, nil
	}
	return "", fmt.Errorf("schema: order indexes %q, want v1, both or v2", s)
}

// Featured is the sparse index of featured products.
var Featured = Index{
	Name:         "Featured",
	PartitionKey: "FeaturedPK",
	SortKey:      "FeaturedSK",
	Projection:   ProjectAll,
	Sparse:       true,
}

// Indexes lists every global secondary index of [Default], in creation order.
func Indexes() []Index { return Default().Indexes() }

// DefaultTableName is the table name used locally when none is configured.
// Deployed stacks let CloudFormation name the table and pass the name to
// functions through the TABLE_NAME environment variable.
const DefaultTableName = "oncetable"

// TableNameEnv is the environment variable that carries the table name to
// Lambda functions and the local runner.
const TableNameEnv = "TABLE_NAME"

// Schema is a table's key attribute names, entity-type and TTL attributes
// and secondary indexes as a value, given to the store and the flows at
// construction. The constants and variables above are [Default]'s values.
// Its zero fields take Default's.
type Schema struct {
	PartitionKey string
	SortKey      string
	EntityType   string
	TTLAttribute string
	GSI1         Index
	Unprocessed  Index
	Featured     Index
	// OrdersByStatus is the v2 index of orders; Orders says whether the
	// table has it, GSI1 or both.
	OrdersByStatus Index
	Orders         OrderIndexes
}

// Default is oncetable's own schema.
func Default() Schema {
	return Schema{PartitionKey: PartitionKey, SortKey: SortKey, EntityType: EntityType, TTLAttribute: TTLAttribute,
		GSI1: GSI1, Unprocessed: Unprocessed, Featured: Featured, OrdersByStatus: OrdersByStatus, Orders: OrdersV1}
}

// WithDefaults fills s's empty fields from [Default].
func (s Schema) WithDefaults() Schema {
	d := Default()
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&s.PartitionKey, d.PartitionKey}, {&s.SortKey, d.SortKey}, {&s.EntityType, d.EntityType}, {&s.TTLAttribute, d.TTLAttribute},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	for _, ix := range []struct {
		v   *Index
		def Index
	}{{&s.GSI1, d.GSI1}, {&s.Unprocessed, d.Unprocessed}, {&s.Featured, d.Featured}, {&s.OrdersByStatus, d.OrdersByStatus}} {
		if ix.v.Name == "" {
			*ix.v = ix.def
		}
	}
	if s.Orders == "" {
		s.Orders = OrdersV1
	}
	return s
}

// Indexes lists s's global secondary indexes, in creation order: GSI1
// unless Orders is [OrdersV2], Unprocessed, Featured, and OrdersByStatus
// when Orders is [OrdersBoth] or [OrdersV2].
func (s Schema) Indexes() []Index {
	s = s.WithDefaults()
	var out []Index
	if s.Orders != OrdersV2 {
		out = append(out, s.GSI1)
	}
	out = append(out, s.Unprocessed, s.Featured)
	if s.Orders == OrdersBoth || s.Orders == OrdersV2 {
		out = append(out, s.OrdersByStatus)
	}
	return out
}

// Renames maps each attribute name of [Default] that s names differently
// to s's name: the key, entity-type and TTL attributes and the index keys.
// The entities' struct tags use Default's names; the store renames an
// item with this map after marshalling and back before unmarshalling.
func (s Schema) Renames() map[string]string {
	s = s.WithDefaults()
	d := Default()
	out := map[string]string{}
	for _, p := range [][2]string{
		{d.PartitionKey, s.PartitionKey}, {d.SortKey, s.SortKey}, {d.EntityType, s.EntityType}, {d.TTLAttribute, s.TTLAttribute},
		{d.GSI1.PartitionKey, s.GSI1.PartitionKey}, {d.GSI1.SortKey, s.GSI1.SortKey},
		{d.Unprocessed.PartitionKey, s.Unprocessed.PartitionKey}, {d.Unprocessed.SortKey, s.Unprocessed.SortKey},
		{d.Featured.PartitionKey, s.Featured.PartitionKey}, {d.Featured.SortKey, s.Featured.SortKey},
	} {
		if p[0] != p[1] {
			out[p[0]] = p[1]
		}
	}
	return out
}
