package paymentsapi

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2authorizers"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// Defaults of Props.
const (
	DefaultThrottleRatePerSecond = 100
	DefaultThrottleBurst         = 200
	DefaultLogRetentionDays      = 30
	DefaultServerErrorPercent    = 2
	DefaultClientErrorPercent    = 25
	DefaultThrottledPercent      = 5
	DefaultMinRequests           = 20
	DefaultLatencyP99            = 3 * time.Second
	DefaultSecretRotation        = 30 * 24 * time.Hour
)

// JWTAuth selects a JWT authorizer instead of IAM (SigV4).
type JWTAuth struct {
	// Issuer is the token issuer URL, such as
	// "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc". Required.
	Issuer string
	// Audience lists the accepted "aud" (or client_id) values. Required.
	Audience []string
	// CustomerScope, OperatorScope and ServiceScope are the scopes that
	// grant the roles (httpapi.Role): each route requires one of its roles'
	// scopes, and the functions check them again. Defaults:
	// payments/customer, payments/operator, payments/service.
	CustomerScope, OperatorScope, ServiceScope string
	// UserClaim is the claim whose value is a customer's userId.
	// Default: "sub", the subject.
	UserClaim string
}

// CORS turns on CORS preflight answers. Default: off.
type CORS struct {
	AllowOrigins []string
	AllowHeaders []string
	MaxAge       time.Duration
}

// Props configures the API and its functions. Only Table is required.
type Props struct {
	// Table is the single table every function reads and writes. Required.
	Table awsdynamodb.ITableV2
	// Homes, when enabled, gives cells of users home Regions: every
	// function reads this Region's homes (config.Homes) and may use the
	// lease table in Homes.LeaseRegion and fence its transactions.
	// Default: the zero value, a single-Region table.
	Homes config.Homes
	// Orders is the table's order index stage (singletable.Table.Orders):
	// the functions that read or write orders get it as ORDER_INDEXES and
	// ORDER_SHARDS, the api function may query the stage's order indexes,
	// and at stage both the order writers may check the migration's META
	// item. Default: the zero value, v1 with 4 shards.
	Orders singletable.OrderIndexes
	// TableKey is the environment's customer-managed key: the table's, which
	// also encrypts the cursor secret and every log group here. Functions
	// may use it only through DynamoDB and Secrets Manager. Default: nil
	// (AWS-owned and AWS-managed keys).
	TableKey awskms.IKey
	// RemovalPolicy applies to the cursor secret. Default: RETAIN_ON_UPDATE_OR_DELETE (kept on update and delete, removed when the first create fails, so a retry does not meet it).
	RemovalPolicy awscdk.RemovalPolicy
	// SecretRotation is how often the cursor secret rotates, in whole
	// days; a cursor stays valid for at least one interval. Default: 30 days.
	SecretRotation time.Duration
	// ModuleDir is the directory of the Go module holding lambdas/.
	// Default: oncetable's own module (gofunction.OwnModulePath) as the
	// app's build resolves it (gofunction.ModuleDir: go list -m, then the
	// binary's build information), so an app in another module that
	// requires oncetable bundles oncetable's functions.
	ModuleDir string
	// Entries overrides the main package of a function (httpapi.Function*),
	// relative to ModuleDir; an entry of the app's own module needs
	// ModuleDir set to it. Default: "./lambdas/<function>".
	Entries map[string]string

	// MemoryMB and Timeout apply to every function. Default: see gofunction.
	MemoryMB int
	Timeout  time.Duration
	// ReservedConcurrency per function name. Default: unreserved.
	ReservedConcurrency map[string]int
	// IdempotencyExpiry is how long an idempotency key blocks. Default: 24h.
	IdempotencyExpiry time.Duration

	// JWT selects the JWT authorizer. Default: nil, IAM (SigV4) on every route.
	JWT *JWTAuth
	// IAMOperators are the IAM principals (role ARNs cover their sessions;
	// an ARN ending in * is a prefix) the functions treat as operators;
	// every other IAM caller is a service (httpapi.Auth.IAMOperators).
	// They still need OperatorInvoke attached. Default: none.
	IAMOperators []string
	// ThrottleRatePerSecond and ThrottleBurst limit the stage.
	// Default: 100 requests per second, burst 200.
	ThrottleRatePerSecond int
	ThrottleBurst         int
	// MoneyRouteRatePerSecond and MoneyRouteBurst limit each money route
	// (charge, debit, settle) on its own, below the stage's limits, so one
	// flow cannot use all of them. Default: half the stage's (at least 1).
	MoneyRouteRatePerSecond int
	MoneyRouteBurst         int
	// LogRetentionDays applies to the access log and the function logs.
	// Default: 30.
	LogRetentionDays int
	// DestroyLogs deletes the log groups with the stack. Default: retained.
	DestroyLogs bool
	// CORS answers browser preflights. Default: nil, off.
	CORS *CORS

	// Monitor receives the API and function alarms and widgets
	// (*alarms.Operations). Default: nil, alarms are created but page nobody.
	Monitor gofunction.Monitor
	// ServerErrorPercent is the share of 5xx answers, of the whole stage
	// and of each money route on its own, at or above which a 5-minute
	// period breaches; 2 of 3 page. It is also each function's error rate.
	// Default: 2.
	ServerErrorPercent int
	// ClientErrorPercent is the share of 4xx answers (refused payments
	// included: they are normal up to a point) at or above which a period
	// breaches, 2 of 3. Default: 25.
	ClientErrorPercent int
	// ThrottledPercent is the share of 429 answers (the stage's or a money
	// route's throttling) at or above which a period breaches, 2 of 3.
	// Default: 5.
	ThrottledPercent int
	// MinRequests is the traffic guard of every rate: a 5-minute period
	// with fewer requests never breaches (a money route's own rates count
	// half as many). Default: 20.
	MinRequests int
	// SettledPaymentEvery, when set, pages when no settle succeeded for
	// that long (whole minutes): a heartbeat for an environment with steady
	// traffic, which also catches an API nobody can reach. Default: 0, off.
	SettledPaymentEvery time.Duration
	// LatencyP99 alarms when the p99 latency reaches it in 2 of 3 periods
	// of 5 minutes. Default: 3s.
	LatencyP99 time.Duration
}

