package cdk

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/constructs/singletable"
	probe "github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/stacks"
)

// computeCase is what each environment's compute must look like.
type computeCase struct {
	env                string
	rate, burst        float64
	retentionDays      float64
	deletionPolicy     string // of the log groups
	tableKey           bool   // the table has a customer-managed key
	serverErrorPercent float64
	latencyMs          float64
	// moneyRate and moneyBurst limit each money route (default: half the stage's).
	moneyRate, moneyBurst float64
	// iteratorAgeMs is the events function's IteratorAge alarm (no events function in defaults).
	iteratorAgeMs float64
}

var computeCases = []computeCase{
	// The money routes are throttled below what the table's write cap takes
	// (stacks.CheckCapacity).
	{"dev", 50, 100, 7, "Delete", false, 2, 3000, 2, 4, 300000},
	{"staging", 100, 200, 30, "RetainExceptOnCreate", false, 2, 3000, 5, 10, 120000},
	{"prod", 500, 1000, 365, "RetainExceptOnCreate", true, 1, 1500, 100, 200, 60000},
	{"defaults", 100, 200, 30, "RetainExceptOnCreate", false, 2, 3000, 50, 100, 0},
	// dev at the other order index stages (byStage).
	{"dev@both", 50, 100, 7, "Delete", false, 2, 3000, 2, 4, 300000},
	{"dev@v2", 50, 100, 7, "Delete", false, 2, 3000, 2, 4, 300000},
}

// stackOf is the stack of a computeCase: an environment, "defaults", or
// "dev@<stage>".
func stackOf(env string) *synthesized {
	if env == "defaults" {
		return defaults
	}
	if _, stage, ok := strings.Cut(env, "@"); ok {
		return byStage[schema.OrderIndexes(stage)]
	}
	return byEnv[env]
}

func logicalID(s *synthesized, c constructs.IConstruct) string {
	return *s.stack.GetLogicalId(c.Node().DefaultChild().(awscdk.CfnElement))
}

func getAtt(id string) map[string]any { return map[string]any{"Fn::GetAtt": []any{id, "Arn"}} }

// functionNames maps each function's logical ID to its name (api, charge, ...).
func functionNames(s *synthesized) map[string]string {
	out := map[string]string{}
	for name, fn := range s.payments.Functions {
		out[logicalID(s, fn.Function)] = name
	}
	return out
}

