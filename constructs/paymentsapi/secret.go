package paymentsapi

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/gofunction"
)

// RotationFunctionName names the cursor secret's rotation function in
// alarms and widgets.
const RotationFunctionName = "rotatecursor"

// cursorSecret adds the secret that signs the api function's cursors, its
// rotation function and schedule. The value never leaves Secrets Manager
// except to the api function's GetSecretValue at run time.
func (a *PaymentsAPI) cursorSecret(c constructs.Construct, p Props) {
	a.CursorSecret = awssecretsmanager.NewSecret(c, jsii.String("CursorSecret"), &awssecretsmanager.SecretProps{
		Description: jsii.String("Signs the pagination cursors of the oncetable api function; read at run time, rotated by its rotation function"),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength: jsii.Number(48), ExcludePunctuation: jsii.Bool(true),
		},
		EncryptionKey: p.TableKey,
		RemovalPolicy: p.RemovalPolicy,
	})
	if p.TableKey == nil {
		cdknag.NagSuppressions_AddResourceSuppressions(a.CursorSecret, &[]*cdknag.NagPackSuppression{{
			Id: jsii.String("PCI.DSS.321-SecretsManagerUsingKMSKey"),
			Reason: jsii.String("This environment has no customer-managed key (customerManagedKey is off in cdk.json): the cursor " +
				"secret uses Secrets Manager's AWS-managed key, like the table uses DynamoDB's. Environments with a key use it here."),
		}}, jsii.Bool(false))
	}

	fn := gofunction.New(c, "CursorRotationFunction", &gofunction.Props{
		Entry:            "./lambdas/rotatecursor",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable rotation of the cursor-signing secret",
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.TableKey,
	})
	a.RotationFunction = fn
	secretArn := a.CursorSecret.SecretArn()
	fn.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("RotateCursorSecret"),
		Actions: jsii.Strings("secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue",
			"secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage"),
		Resources: &[]*string{secretArn},
	}))
	grantSecretKey(fn.Role, p, secretArn, "kms:Decrypt", "kms:GenerateDataKey")

	stack := awscdk.Stack_Of(c)
	// Only Secrets Manager, for this secret of this account, may invoke it.
	permission := awslambda.NewCfnPermission(c, jsii.String("CursorRotationPermission"), &awslambda.CfnPermissionProps{
		Action:        jsii.String("lambda:InvokeFunction"),
		FunctionName:  fn.Function.FunctionArn(),
		Principal:     jsii.String("secretsmanager.amazonaws.com"),
		SourceAccount: stack.Account(),
		SourceArn:     secretArn,
	})
	schedule := awssecretsmanager.NewCfnRotationSchedule(c, jsii.String("CursorRotation"), &awssecretsmanager.CfnRotationScheduleProps{
		SecretId:          secretArn,
		RotationLambdaArn: fn.Function.FunctionArn(),
		RotationRules: &awssecretsmanager.CfnRotationSchedule_RotationRulesProperty{
			ScheduleExpression: jsii.String(fmt.Sprintf("rate(%d days)", int(p.SecretRotation.Hours()/24))),
		},
	})
	schedule.AddResourceDependency(permission, jsii.String("Secrets Manager must be allowed to invoke the rotation function first"))
	cdknag.NagSuppressions_AddResourceSuppressions(fn.Function, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("Serverless-LambdaDLQ"),
		Reason: jsii.String("Secrets Manager invokes the rotation function synchronously, step by step, and retries a failed " +
			"rotation itself; a dead-letter target applies only to asynchronous invocations."),
	}}, jsii.Bool(false))
	suppressFunctionPCI(fn, p.TableKey == nil)
}

// grantSecretKey lets role use the secret's customer-managed key, only
// through Secrets Manager and only for this secret.
func grantSecretKey(role awsiam.Role, p Props, secretArn *string, actions ...string) {
	if p.TableKey == nil {
		return
	}
	region := awscdk.Stack_Of(role).Region()
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("CursorSecretKeyViaSecretsManager"),
		Actions:   jsii.Strings(actions...),
		Resources: &[]*string{p.TableKey.KeyArn()},
		Conditions: &map[string]any{
			"StringEquals": map[string]any{
				"kms:ViaService":                  "secretsmanager." + *region + ".amazonaws.com",
				"kms:EncryptionContext:SecretARN": secretArn,
			},
		},
	}))
}

// suppressFunctionPCI records why PCI DSS 3.2.1 rules that do not fit a
// function are suppressed, on the function's construct and its children.
func suppressFunctionPCI(fn *gofunction.Function, noKey bool) {
	s := []*cdknag.NagPackSuppression{
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (DynamoDB, Secrets Manager, X-Ray) over TLS and no private resource; a VPC would add NAT or endpoint " +
			"costs and cold-start latency without narrowing what the role may reach.")},
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The policy is the function's own role policy, " +
			"attached to that one role and created and deleted with it; its statements are least-privilege and asserted " +
			"statement by statement in test/cdk. A managed policy would be attachable to other principals.")},
	}
	if noKey {
		s = append(s, &cdknag.NagPackSuppression{Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"), Reason: jsii.String(
			"This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch Logs encrypts the " +
				"group at rest with its own key. Environments with a key (prod) encrypt every log group with it.")})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(fn.Construct, &s, jsii.Bool(true))
}
