package alarms

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awschatbot"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/oncall"
)

// Subscribers are the people and systems one severity reaches.
type Subscribers struct {
	// SlackChannelID routes the severity's topic to that Slack channel
	// through AWS Chatbot; it needs OperationsProps.SlackWorkspaceID.
	// Default: empty, no Slack.
	SlackChannelID string
	// Emails and HTTPSEndpoints subscribe further receivers: an on-call
	// address, a pager's events URL, a ticket queue's address.
	Emails         []string
	HTTPSEndpoints []string
}

func (s Subscribers) none() bool {
	return s.SlackChannelID == "" && len(s.Emails) == 0 && len(s.HTTPSEndpoints) == 0
}

// OperationsProps configures the topics, their subscribers, the routing of
// alarms and the dashboard. The zero value of each field is its default, so
// nil props and &OperationsProps{} are the same: two encrypted topics
// without subscribers (synthesis warns), every kind at its default
// severity, and a dashboard.
type OperationsProps struct {
	// SlackWorkspaceID is the Slack workspace of both channels (it must
	// already be authorized in the Chatbot console). Required when a
	// SlackChannelID is set; setting it without one panics.
	SlackWorkspaceID string
	// Page is who is paged (Slack and a pager's HTTPS endpoint, usually);
	// Ticket who gets tickets (an email queue, usually). With none for a
	// severity, synthesis warns (NoSubscriberWarning).
	Page, Ticket Subscribers

	// SlackConfigurationName names the paging Chatbot channel
	// configuration (unique per account); the ticket one is
	// "<name>-ticket". Default: "<stack name>-<id>".
	SlackConfigurationName string

	// Routing moves alarm kinds to the other severity. Default: nil, each
	// kind at its default severity. An invalid routing panics.
	Routing oncall.Routing

	// RunbookURL is the address of docs/runbook.md that every alarm's
	// description links to, with the kind's section as fragment.
	// Default: oncall.DefaultRunbookURL.
	RunbookURL string

	// DashboardName names the dashboard. Default: CloudFormation names it.
	DashboardName string

	// TopicKey encrypts both topics. Default: a new customer-managed key
	// with rotation whose policy lets this account's CloudWatch alarms
	// publish. EventBridge rules publish through a role (see backup), never
	// as the events.amazonaws.com principal.
	TopicKey awskms.IKey

	// RemovalPolicy applies to the topic key. Default: RETAIN_ON_UPDATE_OR_DELETE (kept on update and delete, removed when the first create fails, so a retry does not meet it).
	RemovalPolicy awscdk.RemovalPolicy
}

// Channel is one severity's topic and its subscribers.
type Channel struct {
	Severity oncall.Severity
	// Topic receives the ALARM and OK transitions of the alarms routed to
	// this severity.
	Topic awssns.Topic
	// Slack is the Chatbot channel configuration, nil without a channel.
	Slack awschatbot.SlackChannelConfiguration
	// Subscriptions are the email and HTTPS subscriptions; a message SNS
	// cannot deliver to one lands in Operations.SubscriptionsDLQ.
	Subscriptions []awssns.Subscription

	action awscloudwatch.IAlarmAction
}

// Alarm is an alarm wired to a channel, with its kind.
type Alarm struct {
	Kind     oncall.Kind
	Severity oncall.Severity
	Alarm    awscloudwatch.AlarmBase
}

// Monitor is what a construct needs to raise alarms and show graphs;
// *Operations implements it.
type Monitor interface {
	// AddAlarm routes alarms of kind to its severity's topic and links
	// their descriptions to the kind's runbook section.
	AddAlarm(kind oncall.Kind, alarms ...awscloudwatch.AlarmBase)
	// AddWidgets appends a row of widgets to the dashboard.
	AddWidgets(widgets ...awscloudwatch.IWidget)
	// AddAlarmInputs describes alarms that only feed composite alarms of
	// kind (added with AddAlarm): severity and runbook link as AddAlarm
	// gives them, and no action, since the composite notifies.
	AddAlarmInputs(kind oncall.Kind, alarms ...awscloudwatch.AlarmBase)
}