// TestComputeFunctions: every function runs the bundled bootstrap on
// provided.al2023/arm64 with tracing, its table and idempotency settings.
func TestComputeFunctions(t *testing.T) {
	for _, tc := range computeCases {
		t.Run(tc.env, func(t *testing.T) {
			s := stackOf(tc.env)
			tableID := logicalID(s, s.table.Table)
			names := functionNames(s)
			fns := resources(s, "AWS::Lambda::Function")
			others := map[string]bool{logicalID(s, s.payments.RotationFunction.Function): true}
			if s.events != nil {
				others[logicalID(s, s.events.Function.Function)] = true
			}
			if id, fn := validationFunction(s); fn != nil {
				others[id] = true // TestRestoreValidation
			}
			if id, fn := reconcileFunction(s); fn != nil {
				others[id] = true // TestReconcile
			}
			if s.totals != nil {
				others[logicalID(s, s.totals.Function.Function)] = true // TestTotals
			}
			for id := range fns {
				if strings.HasPrefix(id, "RegionWatch") {
					others[id] = true // TestReplicatedTable
				}
			}
			if s.canary != nil {
				others[logicalID(s, s.canary.Function.Function)] = true // TestCanary
			}
			if len(fns) != len(paymentsapi.Functions())+len(others) {
				t.Fatalf("got %d functions, want %d: the payments API's %d and the cursor secret's rotation, events, reconcile, totals, region watch and canary functions", len(fns), len(paymentsapi.Functions())+len(others), len(paymentsapi.Functions()))
			}
			for id, r := range fns {
				f, name := props(r), names[id]
				if others[id] {
					if got := f["Handler"]; got != "bootstrap" || f["Runtime"] != "provided.al2023" {
						t.Errorf("rotation function: %v", f)
					}
					continue
				}
				for k, want := range map[string]any{
					"Runtime": "provided.al2023", "Handler": "bootstrap", "Architectures": []any{"arm64"},
					"MemorySize": 256.0, "Timeout": 10.0, "TracingConfig": map[string]any{"Mode": "Active"},
					"LoggingConfig": map[string]any{"LogFormat": "JSON", "LogGroup": ref(logicalID(s, s.payments.Functions[name].LogGroup))},
				} {
					if !reflect.DeepEqual(f[k], want) {
						t.Errorf("%s: %s = %v, want %v", name, k, f[k], want)
					}
				}
				env := f["Environment"].(map[string]any)["Variables"].(map[string]any)
				if !reflect.DeepEqual(env["TABLE_NAME"], ref(tableID)) || env["IDEMPOTENCY_EXPIRY"] != "24h0m0s" {
					t.Errorf("%s: environment %v, want TABLE_NAME = Ref %s and IDEMPOTENCY_EXPIRY = 24h0m0s", name, env, tableID)
				}
				if _, ok := env[config.CursorSecretARNEnv]; ok != (name == httpapi.FunctionAPI) {
					t.Errorf("%s: %s set = %v, want it on the api function only", name, config.CursorSecretARNEnv, ok)
				}
				// THEN every payments function knows the table's order index stage
				orders := s.table.Orders
				if env[config.OrderIndexesEnv] != string(orders.Stage) || env[config.OrderShardsEnv] != strconv.Itoa(orders.Shards) {
					t.Errorf("%s: %s = %v, %s = %v; want %v, %v", name, config.OrderIndexesEnv, env[config.OrderIndexesEnv],
						config.OrderShardsEnv, env[config.OrderShardsEnv], orders.Stage, orders.Shards)
				}
				code := f["Code"].(map[string]any)
				if key, _ := code["S3Key"].(string); !strings.HasSuffix(key, ".zip") || len(key) != 64+len(".zip") {
					t.Errorf("%s: code %v is not the bundled asset", name, code)
				}
			}
			for id, r := range resources(s, "AWS::Logs::LogGroup") {
				if props(r)["RetentionInDays"] != tc.retentionDays || r["DeletionPolicy"] != tc.deletionPolicy {
					t.Errorf("log group %s: retention %v, deletion %v; want %v days, %s", id, props(r)["RetentionInDays"], r["DeletionPolicy"], tc.retentionDays, tc.deletionPolicy)
				}
				// With the environment's key, every log group is encrypted with it.
				key, ok := props(r)["KmsKeyId"]
				if ok != tc.tableKey || (ok && !reflect.DeepEqual(key, getAtt(logicalID(s, s.table.Key)))) {
					t.Errorf("log group %s: KmsKeyId %v, want the table's key: %v", id, key, tc.tableKey)
				}
			}
		})
	}
}

// TestComputeRoutes: the API's routes are exactly the declared ones (each
// route under /v1 and without it), each goes
// to its function and requires IAM authorization.
func TestComputeRoutes(t *testing.T) {
	for _, tc := range computeCases {
		t.Run(tc.env, func(t *testing.T) {
			checkRoutes(t, stackOf(tc.env), "AWS_IAM")
		})
	}
	t.Run("jwt", func(t *testing.T) {
		checkRoutes(t, variant(t).jwt, "JWT")
	})
}

