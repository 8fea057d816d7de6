package regions

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/runtime/schema"
)

// LeaseStoreProps configures the lease table. Replicas and Witness are
// required; every other field's zero value is its default.
type LeaseStoreProps struct {
	// TableName fixes the physical name, which every Region's functions
	// read (config.Homes.LeaseTable). Default: CloudFormation names it.
	TableName string
	// Replicas are the table's Regions besides the stack's: two (three
	// replicas) or one with Witness. MRSC takes Regions of one Region set.
	Replicas []string
	// Witness is the Region of the witness of a two-replica table.
	Witness string
	// RemovalPolicy of the table and its replicas. Default:
	// RETAIN_ON_UPDATE_OR_DELETE (kept, but not left behind by a failed
	// first create).
	RemovalPolicy awscdk.RemovalPolicy
	// DisableDeletionProtection turns deletion protection off. Default:
	// false (protected).
	DisableDeletionProtection bool
}

// LeaseStore is the lease table.
type LeaseStore struct {
	Construct constructs.Construct
	// Table is the MRSC TableV2: grant the functions read and write on it.
	Table awsdynamodb.TableV2
}

// NewLeaseStore adds the lease table to scope, whose stack's Region is
// one of its replicas. It panics on props that MRSC refuses.
//
// MRSC, not MREC: a lease must be linearizable across Regions, so that
// two Regions never both win the next epoch; MRSC serves single-item
// conditional writes (all runtime/home's lease store uses) and refuses a
// concurrent write from another Region with
// ReplicatedWriteConflictException, after which the condition decides.
// It has no TTL and no transactions, which the lease store needs neither
// of. Two replicas and a witness cost one full replica less than three
// and keep the quorum when either replica's Region is lost.
func NewLeaseStore(scope constructs.Construct, id string, props *LeaseStoreProps) *LeaseStore {
	if props == nil {
		props = &LeaseStoreProps{}
	}
	n := len(props.Replicas)
	if !(n == 2 && props.Witness == "") && !(n == 1 && props.Witness != "") {
		panic("regions: a lease store needs two replicas besides the stack's Region, or one and a witness")
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	removal := props.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
	}
	protect := jsii.Bool(!props.DisableDeletionProtection)
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)}
	replicas := make([]*awsdynamodb.ReplicaTableProps, 0, n)
	for _, r := range props.Replicas {
		replicas = append(replicas, &awsdynamodb.ReplicaTableProps{Region: jsii.String(r), DeletionProtection: protect,
			PointInTimeRecoverySpecification: pitr})
	}
	tp := &awsdynamodb.TablePropsV2{
		PartitionKey:                     &awsdynamodb.Attribute{Name: jsii.String(schema.PartitionKey), Type: awsdynamodb.AttributeType_STRING},
		SortKey:                          &awsdynamodb.Attribute{Name: jsii.String(schema.SortKey), Type: awsdynamodb.AttributeType_STRING},
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_STRONG,
		Replicas:                         &replicas,
		DeletionProtection:               protect,
		RemovalPolicy:                    removal,
		PointInTimeRecoverySpecification: pitr,
	}
	if props.Witness != "" {
		tp.WitnessRegion = jsii.String(props.Witness)
	}
	if props.TableName != "" {
		tp.TableName = jsii.String(props.TableName)
	}
	return &LeaseStore{Construct: c, Table: awsdynamodb.NewTableV2(c, jsii.String("Table"), tp)}
}