// Operations owns the paging and ticket topics and the dashboard.
type Operations struct {
	// Construct is the scope holding every resource below. It is a field, not
	// embedded: jsii rejects a Go struct that embeds a construct as a scope.
	Construct constructs.Construct
	// Page and Ticket are the two severities' topics and subscribers.
	Page, Ticket *Channel
	// Key encrypts both topics.
	Key awskms.IKey
	// Dashboard shows the alarm status of every group, then the graphs
	// the constructs added, in their order.
	Dashboard awscloudwatch.Dashboard
	// SubscriptionsDLQ keeps what SNS could not deliver to an email or
	// HTTPS subscriber of either topic; nil without such subscribers.
	SubscriptionsDLQ awssqs.Queue
	// Alarms lists every alarm added so far, with its kind and severity.
	Alarms []Alarm
	// Inputs lists the alarms that only feed composite alarms
	// (AddAlarmInputs): they notify no one.
	Inputs []Alarm

	routing    oncall.Routing
	runbookURL string
	widgets    [][]awscloudwatch.IWidget
	laidOut    bool
}

// NewOperations adds the topics, optional Slack routing and the dashboard.
func NewOperations(scope constructs.Construct, id string, props *OperationsProps) *Operations {
	if props == nil {
		props = &OperationsProps{}
	}
	slack := props.Page.SlackChannelID != "" || props.Ticket.SlackChannelID != ""
	if (props.SlackWorkspaceID == "") == slack {
		panic("alarms: set SlackWorkspaceID together with a Page or Ticket SlackChannelID, or neither")
	}
	if err := props.Routing.Validate(); err != nil {
		panic("alarms: Routing: " + err.Error())
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	stack := awscdk.Stack_Of(c)
	o := &Operations{
		Construct:  c,
		Key:        props.TopicKey,
		routing:    props.Routing,
		runbookURL: cmp.Or(props.RunbookURL, oncall.DefaultRunbookURL),
	}
	if o.Key == nil {
		o.Key = topicKey(c, cmp.Or(props.RemovalPolicy, awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE))
	}
	prefix := cmp.Or(props.SlackConfigurationName, *stack.StackName()+"-"+id)
	o.Page = o.channel(c, oncall.Page, "Topic", "oncetable pages", prefix, props.SlackWorkspaceID, props.Page)
	o.Ticket = o.channel(c, oncall.Ticket, "TicketTopic", "oncetable tickets", prefix, props.SlackWorkspaceID, props.Ticket)

	var dashboardName *string
	if props.DashboardName != "" {
		dashboardName = jsii.String(props.DashboardName)
	}
	o.Dashboard = awscloudwatch.NewDashboard(c, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName:   dashboardName,
		DefaultInterval: awscdk.Duration_Hours(jsii.Number(3)),
	})
	// The status rows go first, but alarms keep coming after this call:
	// the dashboard is laid out once every construct has added its own.
	awscdk.Aspects_Of(c).Add(&layout{ops: o}, nil)
	if o.SubscriptionsDLQ != nil {
		o.AddAlarm(oncall.AlarmDeliveryFailed, QueueNotEmpty(c, "SubscriptionsDLQAlarm", o.SubscriptionsDLQ,
			"SNS could not deliver an alarm to an email or HTTPS subscriber of the page or ticket topic; read the SubscriptionsDLQ queue."))
		o.AddWidgets(QueueDepthWidget("Operations: undelivered alarms (SubscriptionsDLQ)", o.SubscriptionsDLQ))
	}
	return o
}

// topicKey is the topics' key: CloudWatch needs it to publish to an
// encrypted topic, and only alarms of this account may (no confused deputy).
func topicKey(c constructs.Construct, removal awscdk.RemovalPolicy) awskms.IKey {
	key := awskms.NewKey(c, jsii.String("TopicKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the oncetable page and ticket topics"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     removal,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("AllowCloudWatchAlarmsOfThisAccountToUseKey"),
		Principals: &[]awsiam.IPrincipal{servicePrincipal("cloudwatch.amazonaws.com")},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"),
		Conditions: alarmSourceConditions(awscdk.Stack_Of(c)),
	}), jsii.Bool(false))
	return key
}

