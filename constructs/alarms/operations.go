package alarms

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awschatbot"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
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

	// Emails and HTTPSEndpoints subscribe further pagers to the topic: an
	// on-call address, an incident-management endpoint. With neither and
	// no Slack, nobody is paged: synthesis warns (NoSubscriberWarning).
	Emails         []string
	HTTPSEndpoints []string

	// DashboardName names the dashboard. Default: CloudFormation names it.
	DashboardName string

	// TopicKey encrypts the topic. Default: a new customer-managed key with
	// rotation whose policy lets this account's CloudWatch alarms publish.
	// EventBridge rules publish through a role (see backup), never as the
	// events.amazonaws.com principal.
	TopicKey awskms.IKey

	// RemovalPolicy applies to the topic key. Default: RETAIN_ON_UPDATE_OR_DELETE (kept on update and delete, removed when the first create fails, so a retry does not meet it).
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
	// Subscriptions are the email and HTTPS subscriptions; a message SNS
	// cannot deliver to one lands in SubscriptionsDLQ, which alarms.
	Subscriptions    []awssns.Subscription
	SubscriptionsDLQ awssqs.Queue
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
		removal = awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
	}

	if o.Key == nil {
		key := awskms.NewKey(c, jsii.String("TopicKey"), &awskms.KeyProps{
			Description:       jsii.String("Encrypts the oncetable alarm topic"),
			EnableKeyRotation: jsii.Bool(true),
			RemovalPolicy:     removal,
		})
		// CloudWatch needs the key to publish to an encrypted topic; only
		// for alarms of this account (no confused deputy).
		key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:        jsii.String("AllowCloudWatchAlarmsOfThisAccountToUseKey"),
			Principals: &[]awsiam.IPrincipal{servicePrincipal("cloudwatch.amazonaws.com")},
			Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
			Resources:  jsii.Strings("*"),
			Conditions: alarmSourceConditions(awscdk.Stack_Of(c)),
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
		Conditions: alarmSourceConditions(stack),
	}))
	o.action = awscloudwatchactions.NewSnsAction(o.Topic)

	if props.SlackWorkspaceID != "" {
		name := props.SlackConfigurationName
		if name == "" {
			name = *stack.StackName() + "-" + id
		}
		o.Slack = awschatbot.NewSlackChannelConfiguration(c, jsii.String("Slack"), &awschatbot.SlackChannelConfigurationProps{
			SlackChannelConfigurationName: jsii.String(name),
			Role:                          chatbotRole(c, name),
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

	o.subscribe(c, props)

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

// NoSubscriberWarning is the ID of the synth warning for a topic that
// pages nobody.
const NoSubscriberWarning = "oncetable:alarms:no-subscriber"

func (o *Operations) subscribe(c constructs.Construct, props *OperationsProps) {
	if len(props.Emails)+len(props.HTTPSEndpoints) > 0 {
		o.subscriptionsDLQ(c)
	}
	for _, e := range props.Emails {
		o.Subscriptions = append(o.Subscriptions, o.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(e),
			&awssnssubscriptions.EmailSubscriptionProps{DeadLetterQueue: o.SubscriptionsDLQ})))
	}
	for _, u := range props.HTTPSEndpoints {
		o.Subscriptions = append(o.Subscriptions, o.Topic.AddSubscription(awssnssubscriptions.NewUrlSubscription(jsii.String(u),
			&awssnssubscriptions.UrlSubscriptionProps{Protocol: awssns.SubscriptionProtocol_HTTPS, DeadLetterQueue: o.SubscriptionsDLQ})))
	}
	if props.SlackWorkspaceID == "" && len(props.Emails) == 0 && len(props.HTTPSEndpoints) == 0 {
		awscdk.Annotations_Of(c).AddWarningV2(jsii.String(NoSubscriberWarning), jsii.String(
			"The operations topic has no subscriber (no Slack channel, email or HTTPS endpoint): alarms page nobody. "+
				"Set slack or notifications in cdk.json."), nil)
	}
}

// subscriptionsDLQ keeps the alarm messages SNS could not deliver to an
// email or HTTPS subscriber (14 days), and alarms on the first one, so the
// other subscribers learn that a pager is unreachable.
func (o *Operations) subscriptionsDLQ(c constructs.Construct) {
	o.SubscriptionsDLQ = DeadLetterQueue(c, "SubscriptionsDLQ",
		"This queue is itself a dead-letter queue: that of the operations topic's email and HTTPS subscriptions, read by people after its alarm.")
	o.AddAlarm(QueueNotEmpty(c, "SubscriptionsDLQAlarm", o.SubscriptionsDLQ,
		"SNS could not deliver an alarm to an email or HTTPS subscriber of the operations topic; read the SubscriptionsDLQ queue"))
}

// alarmSourceConditions admit only CloudWatch alarms of this account and
// region, so no other account's alarm can use the topic or its key.
func alarmSourceConditions(stack awscdk.Stack) *map[string]any {
	return &map[string]any{
		"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
		"ArnLike": map[string]any{"aws:SourceArn": stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("cloudwatch"), Resource: jsii.String("alarm"), ResourceName: jsii.String("*"),
			ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})},
	}
}

// chatbotRole is the channel role, as the Chatbot construct would create
// it (no policy: the guardrail and the channel only read alarms), but
// assumable only for this channel configuration of this account.
func chatbotRole(c constructs.Construct, name string) awsiam.IRole {
	stack := awscdk.Stack_Of(c)
	return awsiam.NewRole(c, jsii.String("SlackRole"), &awsiam.RoleProps{
		Description: jsii.String("Role of the AWS Chatbot channel " + name),
		AssumedBy: awsiam.NewPrincipalWithConditions(servicePrincipal("chatbot.amazonaws.com"), &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
			"ArnLike": map[string]any{"aws:SourceArn": stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("chatbot"), Region: jsii.String(""), Resource: jsii.String("chat-configuration"),
				ResourceName: jsii.String("slack-channel/" + name), ArnFormat: awscdk.ArnFormat_SLASH_RESOURCE_NAME,
			})},
		}),
	})
}

func servicePrincipal(name string) awsiam.IPrincipal {
	return awsiam.NewServicePrincipal(jsii.String(name), nil)
}