func checkRoutes(t *testing.T, s *synthesized, authorization string) {
	t.Helper()
	names := functionNames(s)
	integrationFn := map[string]string{}
	for id, r := range resources(s, "AWS::ApiGatewayV2::Integration") {
		if att, ok := props(r)["IntegrationUri"].(map[string]any)["Fn::GetAtt"].([]any); ok {
			integrationFn[id] = names[att[0].(string)]
		}
	}
	want := map[string]string{}
	for _, r := range paymentsapi.DeclaredRoutes() {
		want[r.Method+" "+r.Path] = r.Function
	}
	routes := resources(s, "AWS::ApiGatewayV2::Route")
	if len(routes) != len(want) {
		t.Errorf("got %d routes, want exactly the runtime's %d", len(routes), len(want))
	}
	authorizers := resources(s, "AWS::ApiGatewayV2::Authorizer")
	for _, r := range routes {
		p := props(r)
		key := p["RouteKey"].(string)
		fn, ok := want[key]
		if !ok {
			t.Errorf("route %q is not in the runtime's route table", key)
			continue
		}
		delete(want, key)
		target := fmt.Sprint(p["Target"])
		got := ""
		for id, name := range integrationFn {
			if strings.Contains(target, id) {
				got = name
			}
		}
		if got != fn {
			t.Errorf("route %q goes to %q, want %q", key, got, fn)
		}
		if p["AuthorizationType"] != authorization {
			t.Errorf("route %q: authorization %v, want %s", key, p["AuthorizationType"], authorization)
		}
		if authorization == "JWT" {
			azID, _ := p["AuthorizerId"].(map[string]any)["Ref"].(string)
			jwt, _ := props(authorizers[azID])["JwtConfiguration"].(map[string]any)
			if !reflect.DeepEqual(jwt, map[string]any{"Issuer": "https://issuer.example.com/", "Audience": []any{"payments-client"}}) {
				t.Errorf("route %q: authorizer %v, want the configured JWT issuer and audience", key, authorizers[azID])
			}
		}
	}
	for key := range want {
		t.Errorf("runtime route %q has no API Gateway route", key)
	}
}