// PaymentsAPI is the HTTP API, its functions and their access.
type PaymentsAPI struct {
	// Construct is the scope of every resource below (a field: jsii rejects
	// a Go struct that embeds a construct as a scope).
	Construct constructs.Construct
	// iamOperators are Props.IAMOperators and those AddIAMOperator added.
	iamOperators []string
	// API is the HTTP API; Stage its $default stage with throttling and
	// access logs.
	API   awsapigatewayv2.HttpApi
	Stage awsapigatewayv2.HttpStage
	// URL is the stage's invoke URL.
	URL *string
	// Functions maps httpapi.Function* to its function.
	Functions map[string]*gofunction.Function
	// Routes are the API Gateway routes, in the runtime's order.
	Routes []awsapigatewayv2.HttpRoute
	// AccessLogs receives one JSON line per request.
	AccessLogs awslogs.LogGroup
	// CursorSecret signs the api function's pagination cursors; the api
	// function reads it at run time, and RotationFunction rotates it.
	CursorSecret     awssecretsmanager.Secret
	RotationFunction *gofunction.Function
	// Alarms lists the API and function alarms.
	Alarms []awscloudwatch.Alarm
	// InvokePolicies, under IAM only, allow execute-api:Invoke on the
	// routes of each role in InvokePolicyRoles (ServiceInvoke,
	// OperatorInvoke); nil with a JWT authorizer.
	InvokePolicies map[httpapi.Role]awsiam.ManagedPolicy
}

