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
