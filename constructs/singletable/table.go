package singletable

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/runtime/schema"
)

// TableProps configures the table. The zero value of each field is its
// production default, so nil props and &TableProps{} are the same.
type TableProps struct {
	// TableName fixes the physical name. Default: CloudFormation names the
	// table, and the name reaches code through schema.TableNameEnv.
	TableName string

	// PITRRecoveryPeriodDays is the point-in-time recovery window, 1 to 35
	// days. Default: 35. PITR itself is always on.
	PITRRecoveryPeriodDays int

	// AllowDestroy sets the removal policy to DESTROY and turns deletion
	// protection off, for throw-away environments. Default: false, which
	// means RETAIN_ON_UPDATE_OR_DELETE and deletion protection on.
	AllowDestroy bool

	// DisableDeletionProtection turns deletion protection off while keeping
	// RETAIN. Default: false (protected).
	DisableDeletionProtection bool

	// EncryptionKey encrypts the table with this customer-managed KMS key.
	// Default: nil, which means the AWS-owned key unless CustomerManagedKey.
	EncryptionKey awskms.IKey

	// CustomerManagedKey creates a customer-managed KMS key with rotation for
	// the table when EncryptionKey is nil. Default: false (AWS-owned key).
	CustomerManagedKey bool

	// Provisioned switches from on-demand to provisioned capacity with auto
	// scaling. Default: nil, which means on-demand.
	Provisioned *ProvisionedCapacity

	// MaxReadRequestUnits and MaxWriteRequestUnits cap on-demand
	// throughput per second, of the table and of each index: a runaway
	// client is throttled (MaxOnDemandThroughputThrottleEvents) instead of
	// running up the bill. Default: 0, no cap.
	MaxReadRequestUnits, MaxWriteRequestUnits int

	// ContributorInsights turns on CloudWatch Contributor Insights for the
	// table and its indexes. Default: false.
	ContributorInsights bool

	// Stream turns on a DynamoDB stream with new and old images. Default:
	// false.
	Stream bool

	// Replicas are the table's other Regions: a global table with
	// multi-Region eventual consistency, each replica with the table's
	// point-in-time recovery, deletion protection and Contributor
	// Insights, and the stream on (NEW_AND_OLD_IMAGES) whatever Stream
	// says. Default: none, one Region.
	Replicas []string

	// ReplicaKeyARNs gives each replica's Region its customer-managed key
	// (a key or alias ARN in that Region) when the table has one
	// (EncryptionKey or CustomerManagedKey); every replica needs one.
	// Default: none.
	ReplicaKeyARNs map[string]string

	// Orders is the stage of the orders-by-status migration: which of GSI1
	// and OrdersByStatus the table has. Default: the zero value, v1 (GSI1
	// only, 4 shards). Move one stage per deploy: v1 -> both -> v2.
	Orders OrderIndexes
}

// ProvisionedCapacity bounds auto scaling of reads and writes; the indexes
// inherit the table's settings.
type ProvisionedCapacity struct {
	MinRead, MaxRead   int
	MinWrite, MaxWrite int
	// TargetUtilizationPercent defaults to 70.
	TargetUtilizationPercent int
}

// Table is the single table.
type Table struct {
	// Construct is the scope holding every resource below. It is a field, not
	// embedded: jsii rejects a Go struct that embeds a construct as a scope.
	Construct constructs.Construct
	// Table is the underlying TableV2: grant access and read metrics from it.
	Table awsdynamodb.TableV2
	// Key is the customer-managed key, or nil when the table uses the
	// AWS-owned key.
	Key awskms.IKey
	// Orders is the order index stage the table was built at, with its
	// defaults filled: give it to the functions (paymentsapi.Props.Orders).
	Orders OrderIndexes
}

// DefaultPITRRecoveryPeriodDays is the longest window DynamoDB offers.
const DefaultPITRRecoveryPeriodDays = 35