// New adds the HTTP API with the routes of runtime/httpapi, one function
// per money flow plus the api function, least-privilege table access, and
// alarms.
func New(scope constructs.Construct, id string, props *Props) *PaymentsAPI {
	if props == nil || props.Table == nil {
		panic("paymentsapi: Props.Table is required")
	}
	p := *props
	p.ThrottleRatePerSecond = cmp.Or(p.ThrottleRatePerSecond, DefaultThrottleRatePerSecond)
	p.ThrottleBurst = cmp.Or(p.ThrottleBurst, DefaultThrottleBurst)
	p.LogRetentionDays = cmp.Or(p.LogRetentionDays, DefaultLogRetentionDays)
	p.ServerErrorPercent = cmp.Or(p.ServerErrorPercent, DefaultServerErrorPercent)
	p.ClientErrorPercent = cmp.Or(p.ClientErrorPercent, DefaultClientErrorPercent)
	p.ThrottledPercent = cmp.Or(p.ThrottledPercent, DefaultThrottledPercent)
	p.MinRequests = cmp.Or(p.MinRequests, DefaultMinRequests)
	p.LatencyP99 = cmp.Or(p.LatencyP99, DefaultLatencyP99)
	p.SecretRotation = cmp.Or(p.SecretRotation, DefaultSecretRotation)
	p.RemovalPolicy = cmp.Or(p.RemovalPolicy, awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE)
	p.MoneyRouteRatePerSecond = cmp.Or(p.MoneyRouteRatePerSecond, max(1, p.ThrottleRatePerSecond/2))
	p.MoneyRouteBurst = cmp.Or(p.MoneyRouteBurst, max(1, p.ThrottleBurst/2))
	if p.MoneyRouteRatePerSecond > p.ThrottleRatePerSecond || p.MoneyRouteBurst > p.ThrottleBurst {
		panic(fmt.Sprintf("paymentsapi: money route throttling %d/%d must not exceed the stage's %d/%d",
			p.MoneyRouteRatePerSecond, p.MoneyRouteBurst, p.ThrottleRatePerSecond, p.ThrottleBurst))
	}
	if p.SecretRotation < 24*time.Hour || p.SecretRotation%(24*time.Hour) != 0 {
		panic(fmt.Sprintf("paymentsapi: SecretRotation %s must be whole days", p.SecretRotation))
	}
	if p.ThrottleRatePerSecond < 1 || p.ThrottleBurst < 1 || p.LatencyP99 < time.Millisecond {
		panic(fmt.Sprintf("paymentsapi: throttling and LatencyP99 must be positive, got %d/%d/%s",
			p.ThrottleRatePerSecond, p.ThrottleBurst, p.LatencyP99))
	}
	if err := p.validateAlarms(); err != nil {
		panic("paymentsapi: " + err.Error())
	}
	if j := p.JWT; j != nil && (j.Issuer == "" || len(j.Audience) == 0) {
		panic("paymentsapi: JWT needs an Issuer and at least one Audience")
	}
	if err := p.Orders.Validate(); err != nil {
		panic("paymentsapi: Orders: " + err.Error())
	}
	auth := p.auth()
	if err := auth.Validate(); err != nil {
		panic("paymentsapi: JWT scopes: " + err.Error())
	}

	c := constructs.NewConstruct(scope, jsii.String(id))
	a := &PaymentsAPI{Construct: c, Functions: map[string]*gofunction.Function{}, iamOperators: append([]string(nil), auth.IAMOperators...)}

	a.cursorSecret(c, p)
	if p.TableKey != nil {
		gofunction.AllowLogsToUseKey(p.TableKey)
	}

	access := FunctionAccess(p.Orders.WithDefaults().Stage)
	for _, name := range Functions() {
		entry := p.Entries[name]
		if entry == "" {
			entry = "./lambdas/" + name
		}
		cfg := config.Payments{Table: *p.Table.TableName(), IdempotencyExpiry: p.IdempotencyExpiry, Orders: p.Orders.Config(),
			Auth: config.Auth{CustomerScope: auth.CustomerScope, OperatorScope: auth.OperatorScope, ServiceScope: auth.ServiceScope,
				UserClaim: auth.UserClaim, IAMOperators: auth.IAMOperators}, Homes: p.Homes}
		if name == httpapi.FunctionAPI {
			// The ARN, never the value: the function reads the value at run time.
			cfg.CursorSecretARN = *a.CursorSecret.SecretArn()
		}
		fn := gofunction.New(c, functionID(name), &gofunction.Props{
			Entry:               entry,
			ModuleDir:           p.ModuleDir,
			ModulePath:          modulePath(p, name),
			Description:         "oncetable " + name + " function",
			MemoryMB:            p.MemoryMB,
			Timeout:             p.Timeout,
			LogRetentionDays:    p.LogRetentionDays,
			DestroyLogs:         p.DestroyLogs,
			Environment:         cfg.Environment(),
			ReservedConcurrency: p.ReservedConcurrency[name],
			LogKey:              p.TableKey,
		})
		grant(fn.Role, p.Table, p.TableKey, access[name])
		grantFence(fn, p.Table, access[name])
		grantHomes(fn.Role, p.Table, p.Homes)
		if name == httpapi.FunctionAPI {
			fn.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String("ReadCursorSecret"),
				Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
				Resources: &[]*string{a.CursorSecret.SecretArn()},
			}))
			grantSecretKey(fn.Role, p, a.CursorSecret.SecretArn(), "kms:Decrypt")
		}
		suppressFunctionPCI(fn, p.TableKey == nil)
		cdknag.NagSuppressions_AddResourceSuppressions(fn.Function, &[]*cdknag.NagPackSuppression{{
			Id: jsii.String("Serverless-LambdaDLQ"),
			Reason: jsii.String("Invoked only synchronously by API Gateway: a dead-letter target applies to asynchronous " +
				"invocations; a failed request is answered to the caller and counted by the Errors alarm."),
		}}, jsii.Bool(false))
		a.Functions[name] = fn
	}

	var authorizer awsapigatewayv2.IHttpRouteAuthorizer
	if p.JWT != nil {
		authorizer = awsapigatewayv2authorizers.NewHttpJwtAuthorizer(jsii.String("JWTAuthorizer"), jsii.String(p.JWT.Issuer),
			&awsapigatewayv2authorizers.HttpJwtAuthorizerProps{JwtAudience: jsii.Strings(p.JWT.Audience...)})
	} else {
		authorizer = awsapigatewayv2authorizers.NewHttpIamAuthorizer()
	}
	apiProps := &awsapigatewayv2.HttpApiProps{
		Description:        jsii.String("oncetable payments API"),
		CreateDefaultStage: jsii.Bool(false),
		DefaultAuthorizer:  authorizer,
	}
	if p.CORS != nil {
		apiProps.CorsPreflight = &awsapigatewayv2.CorsPreflightOptions{
			AllowOrigins: jsii.Strings(p.CORS.AllowOrigins...),
			AllowHeaders: jsii.Strings(p.CORS.AllowHeaders...),
			AllowMethods: &[]awsapigatewayv2.CorsHttpMethod{awsapigatewayv2.CorsHttpMethod_GET, awsapigatewayv2.CorsHttpMethod_POST},
			MaxAge:       awscdk.Duration_Seconds(jsii.Number(p.CORS.MaxAge.Seconds())),
		}
	}
	a.API = awsapigatewayv2.NewHttpApi(c, jsii.String("HttpApi"), apiProps)

	a.AccessLogs = awslogs.NewLogGroup(c, jsii.String("AccessLogs"), &awslogs.LogGroupProps{
		Retention:     gofunction.RetentionDays(p.LogRetentionDays),
		RemovalPolicy: removal(p.DestroyLogs),
		EncryptionKey: p.TableKey,
	})
	if p.TableKey == nil {
		cdknag.NagSuppressions_AddResourceSuppressions(a.AccessLogs, &[]*cdknag.NagPackSuppression{{
			Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"),
			Reason: jsii.String("This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch " +
				"Logs encrypts the access log at rest with its own key. Environments with a key (prod) encrypt it with that key."),
		}}, jsii.Bool(false))
	}
	a.Stage = awsapigatewayv2.NewHttpStage(c, jsii.String("Stage"), &awsapigatewayv2.HttpStageProps{
		HttpApi:    a.API,
		StageName:  jsii.String("$default"),
		AutoDeploy: jsii.Bool(true),
		Throttle: &awsapigatewayv2.ThrottleSettings{
			RateLimit:  jsii.Number(float64(p.ThrottleRatePerSecond)),
			BurstLimit: jsii.Number(float64(p.ThrottleBurst)),
		},
		AccessLogSettings: &accessLogSettings{logGroup: a.AccessLogs},
	})
	a.URL = a.Stage.Url()

	integrations := map[string]awsapigatewayv2integrations.HttpLambdaIntegration{}
	for _, r := range DeclaredRoutes() {
		in, ok := integrations[r.Function]
		if !ok {
			in = awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String(functionID(r.Function)+"Integration"),
				a.Functions[r.Function].Function, nil)
			integrations[r.Function] = in
		}
		a.Routes = append(a.Routes, *a.API.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
			Path:                jsii.String(r.Path),
			Methods:             &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod(r.Method)},
			Integration:         in,
			Authorizer:          authorizer,
			AuthorizationScopes: routeScopes(r, p.JWT != nil, auth),
		})...)
	}
	if p.JWT == nil {
		a.invokePolicies(c)
	}

	a.throttleMoneyRoutes(p)
	a.monitor(p)
	return a
}

