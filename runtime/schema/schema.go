package schema

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

// Index describes one global secondary index. Both keys are strings.
type Index struct {
	Name         string
	PartitionKey string
	SortKey      string
	Projection   Projection
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

// Featured is the sparse index of featured products.
var Featured = Index{
	Name:         "Featured",
	PartitionKey: "FeaturedPK",
	SortKey:      "FeaturedSK",
	Projection:   ProjectAll,
	Sparse:       true,
}

// Indexes lists every global secondary index of the table, in creation order.
func Indexes() []Index { return []Index{GSI1, Unprocessed, Featured} }

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
}

// Default is oncetable's own schema.
func Default() Schema {
	return Schema{PartitionKey: PartitionKey, SortKey: SortKey, EntityType: EntityType, TTLAttribute: TTLAttribute,
		GSI1: GSI1, Unprocessed: Unprocessed, Featured: Featured}
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
	}{{&s.GSI1, d.GSI1}, {&s.Unprocessed, d.Unprocessed}, {&s.Featured, d.Featured}} {
		if ix.v.Name == "" {
			*ix.v = ix.def
		}
	}
	return s
}

// Indexes lists s's global secondary indexes, in creation order.
func (s Schema) Indexes() []Index { return []Index{s.GSI1, s.Unprocessed, s.Featured} }

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
