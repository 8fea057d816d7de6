package home

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// DB is what the package needs of a DynamoDB client of one Region.
type DB interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// FenceItem is the name of the fence's ConditionCheck in a transaction
// (txn.Items), by which its cancellation reason is read.
const FenceItem = "fence"

// ownerSK is the sort key of a cell's ownership item.
const ownerSK = "OWNER"

// Attribute names of the ownership item and of a lease.
const (
	attrHome    = "home"
	attrEpoch   = "epoch"
	attrExpires = "expires"
	// attrClaimedAt is when the home claimed the epoch, in Unix
	// milliseconds of its clock.
	attrClaimedAt = "claimedAt"
)

// CellOf hashes a user into one of cells cells ("c000" to "c<cells-1>").
// The number of cells is fixed for a deployment: changing it moves users
// between cells, which is a migration, not a failover.
func CellOf(user string, cells int) string {
	h := fnv.New32a()
	h.Write([]byte(user))
	return fmt.Sprintf("c%03d", h.Sum32()%uint32(cells))
}

// PK is the partition key of every item of a cell.
func PK(cell string) string { return "CELL#" + cell }

// OwnerKey is the key of a cell's ownership item in the money table.
func OwnerKey(cell string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.PartitionKey: &types.AttributeValueMemberS{Value: PK(cell)},
		schema.SortKey:      &types.AttributeValueMemberS{Value: ownerSK},
	}
}

// Ownership is a cell's home Region and epoch, as the ownership item in one
// Region's replica has it.
type Ownership struct {
	Cell   string
	Region string
	Epoch  int64
	// ClaimedAt is when Region claimed the epoch, by its clock; zero for a
	// stopped cell.
	ClaimedAt time.Time
}

// ReadOwnership reads a cell's ownership item in db's replica, strongly
// consistent; a cell with none has the zero Ownership (no Region, epoch 0).
func ReadOwnership(ctx context.Context, db DB, table, cell string) (Ownership, error) {
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: OwnerKey(cell), ConsistentRead: &consistent})
	if err != nil {
		return Ownership{}, fmt.Errorf("home: ownership of cell %s: %w", cell, err)
	}
	return ownershipOf(cell, out.Item), nil
}

var consistent = true

// ErrNotOwner is the sentinel of *NotOwnerError.
var ErrNotOwner = errors.New("home: not the cell's owner")

// NotOwnerError is a money transaction refused by the fence: the replica
// where it ran does not name its Region at its epoch.
type NotOwnerError struct {
	Cell   string
	Region string // where the transaction ran
	Epoch  int64  // the writer's epoch
	// Owner is what the replica's ownership item says, when it was
	// returned; zero when the item is missing.
	Owner Ownership
	// Cancelled says the fence's ConditionCheck cancelled the transaction
	// (the replica changed owner while the request ran), not the lease
	// read before it.
	Cancelled bool
}

func (e *NotOwnerError) Error() string {
	return fmt.Sprintf("home: cell %s: %s at epoch %d is not the owner (the replica names %q at epoch %d)",
		e.Cell, e.Region, e.Epoch, e.Owner.Region, e.Owner.Epoch)
}

// Is makes errors.Is(err, ErrNotOwner) true.
func (e *NotOwnerError) Is(target error) bool { return target == ErrNotOwner }

// ErrSplitHomes is the sentinel of *SplitHomesError.
var ErrSplitHomes = errors.New("home: the users' cells are homed in different Regions")

// SplitHomesError is a money transaction between users whose cells are
// homed in different Regions. A transaction commits in one Region only,
// and a fenced one only where every cell it writes is homed, so it is
// refused before anything is written, in every Region, until an operator
// homes both cells in one Region (Failover.Planned).
type SplitHomesError struct {
	// Homes maps each cell of the transaction to its home Region.
	Homes map[string]string
}

func (e *SplitHomesError) Error() string {
	cells := slices.Sorted(maps.Keys(e.Homes))
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprintf("cell %s in %s", c, e.Homes[c])
	}
	return fmt.Sprintf("%s (%s): one transaction cannot write in two Regions", ErrSplitHomes, strings.Join(parts, ", "))
}

// Is makes errors.Is(err, ErrSplitHomes) true.
func (e *SplitHomesError) Is(target error) bool { return target == ErrSplitHomes }

// splitHomes is the *SplitHomesError of homes (cell to home Region) when
// they name more than one Region, nil otherwise.
func splitHomes(homes map[string]string) error {
	regions := map[string]bool{}
	for _, r := range homes {
		regions[r] = true
	}
	if len(regions) < 2 {
		return nil
	}
	return &SplitHomesError{Homes: homes}
}

// ErrLeaseExpired is returned by Lease.Check when the lease is within its
// skew margin of its end: the writer must renew before it writes.
var ErrLeaseExpired = errors.New("home: lease expired or within its skew margin")

// ErrFrozen is the sentinel of *FrozenError.
var ErrFrozen = errors.New("home: cell frozen while its home Region is unreachable")

// FrozenError is a money write refused because the cell's home Region is
// unreachable and the environment fails over in freeze mode: the caller
// answers 503 with Retry-After.
type FrozenError struct {
	Cell       string
	Home       string
	RetryAfter time.Duration
}

func (e *FrozenError) Error() string {
	if e.Home == "" || e.Home == noRegion {
		return fmt.Sprintf("home: cell %s is between two homes while a failover runs; retry after %s", e.Cell, e.RetryAfter)
	}
	return fmt.Sprintf("home: cell %s is frozen: its home Region %s is unreachable; retry after %s", e.Cell, e.Home, e.RetryAfter)
}

// Is makes errors.Is(err, ErrFrozen) true.
func (e *FrozenError) Is(target error) bool { return target == ErrFrozen }
