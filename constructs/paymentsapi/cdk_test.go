package paymentsapi

// Construct-level synthesis tests. They start jsii (Node.js): run them with
// the Makefile's PATH (node_modules/.bin first).

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}

type countingMonitor struct {
	alarms  int
	widgets int
}

func (m *countingMonitor) AddAlarm(a ...awscloudwatch.AlarmBase) { m.alarms += len(a) }
func (m *countingMonitor) AddWidgets(w ...awscloudwatch.IWidget) { m.widgets += len(w) }

type synthesized struct {
	api   *PaymentsAPI
	table *singletable.Table
	mon   *countingMonitor
	stack awscdk.Stack
	res   map[string]map[string]any // logical id -> resource
}

var (
	synthMu sync.Mutex
	synths  = map[string]*synthesized{}
)

// synth builds one stack per variant ("iam", "jwt") with both nag packs.
func synth(t *testing.T, variant string) *synthesized {
	t.Helper()
	synthMu.Lock()
	defer synthMu.Unlock()
	if s, ok := synths[variant]; ok {
		return s
	}
	root, err := gofunction.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	app := awscdk.NewApp(nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	st := awscdk.NewStack(app, jsii.String("Compute"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("eu-west-1")}})
	s := &synthesized{mon: &countingMonitor{}, stack: st}
	s.table = singletable.NewTable(st, "Data", &singletable.TableProps{CustomerManagedKey: variant == "iam"})
	p := &Props{Table: s.table.Table, TableKey: s.table.Key, Monitor: s.mon, ModuleDir: root}
	if variant == "jwt" {
		p.JWT = &JWTAuth{Issuer: "https://issuer.example.com/", Audience: []string{"payments-client"}}
	}
	s.api = New(st, "Payments", p)
	tmpl := assertions.Template_FromStack(st, nil)
	b, err := json.Marshal(tmpl.ToJSON())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Resources map[string]map[string]any }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	s.res = doc.Resources
	synths[variant] = s
	return s
}

func (s *synthesized) ofType(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.res {
		if r["Type"] == typ {
			props, _ := r["Properties"].(map[string]any)
			out[id] = props
		}
	}
	return out
}

func (s *synthesized) logicalID(c awscdk.CfnElement) string { return *s.stack.GetLogicalId(c) }

func (s *synthesized) functionIDs() map[string]string {
	out := map[string]string{}
	for name, fn := range s.api.Functions {
		out[s.logicalID(fn.Function.Node().DefaultChild().(awscdk.CfnElement))] = name
	}
	return out
}

func ref(id string) map[string]any    { return map[string]any{"Ref": id} }
func getAtt(id string) map[string]any { return map[string]any{"Fn::GetAtt": []any{id, "Arn"}} }

func TestSynthFunctions(t *testing.T) {
	s := synth(t, "iam")
	tableID := s.logicalID(s.table.Table.Node().DefaultChild().(awscdk.CfnElement))
	ids := s.functionIDs()
	fns := s.ofType("AWS::Lambda::Function")
	if len(fns) != len(Functions()) {
		t.Fatalf("got %d functions, want %d", len(fns), len(Functions()))
	}
	for id, f := range fns {
		name := ids[id]
		t.Run(name, func(t *testing.T) {
			for k, want := range map[string]any{
				"Runtime": "provided.al2023", "Handler": "bootstrap", "Architectures": []any{"arm64"},
				"MemorySize": 256.0, "Timeout": 10.0, "TracingConfig": map[string]any{"Mode": "Active"},
			} {
				if !reflect.DeepEqual(f[k], want) {
					t.Errorf("%s = %v, want %v", k, f[k], want)
				}
			}
			env := f["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(env["TABLE_NAME"], ref(tableID)) || env["IDEMPOTENCY_EXPIRY"] != "24h0m0s" {
				t.Errorf("environment %v, want TABLE_NAME=Ref %s and IDEMPOTENCY_EXPIRY=24h0m0s", env, tableID)
			}
			_, hasSecret := env[httpapi.CursorSecretEnv]
			if hasSecret != (name == httpapi.FunctionAPI) {
				t.Errorf("CURSOR_SECRET present = %v, want it only on the api function", hasSecret)
			}
			if s, ok := env[httpapi.CursorSecretEnv]; ok && !strings.Contains(fmt.Sprint(s), "resolve:secretsmanager") {
				t.Errorf("CURSOR_SECRET = %v, want a deploy-time secretsmanager reference", s)
			}
		})
	}
}