// channel is one severity's encrypted, TLS-only topic with its Slack
// channel and subscriptions.
func (o *Operations) channel(c constructs.Construct, sev oncall.Severity, topicID, display, prefix, workspace string, subs Subscribers) *Channel {
	ch := &Channel{Severity: sev}
	ch.Topic = awssns.NewTopic(c, jsii.String(topicID), &awssns.TopicProps{
		DisplayName: jsii.String(display),
		MasterKey:   o.Key,
		EnforceSSL:  jsii.Bool(true),
	})
	// The topic policy replaces the default one, so CloudWatch alarms of
	// this account are allowed explicitly.
	ch.Topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("AllowCloudWatchAlarmsOfThisAccount"),
		Principals: &[]awsiam.IPrincipal{servicePrincipal("cloudwatch.amazonaws.com")},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{ch.Topic.TopicArn()},
		Conditions: alarmSourceConditions(awscdk.Stack_Of(c)),
	}))
	ch.action = awscloudwatchactions.NewSnsAction(ch.Topic)

	if subs.SlackChannelID != "" {
		name := prefix
		if sev == oncall.Ticket {
			name += "-ticket"
		}
		ch.Slack = awschatbot.NewSlackChannelConfiguration(c, jsii.String(slackID(sev)), &awschatbot.SlackChannelConfigurationProps{
			SlackChannelConfigurationName: jsii.String(name),
			Role:                          chatbotRole(c, slackID(sev)+"Role", name),
			SlackWorkspaceId:              jsii.String(workspace),
			SlackChannelId:                jsii.String(subs.SlackChannelID),
			NotificationTopics:            &[]awssns.ITopic{ch.Topic},
			LoggingLevel:                  awschatbot.LoggingLevel_ERROR,
			// Without a guardrail, channel members could run any command
			// the channel role allows; alarms only need to be read.
			GuardrailPolicies: &[]awsiam.IManagedPolicy{
				awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String("CloudWatchReadOnlyAccess")),
			},
		})
	}
	if len(subs.Emails)+len(subs.HTTPSEndpoints) > 0 && o.SubscriptionsDLQ == nil {
		o.SubscriptionsDLQ = DeadLetterQueue(c, "SubscriptionsDLQ",
			"This queue is itself a dead-letter queue: that of the page and ticket topics' email and HTTPS subscriptions, read by people after its alarm.")
	}
	for _, e := range subs.Emails {
		ch.Subscriptions = append(ch.Subscriptions, ch.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(e),
			&awssnssubscriptions.EmailSubscriptionProps{DeadLetterQueue: o.SubscriptionsDLQ})))
	}
	for _, u := range subs.HTTPSEndpoints {
		ch.Subscriptions = append(ch.Subscriptions, ch.Topic.AddSubscription(awssnssubscriptions.NewUrlSubscription(jsii.String(u),
			&awssnssubscriptions.UrlSubscriptionProps{Protocol: awssns.SubscriptionProtocol_HTTPS, DeadLetterQueue: o.SubscriptionsDLQ})))
	}
	if subs.none() {
		awscdk.Annotations_Of(c).AddWarningV2(jsii.String(NoSubscriberWarning+":"+string(sev)), jsii.String(fmt.Sprintf(
			"The %s topic has no subscriber (no Slack channel, email or HTTPS endpoint): its alarms reach nobody. "+
				"Set slack and notifications.%s in cdk.json.", sev, sev)), nil)
	}
	return ch
}

// slackID is the construct id of a severity's Chatbot configuration; the
// page channel keeps the id of the single channel before tickets existed.
func slackID(sev oncall.Severity) string {
	if sev == oncall.Page {
		return "Slack"
	}
	return "TicketSlack"
}

// Channel is the channel of severity s.
func (o *Operations) Channel(s oncall.Severity) *Channel {
	if s == oncall.Ticket {
		return o.Ticket
	}
	return o.Page
}

// SeverityOf is kind's severity under the routing of o.
func (o *Operations) SeverityOf(kind oncall.Kind) oncall.Severity { return o.routing.SeverityOf(kind) }

// AddAlarm sends the alarms' ALARM and OK transitions to the topic of
// kind's severity, and prefixes their descriptions with the severity and
// ends them with the link to kind's runbook section. A kind of your own
// (not in oncall.Kinds) needs a section in your RunbookURL. It panics on a
// kind without a name or with an unknown severity.
func (o *Operations) AddAlarm(kind oncall.Kind, alarms ...awscloudwatch.AlarmBase) {
	if kind.Name == "" || !kind.Severity.Valid() {
		panic(fmt.Sprintf("alarms: kind %+v needs a name and a page or ticket severity", kind))
	}
	if o.laidOut {
		panic("alarms: AddAlarm after the dashboard was laid out (synthesis has begun)")
	}
	sev := o.SeverityOf(kind)
	ch := o.Channel(sev)
	for _, a := range alarms {
		o.describe(a, kind, sev)
		a.AddAlarmAction(ch.action)
		a.AddOkAction(ch.action)
		o.Alarms = append(o.Alarms, Alarm{Kind: kind, Severity: sev, Alarm: a})
	}
}

