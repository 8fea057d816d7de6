package stacks

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// OnceTableStackProps carries the environment's settings. StackProps.Env is
// filled from Config when left nil.
type OnceTableStackProps struct {
	awscdk.StackProps
	Config envconfig.Config
}

// OnceTableStack is one environment of oncetable.
type OnceTableStack struct {
	awscdk.Stack
	Table *singletable.Table
}

// StackName is the stack name of an environment: OnceTable-<env>.
func StackName(env string) string { return "OnceTable-" + env }

// NewOnceTableStack adds one environment's stack to scope. nil props give
// every construct its production defaults.
func NewOnceTableStack(scope constructs.Construct, id string, props *OnceTableStackProps) *OnceTableStack {
	if props == nil {
		props = &OnceTableStackProps{}
	}
	sp := props.StackProps
	cfg := props.Config
	if sp.Env == nil && cfg.Region != "" {
		sp.Env = &awscdk.Environment{Region: jsii.String(cfg.Region)}
		if cfg.Account != "" {
			sp.Env.Account = jsii.String(cfg.Account)
		}
	}
	stack := awscdk.NewStack(scope, jsii.String(id), &sp)
	s := &OnceTableStack{Stack: stack}

	s.Table = singletable.NewTable(stack, "Data", tableProps(cfg))

	// Compute (issue 5): the Lambda functions and the HTTP API construct are
	// added here. They get s.Table.Table (grant access, TABLE_NAME env var)
	// and add their alarms and widgets to the operations construct.

	return s
}

func tableProps(cfg envconfig.Config) *singletable.TableProps {
	if cfg.Name == "" {
		return nil
	}
	p := &singletable.TableProps{
		PITRRecoveryPeriodDays:    cfg.PITRRecoveryPeriodDays,
		AllowDestroy:              cfg.RemovalPolicy == envconfig.Destroy,
		DisableDeletionProtection: !cfg.DeletionProtection,
		CustomerManagedKey:        cfg.CustomerManagedKey,
		ContributorInsights:       cfg.ContributorInsights,
		Stream:                    cfg.Stream,
	}
	if c := cfg.Capacity; c.Mode == envconfig.Provisioned {
		p.Provisioned = &singletable.ProvisionedCapacity{
			MinRead: c.MinRead, MaxRead: c.MaxRead,
			MinWrite: c.MinWrite, MaxWrite: c.MaxWrite,
			TargetUtilizationPercent: c.TargetUtilization,
		}
	}
	return p
}