func TestSynthRoutesAuthorized(t *testing.T) {
	for _, variant := range []string{"iam", "jwt"} {
		t.Run(variant, func(t *testing.T) {
			s := synth(t, variant)
			fnByID := s.functionIDs()
			integrationFn := map[string]string{}
			for id, in := range s.ofType("AWS::ApiGatewayV2::Integration") {
				uri, _ := in["IntegrationUri"].(map[string]any)
				att, _ := uri["Fn::GetAtt"].([]any)
				if len(att) == 2 {
					integrationFn[id] = fnByID[att[0].(string)]
				}
			}
			authorizers := s.ofType("AWS::ApiGatewayV2::Authorizer")
			want := map[string]string{} // route key -> function
			for _, r := range httpapi.Routes() {
				want[r.Method+" "+r.Path] = r.Function
			}
			routes := s.ofType("AWS::ApiGatewayV2::Route")
			if len(routes) != len(want) {
				t.Errorf("got %d routes, want exactly the runtime's %d", len(routes), len(want))
			}
			for _, r := range routes {
				key := r["RouteKey"].(string)
				fn, ok := want[key]
				if !ok {
					t.Errorf("route %q is not in the runtime's table", key)
					continue
				}
				delete(want, key)
				target := fmt.Sprint(r["Target"])
				got := ""
				for id, name := range integrationFn {
					if strings.Contains(target, id) {
						got = name
					}
				}
				if got != fn {
					t.Errorf("route %q goes to %q, want %q", key, got, fn)
				}
				switch variant {
				case "iam":
					if r["AuthorizationType"] != "AWS_IAM" || r["AuthorizerId"] != nil {
						t.Errorf("route %q: authorization %v, want AWS_IAM", key, r["AuthorizationType"])
					}
				case "jwt":
					azID, _ := r["AuthorizerId"].(map[string]any)["Ref"].(string)
					az := authorizers[azID]
					jwt, _ := az["JwtConfiguration"].(map[string]any)
					if r["AuthorizationType"] != "JWT" || az["AuthorizerType"] != "JWT" ||
						!reflect.DeepEqual(jwt, map[string]any{"Issuer": "https://issuer.example.com/", "Audience": []any{"payments-client"}}) {
						t.Errorf("route %q: authorization %v with authorizer %v, want the JWT authorizer", key, r["AuthorizationType"], az)
					}
				}
			}
			for key := range want {
				t.Errorf("runtime route %q has no API Gateway route", key)
			}
		})
	}
}