// NewTable adds the single table to scope.
func NewTable(scope constructs.Construct, id string, props *TableProps) *Table {
	if props == nil {
		props = &TableProps{}
	}
	if err := props.Orders.Validate(); err != nil {
		panic(err.Error())
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	t := &Table{Construct: c, Key: props.EncryptionKey, Orders: props.Orders.WithDefaults()}

	days := props.PITRRecoveryPeriodDays
	if days == 0 {
		days = DefaultPITRRecoveryPeriodDays
	}
	removal := awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
	protect := !props.DisableDeletionProtection
	if props.AllowDestroy {
		removal, protect = awscdk.RemovalPolicy_DESTROY, false
	}

	encryption := awsdynamodb.TableEncryptionV2_DynamoOwnedKey()
	if t.Key == nil && props.CustomerManagedKey {
		t.Key = awskms.NewKey(c, jsii.String("Key"), &awskms.KeyProps{
			Description:       jsii.String("Encrypts the oncetable single table"),
			EnableKeyRotation: jsii.Bool(true),
			RemovalPolicy:     removal,
		})
	}
	if t.Key != nil {
		var replicaKeys *map[string]*string
		if len(props.Replicas) > 0 {
			m := map[string]*string{}
			for _, r := range props.Replicas {
				arn, ok := props.ReplicaKeyARNs[r]
				if !ok {
					panic("singletable: replica " + r + " needs a key in ReplicaKeyARNs: the table has a customer-managed key")
				}
				m[r] = jsii.String(arn)
			}
			replicaKeys = &m
		}
		encryption = awsdynamodb.TableEncryptionV2_CustomerManagedKey(t.Key, replicaKeys)
	}

	var stream awsdynamodb.StreamViewType
	if props.Stream || len(props.Replicas) > 0 {
		stream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	}
	pitr := &awsdynamodb.PointInTimeRecoverySpecification{
		PointInTimeRecoveryEnabled: jsii.Bool(true),
		RecoveryPeriodInDays:       jsii.Number(days),
	}
	insights := &awsdynamodb.ContributorInsightsSpecification{Enabled: jsii.Bool(props.ContributorInsights)}
	var replicas *[]*awsdynamodb.ReplicaTableProps
	if len(props.Replicas) > 0 {
		rs := make([]*awsdynamodb.ReplicaTableProps, 0, len(props.Replicas))
		for _, r := range props.Replicas {
			rs = append(rs, &awsdynamodb.ReplicaTableProps{Region: jsii.String(r), DeletionProtection: jsii.Bool(protect),
				PointInTimeRecoverySpecification: pitr, ContributorInsightsSpecification: insights})
		}
		replicas = &rs
	}

	var tableName *string
	if props.TableName != "" {
		tableName = jsii.String(props.TableName)
	}

	t.Table = awsdynamodb.NewTableV2(c, jsii.String("Table"), &awsdynamodb.TablePropsV2{
		TableName:                        tableName,
		PartitionKey:                     stringKey(schema.PartitionKey),
		SortKey:                          stringKey(schema.SortKey),
		GlobalSecondaryIndexes:           globalSecondaryIndexes(props),
		TimeToLiveAttribute:              jsii.String(schema.TTLAttribute),
		Billing:                          billing(props),
		Encryption:                       encryption,
		DeletionProtection:               jsii.Bool(protect),
		RemovalPolicy:                    removal,
		PointInTimeRecoverySpecification: pitr,
		ContributorInsightsSpecification: insights,
		DynamoStream:                     stream,
		Replicas:                         replicas,
	})
	return t
}

// IndexNames lists the table's global secondary index names at its order
// index stage, in creation order, for alarms
// (alarms.TableAlarmsProps.IndexNames) and dashboards.
func (t *Table) IndexNames() []string { return t.Orders.IndexNames() }

func stringKey(name string) *awsdynamodb.Attribute {
	return &awsdynamodb.Attribute{Name: jsii.String(name), Type: awsdynamodb.AttributeType_STRING}
}

// attributeTypes maps runtime/schema's key attribute types to the CDK's.
var attributeTypes = map[schema.AttributeType]awsdynamodb.AttributeType{
	schema.TypeString: awsdynamodb.AttributeType_STRING,
	schema.TypeNumber: awsdynamodb.AttributeType_NUMBER,
	schema.TypeBinary: awsdynamodb.AttributeType_BINARY,
}

func attributes(index string, keys []schema.KeyAttribute) *[]*awsdynamodb.Attribute {
	out := make([]*awsdynamodb.Attribute, 0, len(keys))
	for _, k := range keys {
		typ, ok := attributeTypes[k.Type]
		if !ok {
			panic(fmt.Sprintf("singletable: runtime/schema index %s: key attribute %s has unknown type %q", index, k.Name, k.Type))
		}
		out = append(out, &awsdynamodb.Attribute{Name: jsii.String(k.Name), Type: typ})
	}
	return &out
}

// indexKeys sets gsi's key: PartitionKeys and SortKeys for a multi-attribute
// key (in schema order, which is the key's order), PartitionKey and SortKey
// for a single-attribute one.
func indexKeys(gsi *awsdynamodb.GlobalSecondaryIndexPropsV2, ix schema.Index) {
	hash, sort := attributes(ix.Name, ix.HashKeys()), attributes(ix.Name, ix.RangeKeys())
	if !ix.MultiAttribute() {
		gsi.PartitionKey = (*hash)[0]
		if len(*sort) > 0 {
			gsi.SortKey = (*sort)[0]
		}
		return
	}
	gsi.PartitionKeys = hash
	if len(*sort) > 0 {
		gsi.SortKeys = sort
	}
}

func globalSecondaryIndexes(props *TableProps) *[]*awsdynamodb.GlobalSecondaryIndexPropsV2 {
	var out []*awsdynamodb.GlobalSecondaryIndexPropsV2
	for _, ix := range props.Orders.Indexes() {
		gsi := &awsdynamodb.GlobalSecondaryIndexPropsV2{IndexName: jsii.String(ix.Name)}
		indexKeys(gsi, ix)
		if props.Provisioned == nil {
			gsi.MaxReadRequestUnits = units(props.MaxReadRequestUnits)
			gsi.MaxWriteRequestUnits = units(props.MaxWriteRequestUnits)
		}
		switch ix.Projection {
		case schema.ProjectAll:
			gsi.ProjectionType = awsdynamodb.ProjectionType_ALL
		case schema.ProjectKeysOnly:
			gsi.ProjectionType = awsdynamodb.ProjectionType_KEYS_ONLY
		case schema.ProjectInclude:
			gsi.ProjectionType = awsdynamodb.ProjectionType_INCLUDE
			gsi.NonKeyAttributes = jsii.Strings(ix.NonKeyAttributes...)
		default:
			panic("singletable: runtime/schema index " + ix.Name + " has unknown projection " + string(ix.Projection))
		}
		out = append(out, gsi)
	}
	return &out
}

// units is an optional on-demand maximum: nil for 0 (no cap).
func units(n int) *float64 {
	if n <= 0 {
		return nil
	}
	return jsii.Number(float64(n))
}

func billing(props *TableProps) awsdynamodb.Billing {
	p := props.Provisioned
	if p == nil {
		if props.MaxReadRequestUnits == 0 && props.MaxWriteRequestUnits == 0 {
			return awsdynamodb.Billing_OnDemand(nil)
		}
		return awsdynamodb.Billing_OnDemand(&awsdynamodb.MaxThroughputProps{
			MaxReadRequestUnits:  units(props.MaxReadRequestUnits),
			MaxWriteRequestUnits: units(props.MaxWriteRequestUnits),
		})
	}
	target := p.TargetUtilizationPercent
	if target == 0 {
		target = 70
	}
	scaled := func(lo, hi int) awsdynamodb.Capacity {
		return awsdynamodb.Capacity_Autoscaled(&awsdynamodb.AutoscaledCapacityOptions{
			MinCapacity:              jsii.Number(lo),
			MaxCapacity:              jsii.Number(hi),
			TargetUtilizationPercent: jsii.Number(target),
		})
	}
	return awsdynamodb.Billing_Provisioned(&awsdynamodb.ThroughputProps{
		ReadCapacity:  scaled(p.MinRead, p.MaxRead),
		WriteCapacity: scaled(p.MinWrite, p.MaxWrite),
	})
}
