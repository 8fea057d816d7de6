package localrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// LeaseTableSuffix names the local lease table: <table>-leases.
const LeaseTableSuffix = "-leases"

// LocalCells is the number of cells of a multi-Region local run.
const LocalCells = 64

// RegionAPI is the API of one Region of a multi-Region local run.
type RegionAPI struct {
	Region string
	URL    string
}

// globalTable makes table a global table replicated from the first of
// regions to the others (its stream, NEW_AND_OLD_IMAGES, is on already:
// startEvents enables it), creates the lease table in the first Region,
// and gives every cell its first home there. The lease table stands in
// for the MRSC table of a deployment: one table in one Region that every
// Region's API reads, which is as linearizable, on one machine.
func globalTable(ctx context.Context, eng *ddblocal.Engine, table string, regions []string) (*home.Leases, error) {
	first := eng.Region(regions[0]).Client()
	desc, err := first.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, r := range desc.Table.Replicas {
		have[aws.ToString(r.RegionName)] = true
	}
	for _, r := range regions[1:] {
		if have[r] {
			continue
		}
		if _, err := first.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}}}); err != nil {
			return nil, fmt.Errorf("localrun: replica of %s in %s: %w", table, r, err)
		}
	}
	leaseTable := table + LeaseTableSuffix
	_, err = first.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(leaseTable), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(schema.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(schema.SortKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(schema.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(schema.SortKey), KeyType: types.KeyTypeRange}}})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return nil, fmt.Errorf("localrun: lease table: %w", err)
	}
	leases := home.NewLeases(first, leaseTable)
	for i := range LocalCells {
		if _, err := home.Assign(ctx, leases, first, table, fmt.Sprintf("c%03d", i), regions[0]); err != nil {
			return nil, fmt.Errorf("localrun: first home of cell c%03d: %w", i, err)
		}
	}
	return leases, nil
}

// nextAddr is addr with its port moved on by i (port 0 stays 0: the
// system picks).
func nextAddr(addr string, i int) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", err
	}
	if p == 0 {
		return addr, nil
	}
	return net.JoinHostPort(host, strconv.Itoa(p+i)), nil
}

// regionHomes is the httpapi.Homes of region in a local run.
func regionHomes(region, table string, leases *home.Leases, peers map[string]string) *httpapi.Homes {
	return &httpapi.Homes{Fencer: home.NewFencer(region, table, LocalCells, leases), Peers: peers, RetryAfter: leases.TTL()}
}

// Failover modes of FailoverOptions.Mode.
const (
	FailoverPlanned  = "planned"
	FailoverFreeze   = "freeze"
	FailoverTakeover = "takeover"
)

// FailoverOptions say which cell of a running multi-Region local run to
// move, and how.
type FailoverOptions struct {
	// Endpoint is the runner's DynamoDB endpoint (its -dynamodb-addr).
	Endpoint string
	// Table is the money table; its lease table is Table+LeaseTableSuffix.
	Table string
	// Regions are the run's Regions, the first holding the lease table.
	Regions []string
	// Cell is the cell to move, or, when empty, the cell of User.
	Cell, User string
	// To is the Region the cell moves to.
	To string
	// Mode is FailoverPlanned, FailoverFreeze or FailoverTakeover.
	Mode string
	// Apply makes the change; without it Failover says what it would do.
	Apply bool
	// Out receives the report.
	Out io.Writer
}

// Failover drives a failover of one cell of a local run: planned (the
// lease moves, the old home is stopped, the drain proof compares the
// cell's items in both Regions, its users', orders' and records'
// partitions included, the new home claims), freeze (nothing
// changes: the cell's requests get 503 home-unavailable while its home
// does not answer) or takeover (the next epoch goes to To once the old
// lease has run out by the margin). Without Apply it reads the lease and
// runs the drain proof, and changes nothing.
func Failover(ctx context.Context, o FailoverOptions) error {
	switch o.Mode {
	case FailoverPlanned, FailoverFreeze, FailoverTakeover:
	default:
		return fmt.Errorf("localrun: failover mode %q: want planned, freeze or takeover", o.Mode)
	}
	if len(o.Regions) < 2 {
		return fmt.Errorf("localrun: failover needs the Regions of the run (-regions us-east-1,eu-west-1)")
	}
	if o.Cell == "" {
		if o.User == "" {
			return fmt.Errorf("localrun: failover needs a cell (CELL=c012) or a user (FAILOVER_USER=alice)")
		}
		o.Cell = home.CellOf(o.User, LocalCells)
	}
	dbs := map[string]home.DB{}
	for _, r := range o.Regions {
		dbs[r] = retry.NewClient(aws.Config{Region: r, BaseEndpoint: aws.String(o.Endpoint),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
			})})
	}
	if dbs[o.To] == nil {
		return fmt.Errorf("localrun: failover to %q: not one of the run's Regions %v", o.To, o.Regions)
	}
	leases := home.NewLeases(dbs[o.Regions[0]], o.Table+LeaseTableSuffix)
	l, err := leases.Get(ctx, o.Cell)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "cell %s: home %s at epoch %d, lease until %s\n", o.Cell, l.Region, l.Epoch, l.Expires.Format("15:04:05.000"))
	if l.Region == o.To {
		return fmt.Errorf("localrun: cell %s is already homed in %s", o.Cell, o.To)
	}
	fo := &home.Failover{Table: o.Table, Leases: leases, Regions: dbs, Attempts: 25,
		Wait: func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
				return nil
			}
		}}
	switch o.Mode {
	case FailoverPlanned:
		if !o.Apply {
			p, err := home.DrainProof(ctx, dbs[l.Region], dbs[o.To], o.Table, o.Cell)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.Out, "dry run: would move the lease to %s at epoch %d, stop %s, prove the cell's items identical in both (now: %d items in %d partitions, %d partitions differing), claim in %s\n",
				o.To, l.Epoch+1, l.Region, p.Items, p.Partitions, len(p.Differing), o.To)
			return nil
		}
		rep, err := fo.Planned(ctx, o.Cell, o.To)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "planned failover of cell %s: %s -> %s at epoch %d; %d items in %d partitions proven replicated in %d drain proofs\n",
			o.Cell, rep.From, rep.To, rep.Epoch, rep.Items, rep.Partitions, rep.Proofs)
	case FailoverFreeze:
		fmt.Fprintf(o.Out, "freeze: nothing to change; while %s does not answer, the cell's money requests get 503 home-unavailable with Retry-After %s, and resume when it answers\n",
			l.Region, leases.TTL())
	case FailoverTakeover:
		if !o.Apply {
			fmt.Fprintf(o.Out, "dry run: would give the cell to %s at epoch %d once the lease has run out by the margin (%s after %s)\n",
				o.To, l.Epoch+1, leases.Margin(), l.Expires.Format("15:04:05.000"))
			return nil
		}
		nl, err := fo.Takeover(ctx, o.Cell, o.To)
		if err != nil {
			return fmt.Errorf("takeover of cell %s: %w (the lease runs until %s, plus the margin %s)", o.Cell, err, l.Expires.Format("15:04:05.000"), leases.Margin())
		}
		fmt.Fprintf(o.Out, "takeover of cell %s: %s at epoch %d\n", o.Cell, nl.Region, nl.Epoch)
	}
	return nil
}