// TestComputeLeastPrivilege: each role holds exactly its statements: own
// logs, X-Ray, the DynamoDB actions its routes call on the table (and index)
// ARNs, and the table key only through DynamoDB. No wildcard action.
func TestComputeLeastPrivilege(t *testing.T) {
	for _, tc := range computeCases {
		s := stackOf(tc.env)
		access := paymentsapi.FunctionAccess(s.table.Orders.Stage)
		tableID := logicalID(s, s.table.Table)
		for name, fn := range s.payments.Functions {
			t.Run(tc.env+"/"+name, func(t *testing.T) {
				roleID := logicalID(s, fn.Role)
				var stmts []any
				for _, r := range resources(s, "AWS::IAM::Policy") {
					if p := props(r); reflect.DeepEqual(p["Roles"], []any{ref(roleID)}) {
						stmts = append(stmts, p["PolicyDocument"].(map[string]any)["Statement"].([]any)...)
					}
				}
				role := props(s.json["Resources"].(map[string]any)[roleID].(map[string]any))
				if role["ManagedPolicyArns"] != nil || role["Policies"] != nil {
					t.Errorf("role has managed or inline policies: %v", role)
				}
				acc := access[name]
				want := []any{
					map[string]any{"Sid": "WriteOwnLogs", "Effect": "Allow", "Action": []any{"logs:CreateLogStream", "logs:PutLogEvents"}, "Resource": getAtt(logicalID(s, fn.LogGroup))},
					map[string]any{"Effect": "Allow", "Action": []any{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, "Resource": "*"},
					map[string]any{"Sid": "TableItems", "Effect": "Allow", "Action": actionList(acc.TableActions), "Resource": getAtt(tableID)},
				}
				if len(acc.Indexes) > 0 {
					var arns []any
					for _, ix := range acc.Indexes {
						arns = append(arns, map[string]any{"Fn::Join": []any{"", []any{getAtt(tableID), "/index/" + ix}}})
					}
					want = append(want, map[string]any{"Sid": "IndexQueries", "Effect": "Allow", "Action": actionList(acc.IndexActions), "Resource": arns})
				}
				if len(acc.FenceActions) > 0 {
					want = append(want, map[string]any{"Sid": "MigrationFence", "Effect": "Allow", "Action": actionList(acc.FenceActions), "Resource": getAtt(tableID)})
					checkFencePolicy(t, s, fn)
				}
				if name == httpapi.FunctionAPI {
					secretID := logicalID(s, s.payments.CursorSecret)
					want = append(want, map[string]any{"Sid": "ReadCursorSecret", "Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": ref(secretID)})
					if tc.tableKey {
						want = append(want, map[string]any{"Sid": "CursorSecretKeyViaSecretsManager", "Effect": "Allow", "Action": "kms:Decrypt",
							"Resource": getAtt(logicalID(s, s.table.Key)),
							"Condition": map[string]any{"StringEquals": map[string]any{
								"kms:ViaService": "secretsmanager.eu-west-1.amazonaws.com", "kms:EncryptionContext:SecretARN": ref(secretID)}}})
					}
				}
				if tc.tableKey {
					want = append(want, map[string]any{"Sid": "TableKeyViaDynamoDB", "Effect": "Allow",
						"Action":    []any{"kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"},
						"Resource":  getAtt(logicalID(s, s.table.Key)),
						"Condition": map[string]any{"StringEquals": map[string]any{"kms:ViaService": "dynamodb.eu-west-1.amazonaws.com"}}})
				}
				if tc.env == "prod" {
					// prod has regions: every function uses the lease table and the fence.
					want = append(want,
						map[string]any{"Sid": "HomeLeases", "Effect": "Allow", "Action": actionList(paymentsapi.HomeLeaseActions),
							"Resource": map[string]any{"Fn::Join": []any{"", []any{"arn:aws:dynamodb:eu-west-1:", map[string]any{"Ref": "AWS::AccountId"}, ":table/" + stacks.LeaseTableName("prod")}}}},
						map[string]any{"Sid": "HomeFence", "Effect": "Allow", "Action": actionList(paymentsapi.HomeFenceActions), "Resource": getAtt(tableID)})
				}
				if !reflect.DeepEqual(canonical(stmts), canonical(want)) {
					got, _ := json.MarshalIndent(stmts, "", "  ")
					exp, _ := json.MarshalIndent(want, "", "  ")
					t.Errorf("statements differ\ngot:  %s\nwant: %s", got, exp)
				}
				for _, st := range stmts {
					for _, a := range strings.Fields(fmt.Sprint(st.(map[string]any)["Action"])) {
						if strings.Contains(a, "*") {
							t.Errorf("wildcard action %s", a)
						}
					}
				}
			})
		}
	}
}

// checkFencePolicy: the fence's grant is a policy of its own, on the
// function's role only, that the function depends on, so CloudFormation
// creates it before the function starts fencing and deletes it only after
// the function stopped (Access.FenceActions).
func checkFencePolicy(t *testing.T, s *synthesized, fn *gofunction.Function) {
	t.Helper()
	child := fn.Construct.Node().TryFindChild(jsii.String("MigrationFencePolicy"))
	if child == nil {
		t.Fatal("no MigrationFencePolicy under the function")
	}
	policyID := logicalID(s, child)
	policy := s.json["Resources"].(map[string]any)[policyID].(map[string]any)
	if got := props(policy)["Roles"]; !reflect.DeepEqual(got, []any{ref(logicalID(s, fn.Role))}) {
		t.Errorf("fence policy %s: Roles %v, want the function's role only", policyID, got)
	}
	deps, _ := s.json["Resources"].(map[string]any)[logicalID(s, fn.Function)].(map[string]any)["DependsOn"].([]any)
	if !slices.Contains(deps, any(policyID)) {
		t.Errorf("function DependsOn %v, want it to include the fence policy %s", deps, policyID)
	}
}

// canonical sorts the statements and their action lists: the
// minimizePolicies flag orders them its own way.
func canonical(stmts []any) []string {
	var out []string
	for _, st := range stmts {
		m := map[string]any{}
		for k, v := range st.(map[string]any) {
			m[k] = v
		}
		if list, ok := m["Action"].([]any); ok {
			sorted := append([]any(nil), list...)
			sort.Slice(sorted, func(i, j int) bool { return fmt.Sprint(sorted[i]) < fmt.Sprint(sorted[j]) })
			m["Action"] = sorted
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// actionList is how CDK renders an action list: a string for one action,
// a sorted list otherwise.
func actionList(actions []string) any {
	s := append([]string(nil), actions...)
	sort.Strings(s)
	if len(s) == 1 {
		return s[0]
	}
	out := make([]any, len(s))
	for i, a := range s {
		out[i] = a
	}
	return out
}

// TestComputeAlarms: the API's 5xx, 4xx and 429 rates, each money route's
// 5xx rate and p99 latency, and per function its error rate (a count for
// the rotation), throttle rate, p99 duration and, with reserved
// concurrency, its concurrency; the events function's lag, stuck mapping
// and dead letters; prod's settle heartbeat. Rates are guarded metric math
// over 2 of 3 periods; the dashboard has their widgets.
func TestComputeAlarms(t *testing.T) {
	for _, tc := range computeCases {
		t.Run(tc.env, func(t *testing.T) {
			s := stackOf(tc.env)
			stackPath := *s.stack.Node().Path() + "/"
			path := func(c constructs.IConstruct) string { return strings.TrimPrefix(*c.Node().Path(), stackPath) }
			got := map[string][3]float64{}
			var all []awscloudwatch.Alarm
			all = append(all, s.payments.Alarms...)
			if s.events != nil {
				all = append(all, s.events.Alarms...)
			}
			for _, a := range all {
				p := alarmResource(t, s, a)
				got[path(a)] = [3]float64{p["Threshold"].(float64), p["EvaluationPeriods"].(float64), datapoints(p)}
				if expr := compact(p["Metrics"]); strings.Contains(expr, "100 *") && !strings.Contains(expr, "IF(") {
					t.Errorf("%s: a rate without a traffic guard: %s", path(a), expr)
				}
			}
			pct, rate := float64(tc.serverErrorPercent), func(v float64) [3]float64 { return [3]float64{v, 3, 2} }
			api := path(s.payments.Construct) + "/"
			want := map[string][3]float64{
				api + "ServerErrorsAlarm": rate(pct), api + "ClientErrorsAlarm": rate(25), api + "ThrottledAlarm": rate(5),
				api + "LatencyAlarm": rate(tc.latencyMs),
				// what the functions say (obs.Catalogue)
				api + "UnavailableAnswersAlarm": rate(pct), api + "KeyReuseSurgeAlarm": rate(paymentsapi.KeyReusedPercent),
				api + "UnexpectedErrorsAlarm": {1, 1, 1}, api + "MoneyFrozenAlarm": {1, 1, 1},
				api + "FenceCancellationsAlarm": {1, 1, 1}, api + "LeaseLostAlarm": {1, 3, 2},
			}
			for _, r := range paymentsapi.MoneyRoutes() {
				want[api+strings.ToUpper(r.Name[:1])+r.Name[1:]+"ServerErrorsAlarm"] = rate(pct)
			}
			fns := map[string]*gofunction.Function{paymentsapi.RotationFunctionName: s.payments.RotationFunction}
			maps.Copy(fns, s.payments.Functions)
			if s.events != nil {
				fns["events"] = s.events.Function
				ev := path(s.events.Construct) + "/"
				want[ev+"IteratorAgeAlarm"] = rate(tc.iteratorAgeMs)
				want[ev+"StuckAlarm"] = [3]float64{1, 3, 3}
				want[ev+"FailureQueueAlarm"] = [3]float64{0, 1, 1}
			}
			for name, fn := range fns {
				f := path(fn.Construct) + "/"
				switch name {
				case paymentsapi.RotationFunctionName:
					want[f+"ErrorsAlarm"] = [3]float64{1, 1, 1}
				case "events":
					want[f+"ErrorsAlarm"] = rate(5)
				default:
					want[f+"ErrorsAlarm"] = rate(pct)
				}
				want[f+"ThrottlesAlarm"] = rate(1)
				want[f+"DurationAlarm"] = rate(8000) // 80% of the 10 s timeout
				if fn.ReservedConcurrency > 0 {
					want[f+"ConcurrencyAlarm"] = rate(float64(fn.ReservedConcurrency) * 0.8)
				}
			}
			if tc.env == "prod" {
				want[api+"NoSettledPaymentAlarm"] = [3]float64{1, 1, 1}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("compute alarms (path: threshold, periods, datapoints)\n got  %v\n want %v", got, want)
			}
			_, dash := only(t, s, "AWS::CloudWatch::Dashboard")
			body, _ := json.Marshal(props(dash)["DashboardBody"])
			for _, title := range []string{"Payments API: requests, 4xx, 5xx, 429", "Payments API: latency p99", "Money routes: 5xx rate by route",
				"charge Lambda: invocations, errors, throttles", "api Lambda: duration p50 / p99", "concurrent executions"} {
				if !strings.Contains(string(body), title) {
					t.Errorf("dashboard has no widget %q", title)
				}
			}
		})
	}
}

// TestComputeStage: throttling per environment, JSON access logs, no CORS.
func TestComputeStage(t *testing.T) {
	for _, tc := range computeCases {
		t.Run(tc.env, func(t *testing.T) {
			s := stackOf(tc.env)
			_, stage := only(t, s, "AWS::ApiGatewayV2::Stage")
			p := props(stage)
			if p["StageName"] != "$default" || p["AutoDeploy"] != true {
				t.Errorf("stage %v, want $default with auto deploy", p)
			}
			if want := map[string]any{"ThrottlingRateLimit": tc.rate, "ThrottlingBurstLimit": tc.burst}; !reflect.DeepEqual(p["DefaultRouteSettings"], want) {
				t.Errorf("throttling %v, want %v", p["DefaultRouteSettings"], want)
			}
			logs := p["AccessLogSettings"].(map[string]any)
			var line map[string]string
			if err := json.Unmarshal([]byte(logs["Format"].(string)), &line); err != nil {
				t.Errorf("access log format %v is not one JSON object: %v", logs["Format"], err)
			}
			for field, variable := range map[string]string{"requestId": "$context.requestId", "status": "$context.status",
				"userArn": "$context.identity.userArn", "accountId": "$context.identity.accountId",
				"errorMessage": "$context.error.message", "errorResponseType": "$context.error.responseType",
				"integrationStatus": "$context.integrationStatus"} {
				if line[field] != variable {
					t.Errorf("access log field %s = %q, want %q", field, line[field], variable)
				}
			}
			// THEN each money route has its own limits below the stage's, and
			// every money-flow route its own (detailed) metrics for its alarm
			wantRoutes := map[string]any{}
			for _, r := range paymentsapi.DeclaredRoutes() {
				if r.Function != httpapi.FunctionAPI {
					wantRoutes[r.Method+" "+r.Path] = map[string]any{"ThrottlingRateLimit": tc.moneyRate, "ThrottlingBurstLimit": tc.moneyBurst}
				}
			}
			for _, r := range paymentsapi.MoneyRoutes() {
				s, ok := wantRoutes[r.Method+" "+r.Path].(map[string]any)
				if !ok {
					s = map[string]any{}
					wantRoutes[r.Method+" "+r.Path] = s
				}
				s["DetailedMetricsEnabled"] = true
			}
			if !reflect.DeepEqual(p["RouteSettings"], wantRoutes) {
				t.Errorf("RouteSettings %v, want %v", p["RouteSettings"], wantRoutes)
			}
			if !reflect.DeepEqual(logs["DestinationArn"], getAtt(logicalID(s, s.payments.AccessLogs))) {
				t.Errorf("access logs go to %v, want the access log group", logs["DestinationArn"])
			}
			_, api := only(t, s, "AWS::ApiGatewayV2::Api")
			if props(api)["CorsConfiguration"] != nil {
				t.Errorf("CORS is on: %v", props(api)["CorsConfiguration"])
			}
		})
	}
}

// TestComputeOutputs: the API URL, the table's name (make freeze reads it), the
// bus and the events failure queue (make republish reads them)
// and every function name are outputs.
func TestComputeOutputs(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			outputs, _ := s.json["Outputs"].(map[string]any)
			for _, name := range []string{"ApiUrl", "TableName", "EventBusName", "EventsFailureQueueUrl", "ApiFunctionName", "ChargeFunctionName", "DebitFunctionName", "SettleFunctionName"} {
				if _, ok := outputs[name]; !ok {
					t.Errorf("no output %s (outputs: %v)", name, keys(outputs))
				}
			}
			if v := outputs["TableName"].(map[string]any)["Value"]; !reflect.DeepEqual(v, ref(logicalID(s, s.table.Table))) {
				t.Errorf("output TableName = %v, want the table's name", v)
			}
			for name, fn := range s.payments.Functions {
				id := strings.ToUpper(name[:1]) + name[1:] + "FunctionName"
				if v := outputs[id].(map[string]any)["Value"]; !reflect.DeepEqual(v, ref(logicalID(s, fn.Function))) {
					t.Errorf("output %s = %v, want the function's name", id, v)
				}
			}
		})
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// variants are stacks of their own app: the JWT option, and a function
// that does not compile.
type variants struct {
	jwt    *synthesized
	broken awscdk.Stack
}

var (
	variantsOnce sync.Once
	variantStore variants
)

func variant(t *testing.T) variants {
	t.Helper()
	variantsOnce.Do(func() {
		app := awscdk.NewApp(nil)
		st := awscdk.NewStack(app, jsii.String("Jwt"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("eu-west-1")}})
		table := singletable.NewTable(st, "Data", nil)
		api := paymentsapi.New(st, "Payments", &paymentsapi.Props{Table: table.Table,
			JWT: &paymentsapi.JWTAuth{Issuer: "https://issuer.example.com/", Audience: []string{"payments-client"}, CustomerScope: jwtCustomerScope}})
		s := &synthesized{stack: st, payments: api, table: table}
		s.template = assertions.Template_FromStack(st, nil)
		raw, _ := json.Marshal(s.template.ToJSON())
		json.Unmarshal(raw, &s.json)
		variantStore.jwt = s

		broken := awscdk.NewStack(awscdk.NewApp(nil), jsii.String("Broken"), nil)
		gofunction.New(broken, "Broken", &gofunction.Props{Entry: "./constructs/gofunction/testdata/broken"})
		variantStore.broken = broken
	})
	return variantStore
}

// TestComputeBuildError: a function that does not compile stops synthesis
// with the compiler's message (an error annotation), not a panic.
func TestComputeBuildError(t *testing.T) {
	found := messages(assertions.Annotations_FromStack(variant(t).broken).FindError(jsii.String("*"), assertions.Match_AnyValue()))
	if len(found) != 1 || !strings.Contains(found[0], `cannot use "not a number"`) {
		t.Errorf("got errors %q, want one carrying the compiler's message", found)
	}
}

// TestFunctionEnvironmentRoundTrip: the environment each construct writes
// is exactly what its function's main reads (runtime/config): loaded back
// with the matching Load, it is written again unchanged, with no variable
// more or less. A CloudFormation value (Ref, Fn::GetAtt) stands for one
// opaque string.
func TestFunctionEnvironmentRoundTrip(t *testing.T) {
	stacks := map[string]*synthesized{"defaults": defaults, "deployed": deployed}
	for name, s := range byEnv {
		stacks[name] = s
	}
	for stage, s := range byStage {
		stacks["dev@"+string(stage)] = s
	}
	for sname, s := range stacks {
		for id, r := range s.json["Resources"].(map[string]any) {
			res := r.(map[string]any)
			if res["Type"] != "AWS::Lambda::Function" {
				continue
			}
			env := map[string]string{}
			if e, ok := props(res)["Environment"].(map[string]any); ok {
				for k, v := range e["Variables"].(map[string]any) {
					if str, ok := v.(string); ok {
						env[k] = str
					} else {
						raw, _ := json.Marshal(v)
						env[k] = "cfn:" + string(raw)
					}
				}
			}
			get := func(k string) string { return env[k] }
			var back map[string]string
			var err error
			switch {
			case env[config.ReconcileSegmentsEnv] != "":
				var c config.Reconcile
				c, err = config.LoadReconcile(get)
				back = c.Environment()
			case env[config.PlatformShardsEnv] != "":
				var c config.Totals
				c, err = config.LoadTotals(get)
				back = c.Environment()
			case env[config.TableNameEnv] != "" && strings.HasPrefix(id, "RegionWatch"):
				var c config.RegionWatch
				c, err = config.LoadRegionWatch(get)
				back = c.Environment()
			case env[config.TableNameEnv] != "":
				var c config.Payments
				c, err = config.LoadPayments(get)
				back = c.Environment()
			case env[config.EventBusNameEnv] != "":
				var c config.Events
				c, err = config.LoadEvents(get)
				back = c.Environment()
			case env[probe.URLEnv] != "":
				var c probe.Config
				c, err = probe.LoadConfig(get)
				back = c.Environment()
			case env[config.VerifySegmentsEnv] != "":
				var c config.RestoreValidation
				c, err = config.LoadRestoreValidation(get)
				back = c.Environment()
			default: // the rotation function reads no configuration
				back = map[string]string{}
			}
			if err != nil || !reflect.DeepEqual(back, env) {
				t.Errorf("%s/%s: the construct writes %v; its main reads it back as %v (%v)", sname, id, env, back, err)
			}
		}
	}
}