// DeclaredRoutes are the routes the HTTP API declares: each route under
// its version (/v1/...) and, until httpapi.LegacySunset, the same route
// without it, which the handler answers with Deprecation and Sunset
// headers. Both have the route's function, scopes and throttle; the
// money routes' metrics and alarms are the versioned routes'.
func DeclaredRoutes() []httpapi.RouteSpec {
	return append(httpapi.Routes(), httpapi.LegacyRoutes()...)
}

// throttleMoneyRoutes gives each money route its own limits below the
// stage's: the L2 stage has no per-route settings, so they are set on the
// CloudFormation stage.
func (a *PaymentsAPI) throttleMoneyRoutes(p Props) {
	settings := map[string]any{}
	for _, r := range DeclaredRoutes() {
		if r.Function == httpapi.FunctionAPI {
			continue
		}
		settings[r.Method+" "+r.Path] = map[string]any{
			"ThrottlingRateLimit":  p.MoneyRouteRatePerSecond,
			"ThrottlingBurstLimit": p.MoneyRouteBurst,
		}
	}
	// The money flows' own metrics (4xx, 5xx, Count by route), for their
	// error-rate alarms; billed as custom metrics, so only these routes.
	for _, r := range MoneyRoutes() {
		s, ok := settings[r.Method+" "+r.Path].(map[string]any)
		if !ok {
			s = map[string]any{}
			settings[r.Method+" "+r.Path] = s
		}
		s["DetailedMetricsEnabled"] = true
	}
	stage := a.Stage.Node().DefaultChild().(awsapigatewayv2.CfnStage)
	stage.AddPropertyOverride(jsii.String("RouteSettings"), settings)
	// The route keys must exist before the stage refers to them.
	for _, r := range a.Routes {
		stage.Node().AddDependency(r)
	}
}

