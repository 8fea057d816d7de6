package alarms

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awschatbot"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// OperationsProps configures the topic, Slack routing and dashboard. The zero
// value of each field is its default, so nil props and &OperationsProps{}
// are the same: an encrypted topic without Slack, and a dashboard.
type OperationsProps struct {
	// SlackWorkspaceID and SlackChannelID route the topic to Slack through
	// AWS Chatbot (the workspace must already be authorized in the Chatbot
	// console). Default: both empty, the topic alone. Setting only one panics.
	SlackWorkspaceID string
	SlackChannelID   string

	// SlackConfigurationName names the Chatbot channel configuration, unique
	// per account. Default: "<stack name>-<id>".
	SlackConfigurationName string

	// DashboardName names the dashboard. Default: CloudFormation names it.
	DashboardName string

	// TopicKey encrypts the topic. Default: a new customer-managed key with
	// rotation whose policy lets CloudWatch and EventBridge publish.
	TopicKey awskms.IKey

	// RemovalPolicy applies to the topic key. Default: RETAIN.
	RemovalPolicy awscdk.RemovalPolicy
}

// Operations owns the alarm topic and the dashboard.
type Operations struct {
	// Construct is the scope holding every resource below. It is a field, not
	// embedded: jsii rejects a Go struct that embeds a construct as a scope.
	Construct constructs.Construct
	// Topic receives every alarm and OK transition and failed backup jobs.
	Topic awssns.Topic
	// Key encrypts Topic.
	Key awskms.IKey
	// Dashboard shows the metrics behind every alarm.
	Dashboard awscloudwatch.Dashboard
	// Slack is the Chatbot channel configuration, nil without Slack IDs.
	Slack awschatbot.SlackChannelConfiguration
	// Alarms lists every alarm wired to Topic so far.
	Alarms []awscloudwatch.AlarmBase

	action awscloudwatch.IAlarmAction
}

// NewOperations adds the topic, optional Slack routing and the dashboard.
func NewOperations(scope constructs.Construct, id string, props *OperationsProps) *Operations {
	if props == nil {
		props = &OperationsProps{}
	}
	if (props.SlackWorkspaceID == "") != (props.SlackChannelID == "") {
		panic("alarms: set both SlackWorkspaceID and SlackChannelID, or neither")
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	o := &Operations{Construct: c, Key: props.TopicKey}
	removal := props.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_RETAIN
	}

	if o.Key == nil {
		key := awskms.NewKey(c, jsii.String("TopicKey"), &awskms.KeyProps{
			Description:       jsii.String("Encrypts the oncetable alarm topic"),
			EnableKeyRotation: jsii.Bool(true),
			RemovalPolicy:     removal,
		})
		// Services that publish to an encrypted topic need the key to
		// encrypt the message; without this their publishes are dropped.
		key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:        jsii.String("AllowAlarmPublishersToUseKey"),
			Principals: &[]awsiam.IPrincipal{servicePrincipal("cloudwatch.amazonaws.com"), servicePrincipal("events.amazonaws.com")},
			Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
			Resources:  jsii.Strings("*"),
		}), jsii.Bool(false))
		o.Key = key
	}

	o.Topic = awssns.NewTopic(c, jsii.String("Topic"), &awssns.TopicProps{
		DisplayName: jsii.String("oncetable alarms"),
		MasterKey:   o.Key,
		EnforceSSL:  jsii.Bool(true),
	})
	// The topic policy replaces the default one, so CloudWatch alarms of
	// this account are allowed explicitly.
	stack := awscdk.Stack_Of(c)
	o.Topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("AllowCloudWatchAlarmsOfThisAccount"),
		Principals: &[]awsiam.IPrincipal{servicePrincipal("cloudwatch.amazonaws.com")},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{o.Topic.TopicArn()},
		Conditions: &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
			"ArnLike": map[string]any{"aws:SourceArn": stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("cloudwatch"), Resource: jsii.String("alarm"), ResourceName: jsii.String("*"),
				ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
			})},
		},
	}))
	o.action = awscloudwatchactions.NewSnsAction(o.Topic)

	if props.SlackWorkspaceID != "" {
		name := props.SlackConfigurationName
		if name == "" {
			name = *stack.StackName() + "-" + id
		}
		o.Slack = awschatbot.NewSlackChannelConfiguration(c, jsii.String("Slack"), &awschatbot.SlackChannelConfigurationProps{
			SlackChannelConfigurationName: jsii.String(name),
			SlackWorkspaceId:              jsii.String(props.SlackWorkspaceID),
			SlackChannelId:                jsii.String(props.SlackChannelID),
			NotificationTopics:            &[]awssns.ITopic{o.Topic},
			LoggingLevel:                  awschatbot.LoggingLevel_ERROR,
			// Without a guardrail, channel members could run any command
			// the channel role allows; alarms only need to be read.
			GuardrailPolicies: &[]awsiam.IManagedPolicy{
				awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String("CloudWatchReadOnlyAccess")),
			},
		})
	}

	var dashboardName *string
	if props.DashboardName != "" {
		dashboardName = jsii.String(props.DashboardName)
	}
	o.Dashboard = awscloudwatch.NewDashboard(c, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName:   dashboardName,
		DefaultInterval: awscdk.Duration_Hours(jsii.Number(3)),
	})
	return o
}

// AddAlarm sends the alarms' ALARM and OK transitions to Topic. Later
// constructs (Lambda functions, the HTTP API) add their alarms here.
func (o *Operations) AddAlarm(alarms ...awscloudwatch.AlarmBase) {
	for _, a := range alarms {
		a.AddAlarmAction(o.action)
		a.AddOkAction(o.action)
		o.Alarms = append(o.Alarms, a)
	}
}

// AddWidgets appends a row of widgets to the dashboard.
func (o *Operations) AddWidgets(widgets ...awscloudwatch.IWidget) {
	o.Dashboard.AddWidgets(widgets...)
}

func servicePrincipal(name string) awsiam.IPrincipal {
	return awsiam.NewServicePrincipal(jsii.String(name), nil)
}
