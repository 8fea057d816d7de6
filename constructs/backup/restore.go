package backup

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// RestoreTest schedules AWS Backup restore testing of the table: the
// latest snapshot of the vault is restored to a new table, kept for
// ValidationWindowHours, then deleted by AWS Backup. A failed restore is a
// failed restore job, which the failed-jobs rule sends to the alarm topic.
type RestoreTest struct {
	// Schedule is Weekly (Sundays 06:00 UTC) or Monthly (the 2nd, 06:00
	// UTC, the day after the monthly backup).
	Schedule Schedule
	// ValidationWindowHours keeps the restored table before deletion, for
	// checks of its own; new(0) deletes it once restored. Default: nil, 1.
	ValidationWindowHours *int
	// Validation checks the money invariants of each restored table and
	// reports the verdict to AWS Backup. Default: on.
	Validation RestoreValidation
}

// RestoreTesting is the restore testing plan of the table and its
// selection.
type RestoreTesting struct {
	Plan      awsbackup.CfnRestoreTestingPlan
	Selection awsbackup.CfnRestoreTestingSelection
	Role      awsiam.Role
	// Validation is the money-invariant check of each restored table; nil
	// when RestoreTest.Validation.Disable.
	Validation *Validation
}

func newRestoreTesting(c constructs.Construct, vault awsbackup.BackupVault, table awsdynamodb.ITableV2, rt RestoreTest) *RestoreTesting {
	window := 1
	if rt.ValidationWindowHours != nil {
		window = *rt.ValidationWindowHours
	}
	cron := "cron(0 6 ? * SUN *)"
	if rt.Schedule == Monthly {
		cron = "cron(0 6 2 * ? *)"
	}
	stack := awscdk.Stack_Of(c)
	// Plan names allow letters, digits and underscores only, 50 at most,
	// unique per account and region: the construct's path with a hash, so
	// two backups in one stack never collide.
	name := *awscdk.Names_UniqueResourceName(c, &awscdk.UniqueResourceNameOptions{
		MaxLength: jsii.Number(50 - len("_restore_test")), Separator: jsii.String("_"), AllowedSpecialCharacters: jsii.String("_"),
	}) + "_restore_test"
	r := &RestoreTesting{}
	r.Plan = awsbackup.NewCfnRestoreTestingPlan(c, jsii.String("RestoreTestingPlan"), &awsbackup.CfnRestoreTestingPlanProps{
		RestoreTestingPlanName: jsii.String(name),
		ScheduleExpression:     jsii.String(cron),
		StartWindowHours:       jsii.Number(4),
		RecoveryPointSelection: &awsbackup.CfnRestoreTestingPlan_RestoreTestingRecoveryPointSelectionProperty{
			Algorithm:           jsii.String("LATEST_WITHIN_WINDOW"),
			IncludeVaults:       &[]*string{vault.BackupVaultArn()},
			RecoveryPointTypes:  jsii.Strings("SNAPSHOT"),
			SelectionWindowDays: jsii.Number(35),
		},
	})
	r.Role = awsiam.NewRole(c, jsii.String("RestoreTestingRole"), &awsiam.RoleProps{
		Description: jsii.String("AWS Backup restores and deletes the table's restore tests with this role"),
		AssumedBy: awsiam.NewPrincipalWithConditions(awsiam.NewServicePrincipal(jsii.String("backup.amazonaws.com"), nil), &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
		}),
		ManagedPolicies: &[]awsiam.IManagedPolicy{
			awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String("service-role/AWSBackupServiceRolePolicyForRestores")),
		},
	})
	cdknag.NagSuppressions_AddResourceSuppressions(r.Role, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("AwsSolutions-IAM4"),
		Reason: jsii.String("Only AWS Backup of this account assumes this role. AWSBackupServiceRolePolicyForRestores is the " +
			"AWS-maintained policy that follows what a DynamoDB restore and its clean-up need; a copy would go stale silently."),
		AppliesTo: &[]any{"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores"},
	}}, jsii.Bool(true))
	r.Selection = awsbackup.NewCfnRestoreTestingSelection(c, jsii.String("RestoreTestingSelection"), &awsbackup.CfnRestoreTestingSelectionProps{
		RestoreTestingPlanName:      r.Plan.RestoreTestingPlanName(),
		RestoreTestingSelectionName: jsii.String("table"),
		ProtectedResourceType:       jsii.String("DynamoDB"),
		ProtectedResourceArns:       &[]*string{table.TableArn()},
		IamRoleArn:                  r.Role.RoleArn(),
		ValidationWindowHours:       jsii.Number(float64(window)),
	})
	r.Selection.AddResourceDependency(r.Plan, jsii.String("the selection names the plan by its name"))
	return r
}

// DRVaultProps configures a disaster-recovery vault.
type DRVaultProps struct {
	// VaultName names the vault, so the primary region's plan can name its
	// ARN without a cross-region reference. Required.
	VaultName string
	// VaultLock locks it like the primary vault. Default: DefaultVaultLock.
	VaultLock *VaultLock
	// RemovalPolicy applies to the vault and its key. Default: RETAIN_ON_UPDATE_OR_DELETE (kept on update and delete, removed when the first create fails, so a retry does not meet it).
	RemovalPolicy awscdk.RemovalPolicy
}

// DRVault is a locked vault, with its own key, that receives copies of the
// primary plan's recovery points from another region.
type DRVault struct {
	Construct constructs.Construct
	Vault     awsbackup.BackupVault
	Key       awskms.Key
}

// NewDRVault adds the vault. It panics on a lock AWS Backup would reject.
func NewDRVault(scope constructs.Construct, id string, props *DRVaultProps) *DRVault {
	if props == nil || props.VaultName == "" {
		panic("backup: DRVaultProps.VaultName is required")
	}
	lock := DefaultVaultLock
	if props.VaultLock != nil {
		lock = *props.VaultLock
	}
	if err := validate([]Rule{{Schedule: Daily, RetentionDays: lock.MinRetentionDays}}, lock, &TableBackupProps{}); err != nil {
		panic("backup: " + err.Error())
	}
	removal := props.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	d := &DRVault{Construct: c}
	d.Key = awskms.NewKey(c, jsii.String("VaultKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the oncetable disaster-recovery backup vault"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     removal,
	})
	d.Vault = awsbackup.NewBackupVault(c, jsii.String("Vault"), &awsbackup.BackupVaultProps{
		BackupVaultName:   jsii.String(props.VaultName),
		EncryptionKey:     d.Key,
		LockConfiguration: lockConfiguration(lock),
		RemovalPolicy:     removal,
	})
	return d
}

// DRVaultARN is the ARN of the vault named name in region of the account
// of scope's stack.
func DRVaultARN(scope constructs.Construct, region, name string) string {
	return *awscdk.Stack_Of(scope).FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("backup"), Region: jsii.String(region), Resource: jsii.String("backup-vault"),
		ResourceName: jsii.String(name), ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

func lockConfiguration(lock VaultLock) *awsbackup.LockConfiguration {
	cfg := &awsbackup.LockConfiguration{
		MinRetention: awscdk.Duration_Days(jsii.Number(lock.MinRetentionDays)),
		MaxRetention: awscdk.Duration_Days(jsii.Number(lock.MaxRetentionDays)),
	}
	if lock.Mode == Compliance {
		cfg.ChangeableFor = awscdk.Duration_Days(jsii.Number(lock.ChangeableForDays))
	}
	return cfg
}
