package stacks

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/regions"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// TableName is the physical name of an environment's table when it has
// replicas: every Region's functions name it (OnceTable-<env>).
func TableName(env string) string { return StackName(env) }

// LeaseTableName is the name of an environment's lease table.
func LeaseTableName(env string) string { return StackName(env) + "-leases" }

// KeyStackName is the stack of a replica Region's table key:
// OnceTable-<env>-<region>-key, deployed before the environment's stack.
func KeyStackName(env, region string) string { return StackName(env) + "-" + region + "-key" }

// TableKeyAlias is the alias of the table's key in a replica's Region.
func TableKeyAlias(env string) string { return "alias/oncetable-" + env + "-table" }

// KeyStack holds a replica Region's customer-managed key of the table.
type KeyStack struct {
	awscdk.Stack
	Key awskms.Key
}

// Global is what a stack of an environment with replicas adds.
type Global struct {
	Leases *regions.LeaseStore
	Watch  *regions.Watch
	// Keys are the replica Regions' key stacks, by Region, when the table
	// has a customer-managed key.
	Keys map[string]*KeyStack
}

// replicaKeys adds the key stack of each replica Region, which the
// environment's stack depends on, and returns the alias ARNs the table's
// replicas use.
func replicaKeys(scope constructs.Construct, stack awscdk.Stack, cfg envconfig.Config, env *awscdk.Environment) (map[string]*KeyStack, map[string]string) {
	if cfg.Regions == nil || !cfg.CustomerManagedKey {
		return nil, nil
	}
	stacks, arns := map[string]*KeyStack{}, map[string]string{}
	for _, r := range cfg.Regions.Replicas {
		e := &awscdk.Environment{Region: jsii.String(r)}
		if env != nil {
			e.Account = env.Account
		}
		ks := awscdk.NewStack(scope, jsii.String(KeyStackName(cfg.Name, r)), &awscdk.StackProps{Env: e,
			Description: jsii.String("oncetable " + cfg.Name + ": the table's customer-managed key in " + r + ", its replica's")})
		key := awskms.NewKey(ks, jsii.String("TableKey"), &awskms.KeyProps{
			Description: jsii.String("Encrypts the " + r + " replica of the oncetable " + cfg.Name + " table"),
			Alias:       jsii.String(TableKeyAlias(cfg.Name)), EnableKeyRotation: jsii.Bool(true), RemovalPolicy: removalPolicy(cfg),
		})
		stacks[r] = &KeyStack{Stack: ks, Key: key}
		stack.AddStackDependency(ks, jsii.String("the table's replica in "+r+" is encrypted with this key"))
		arns[r] = *stack.FormatArn(&awscdk.ArnComponents{Service: jsii.String("kms"), Region: jsii.String(r),
			Resource: jsii.String(TableKeyAlias(cfg.Name)), ArnFormat: awscdk.ArnFormat_NO_RESOURCE_NAME})
	}
	return stacks, arns
}

// withReplicas makes p the table of an environment with replicas.
func withReplicas(p *singletable.TableProps, cfg envconfig.Config, keys map[string]string) {
	if cfg.Regions == nil || p == nil {
		return
	}
	p.TableName = TableName(cfg.Name)
	p.Replicas = cfg.Regions.Replicas
	p.ReplicaKeyARNs = keys
}

// addGlobal adds the lease store, its backup and the environment's own
// Region's watch to s.
func addGlobal(s *OnceTableStack, keys map[string]*KeyStack) {
	cfg := s.Config
	r := cfg.Regions
	if r == nil {
		return
	}
	s.Global = &Global{Keys: keys}
	var others []string
	for _, reg := range r.Leases.Regions {
		if reg != cfg.Region {
			others = append(others, reg)
		}
	}
	s.Global.Leases = regions.NewLeaseStore(s.Stack, "Leases", &regions.LeaseStoreProps{
		TableName: LeaseTableName(cfg.Name), Replicas: others, Witness: r.Leases.Witness,
		RemovalPolicy: removalPolicy(cfg), DisableDeletionProtection: !cfg.DeletionProtection,
	})
	s.Backup.Select("Leases", s.Global.Leases.Table)
	s.Global.Watch = regions.NewWatch(s.Stack, "RegionWatch", &regions.WatchProps{
		Table: s.Table.Table, StreamARN: s.Table.Table.TableStreamArn(), TableKey: s.Table.Key,
		Homes: cfg.Homes(cfg.Region, LeaseTableName(cfg.Name)), ReplicaRegions: slices.Clone(r.Replicas),
		ReplicationLatency: msDuration(r.ReplicationLatencyAlarmMs), LogRetentionDays: cfg.API.LogRetentionDays,
		DestroyLogs: cfg.RemovalPolicy == envconfig.Destroy, Monitor: s.Operations,
	})
}