// AddAlarmInputs gives alarms that feed composite alarms of kind their
// severity and runbook link, and no action.
func (o *Operations) AddAlarmInputs(kind oncall.Kind, alarms ...awscloudwatch.AlarmBase) {
	if kind.Name == "" || !kind.Severity.Valid() {
		panic(fmt.Sprintf("alarms: kind %+v needs a name and a page or ticket severity", kind))
	}
	sev := o.SeverityOf(kind)
	for _, a := range alarms {
		o.describe(a, kind, sev)
		o.Inputs = append(o.Inputs, Alarm{Kind: kind, Severity: sev, Alarm: a})
	}
}

// describe rewrites the description of a on its CloudFormation resource:
// "[page] <what happened> Runbook: <url>#<kind>".
func (o *Operations) describe(a awscloudwatch.AlarmBase, kind oncall.Kind, sev oncall.Severity) {
	text := func(d *string) string {
		s := ""
		if d != nil {
			s = strings.TrimSpace(*d)
		}
		return fmt.Sprintf("[%s] %s Runbook: %s", sev, s, kind.Link(o.runbookURL))
	}
	switch cfn := a.Node().DefaultChild().(type) {
	case awscloudwatch.CfnAlarm:
		cfn.SetAlarmDescription(jsii.String(text(cfn.AlarmDescription())))
	case awscloudwatch.CfnCompositeAlarm:
		cfn.SetAlarmDescription(jsii.String(text(cfn.AlarmDescription())))
	default:
		panic(fmt.Sprintf("alarms: %s has no CloudWatch alarm resource", *a.Node().Path()))
	}
}

// AddWidgets appends a row of widgets to the dashboard, below the alarm
// status rows.
func (o *Operations) AddWidgets(widgets ...awscloudwatch.IWidget) {
	if o.laidOut {
		panic("alarms: AddWidgets after the dashboard was laid out (synthesis has begun)")
	}
	o.widgets = append(o.widgets, widgets)
}

// NoSubscriberWarning prefixes the IDs of the synth warnings for a topic
// that reaches nobody: "<NoSubscriberWarning>:page", "...:ticket".
const NoSubscriberWarning = "oncetable:alarms:no-subscriber"

// layout is the aspect that writes the dashboard once: the alarm status of
// each group, then the constructs' rows.
type layout struct{ ops *Operations }

// Visit lays the dashboard out on the first node it visits; aspects run
// before synthesis, after every construct has been added.
func (l *layout) Visit(constructs.IConstruct) {
	o := l.ops
	if o.laidOut {
		return
	}
	o.laidOut = true
	for _, g := range oncall.Groups() {
		var alarms []interfacesawscloudwatch.IAlarmRef
		for _, a := range o.Alarms {
			if a.Kind.Group == g {
				alarms = append(alarms, a.Alarm)
			}
		}
		if len(alarms) == 0 {
			continue
		}
		o.Dashboard.AddWidgets(StatusWidget(fmt.Sprintf("Alarm status: %s (%d)", g, len(alarms)), alarms))
	}
	for _, row := range o.widgets {
		o.Dashboard.AddWidgets(row...)
	}
}

// StatusWidget is a full-width alarm status widget, tall enough for its
// alarms (CloudWatch fits about six to a line), sorted by state.
func StatusWidget(title string, alarms []interfacesawscloudwatch.IAlarmRef) awscloudwatch.IWidget {
	return awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
		Title:  jsii.String(title),
		Alarms: &alarms,
		Width:  jsii.Number(24),
		Height: jsii.Number(float64(2 + (len(alarms)+5)/6)),
		SortBy: awscloudwatch.AlarmStatusWidgetSortBy_STATE_UPDATED_TIMESTAMP,
	})
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
func chatbotRole(c constructs.Construct, id, name string) awsiam.IRole {
	stack := awscdk.Stack_Of(c)
	return awsiam.NewRole(c, jsii.String(id), &awsiam.RoleProps{
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