// AddIAMOperator makes the IAM principal arn (a role ARN covers its
// sessions) an operator of every function, beside Props.IAMOperators: a
// backend the stack deploys itself, such as the canary (constructs/canary),
// whose role exists only once the API does.
func (a *PaymentsAPI) AddIAMOperator(arn *string) {
	a.iamOperators = append(a.iamOperators, *arn)
	for _, name := range Functions() {
		a.Functions[name].Function.AddEnvironment(jsii.String(config.AuthIAMOperatorsEnv), jsii.String(strings.Join(a.iamOperators, ",")), nil)
	}
}

// modulePath is the module whose directory a function is bundled from
// when ModuleDir is not set: oncetable's, unless Entries names another
// main package (which then lives in the app's own module).
func modulePath(p Props, name string) string {
	if p.Entries[name] != "" {
		return ""
	}
	return gofunction.OwnModulePath
}

func functionID(name string) string {
	return map[string]string{
		httpapi.FunctionAPI: "ApiFunction", httpapi.FunctionCharge: "ChargeFunction",
		httpapi.FunctionDebit: "DebitFunction", httpapi.FunctionSettle: "SettleFunction",
	}[name]
}

func removal(destroy bool) awscdk.RemovalPolicy {
	if destroy {
		return awscdk.RemovalPolicy_DESTROY
	}
	return awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
}