func TestSynthLeastPrivilege(t *testing.T) {
	s := synth(t, "iam")
	tableID := s.logicalID(s.table.Table.Node().DefaultChild().(awscdk.CfnElement))
	keyID := s.logicalID(s.table.Key.Node().DefaultChild().(awscdk.CfnElement))
	access := FunctionAccess()
	for name, fn := range s.api.Functions {
		t.Run(name, func(t *testing.T) {
			roleID := s.logicalID(fn.Role.Node().DefaultChild().(awscdk.CfnElement))
			logsID := s.logicalID(fn.LogGroup.Node().DefaultChild().(awscdk.CfnElement))
			var stmts []map[string]any
			for _, pol := range s.ofType("AWS::IAM::Policy") {
				if reflect.DeepEqual(pol["Roles"], []any{ref(roleID)}) {
					for _, st := range pol["PolicyDocument"].(map[string]any)["Statement"].([]any) {
						stmts = append(stmts, st.(map[string]any))
					}
				}
			}
			role := s.res[roleID]["Properties"].(map[string]any)
			if role["ManagedPolicyArns"] != nil || role["Policies"] != nil {
				t.Errorf("role has managed or inline policies: %v", role)
			}
			acc := access[name]
			var indexARNs []any
			for _, ix := range acc.Indexes {
				indexARNs = append(indexARNs, map[string]any{"Fn::Join": []any{"", []any{getAtt(tableID), "/index/" + ix}}})
			}
			want := []map[string]any{
				{"Sid": "WriteOwnLogs", "Effect": "Allow", "Action": []any{"logs:CreateLogStream", "logs:PutLogEvents"}, "Resource": getAtt(logsID)},
				{"Effect": "Allow", "Action": []any{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, "Resource": "*"},
				{"Sid": "TableItems", "Effect": "Allow", "Action": anyList(acc.TableActions), "Resource": getAtt(tableID)},
			}
			if len(acc.Indexes) > 0 {
				want = append(want, map[string]any{"Sid": "IndexQueries", "Effect": "Allow", "Action": anyList(acc.IndexActions), "Resource": indexARNs})
			}
			want = append(want, map[string]any{"Sid": "TableKeyViaDynamoDB", "Effect": "Allow",
				"Action":    []any{"kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"},
				"Resource":  getAtt(keyID),
				"Condition": map[string]any{"StringEquals": map[string]any{"kms:ViaService": "dynamodb.eu-west-1.amazonaws.com"}}})
			if !reflect.DeepEqual(normalize(stmts), normalize(want)) {
				g, _ := json.MarshalIndent(stmts, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("statements differ\ngot:  %s\nwant: %s", g, w)
			}
			for _, st := range stmts {
				for _, a := range anyStrings(st["Action"]) {
					if strings.Contains(a, "*") {
						t.Errorf("wildcard action %q", a)
					}
				}
			}
		})
	}
}

func anyList(in []string) any {
	s := append([]string(nil), in...)
	sort.Strings(s)
	if len(s) == 1 {
		return s[0]
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func anyStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// normalize round-trips through JSON so both sides compare as plain values.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

func TestSynthAlarms(t *testing.T) {
	s := synth(t, "iam")
	alarms := s.ofType("AWS::CloudWatch::Alarm")
	type key struct{ ns, metric, stat string }
	count := map[key]int{}
	for _, a := range alarms {
		stat, _ := a["Statistic"].(string)
		if ext, ok := a["ExtendedStatistic"].(string); ok {
			stat = ext
		}
		count[key{a["Namespace"].(string), a["MetricName"].(string), stat}]++
		if a["TreatMissingData"] != "notBreaching" || a["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" {
			t.Errorf("alarm %v: missing data %v, operator %v", a["AlarmDescription"], a["TreatMissingData"], a["ComparisonOperator"])
		}
		if a["MetricName"] == "Duration" && a["Threshold"] != 8000.0 {
			t.Errorf("Duration alarm threshold %v, want 80%% of the 10s timeout", a["Threshold"])
		}
	}
	n := float64(len(Functions()))
	want := map[key]int{
		{"AWS/ApiGateway", "5xx", "Sum"}:     1,
		{"AWS/ApiGateway", "Latency", "p99"}: 1,
		{"AWS/Lambda", "Errors", "Sum"}:      int(n),
		{"AWS/Lambda", "Throttles", "Sum"}:   int(n),
		{"AWS/Lambda", "Duration", "p99"}:    int(n),
	}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("alarms by metric = %v, want %v", count, want)
	}
	if s.mon.alarms != len(alarms) || s.mon.widgets != 2+2*len(Functions()) {
		t.Errorf("monitor got %d alarms and %d widgets, want %d and %d", s.mon.alarms, s.mon.widgets, len(alarms), 2+2*len(Functions()))
	}
}

func TestSynthStage(t *testing.T) {
	s := synth(t, "iam")
	stages := s.ofType("AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 {
		t.Fatalf("got %d stages, want 1", len(stages))
	}
	for _, st := range stages {
		if st["StageName"] != "$default" || st["AutoDeploy"] != true {
			t.Errorf("stage %v", st)
		}
		if !reflect.DeepEqual(st["DefaultRouteSettings"], map[string]any{"ThrottlingBurstLimit": 200.0, "ThrottlingRateLimit": 100.0}) {
			t.Errorf("throttling %v, want rate 100 burst 200", st["DefaultRouteSettings"])
		}
		format := st["AccessLogSettings"].(map[string]any)["Format"].(string)
		var line map[string]any
		if err := json.Unmarshal([]byte(format), &line); err != nil || line["userArn"] == nil || line["status"] == nil {
			t.Errorf("access log format %q is not the JSON line with caller and status: %v", format, err)
		}
	}
	for _, api := range s.ofType("AWS::ApiGatewayV2::Api") {
		if api["CorsConfiguration"] != nil {
			t.Errorf("CORS configured by default: %v", api["CorsConfiguration"])
		}
	}
	for _, lg := range s.ofType("AWS::Logs::LogGroup") {
		if lg["RetentionInDays"] != 30.0 {
			t.Errorf("log group retention %v, want 30", lg["RetentionInDays"])
		}
	}
}

// TestSynthNag: AwsSolutions and Serverless report no unsuppressed error.
func TestSynthNag(t *testing.T) {
	for _, variant := range []string{"iam", "jwt"} {
		s := synth(t, variant)
		ann := assertions.Annotations_FromStack(s.stack)
		for _, m := range messages(ann.FindError(jsii.String("*"), assertions.Match_AnyValue())) {
			t.Errorf("%s: error at %s", variant, m)
		}
	}
}

// TestSynthBuildError: a compile error stops synthesis with the
// compiler's message as an error annotation, not a panic.
func TestSynthBuildError(t *testing.T) {
	root, err := gofunction.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	app := awscdk.NewApp(nil)
	st := awscdk.NewStack(app, jsii.String("Broken"), nil)
	gofunction.New(st, "Broken", &gofunction.Props{Entry: "./constructs/gofunction/testdata/broken", ModuleDir: root})
	errs := messages(assertions.Annotations_FromStack(st).FindError(jsii.String("*"), assertions.Match_AnyValue()))
	if len(errs) != 1 || !strings.Contains(errs[0], `cannot use "not a number"`) {
		t.Errorf("got errors %q, want one carrying the compiler's message", errs)
	}
}

// messages renders synthesis messages as "path: message" through JSON (the
// Go fields of cxapi.SynthesisMessage are deprecated aliases).
func messages[T any](found *[]*T) []string {
	var out []string
	for _, m := range *found {
		raw, _ := json.Marshal(m)
		var msg struct {
			ID    string `json:"id"`
			Entry struct {
				Data any `json:"data"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(raw, &msg)
		out = append(out, fmt.Sprintf("%s: %v", msg.ID, msg.Entry.Data))
	}
	return out
}