// grant writes the function's DynamoDB statements explicitly (not
// GrantReadWriteData, which adds actions the flows never call).
func grant(role awsiam.Role, table awsdynamodb.ITableV2, key awskms.IKey, acc Access) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("TableItems"),
		Actions:   jsii.Strings(sorted(acc.TableActions)...),
		Resources: &[]*string{table.TableArn()},
	}))
	if len(acc.Indexes) > 0 {
		var arns []*string
		for _, ix := range acc.Indexes {
			arns = append(arns, jsii.String(*table.TableArn()+"/index/"+ix))
		}
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("IndexQueries"),
			Actions:   jsii.Strings(sorted(acc.IndexActions)...),
			Resources: &arns,
		}))
	}
	if key != nil {
		region := awscdk.Stack_Of(role).Region()
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("TableKeyViaDynamoDB"),
			Actions:   jsii.Strings("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"),
			Resources: &[]*string{key.KeyArn()},
			Conditions: &map[string]any{
				"StringEquals": map[string]any{"kms:ViaService": "dynamodb." + *region + ".amazonaws.com"},
			},
		}))
	}
}

// grantFence gives a fenced order writer, at stage both, the fence's
// actions in a policy of its own that the function depends on (see
// Access.FenceActions for why not the default policy).
func grantFence(fn *gofunction.Function, table awsdynamodb.ITableV2, acc Access) {
	if len(acc.FenceActions) == 0 {
		return
	}
	policy := awsiam.NewPolicy(fn.Construct, jsii.String("MigrationFencePolicy"), &awsiam.PolicyProps{
		Roles: &[]awsiam.IRole{fn.Role},
		Statements: &[]awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("MigrationFence"),
			Actions:   jsii.Strings(sorted(acc.FenceActions)...),
			Resources: &[]*string{table.TableArn()},
		})},
	})
	fn.Function.Node().AddDependency(policy)
}

// HomeLeaseActions are what a function with homes calls on the lease
// table (runtime/home.Leases: read, create, renew), and HomeFenceActions
// what it adds to the money table: the fence's ConditionCheck, the trail's
// Put and a first home's ownership item.
var (
	HomeLeaseActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
	HomeFenceActions = []string{"dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem"}
)

// grantHomes gives a function of a table with homes its lease table and
// fence.
func grantHomes(role awsiam.Role, table awsdynamodb.ITableV2, h config.Homes) {
	if !h.Enabled() {
		return
	}
	h = h.WithDefaults()
	leases := awscdk.Stack_Of(role).FormatArn(&awscdk.ArnComponents{Service: jsii.String("dynamodb"), Region: jsii.String(h.LeaseRegion),
		Resource: jsii.String("table"), ResourceName: jsii.String(h.LeaseTable)})
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("HomeLeases"), Actions: jsii.Strings(sorted(HomeLeaseActions)...), Resources: &[]*string{leases},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("HomeFence"), Actions: jsii.Strings(sorted(HomeFenceActions)...), Resources: &[]*string{table.TableArn()},
	}))
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// accessLogFormat is one JSON object per request with the caller identity
// (IAM ARN and account, or JWT subject) so a request can be traced to who
// sent it, and API Gateway's own error and the integration's status, so a
// 4xx or 5xx that never reached a function can be told apart.
const accessLogFormat = `{"requestId":"$context.requestId","ip":"$context.identity.sourceIp",` +
	`"requestTime":"$context.requestTime","method":"$context.httpMethod","routeKey":"$context.routeKey",` +
	`"path":"$context.path","status":"$context.status","protocol":"$context.protocol",` +
	`"responseLength":"$context.responseLength","latencyMs":"$context.responseLatency",` +
	`"integrationLatencyMs":"$context.integrationLatency","integrationError":"$context.integrationErrorMessage",` +
	`"userArn":"$context.identity.userArn","accountId":"$context.identity.accountId",` +
	`"jwtSubject":"$context.authorizer.claims.sub","authorizerError":"$context.authorizer.error",` +
	`"errorMessage":"$context.error.message","errorResponseType":"$context.error.responseType",` +
	`"integrationStatus":"$context.integrationStatus","userAgent":"$context.identity.userAgent"}`

// accessLogSettings implements awsapigatewayv2.IAccessLogSettings; pointer
// receivers, as jsii needs an addressable value.
type accessLogSettings struct{ logGroup awslogs.LogGroup }

func (s *accessLogSettings) Destination() awsapigatewayv2.IAccessLogDestination {
	return awsapigatewayv2.NewLogGroupLogDestination(s.logGroup)
}

func (s *accessLogSettings) Format() awsapigateway.AccessLogFormat {
	return awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat))
}
