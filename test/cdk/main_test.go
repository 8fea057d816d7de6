package cdk

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/canary"
	"github.com/oncetable/oncetable/constructs/checks"
	"github.com/oncetable/oncetable/constructs/paymentevents"
	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/constructs/slo"
	"github.com/oncetable/oncetable/constructs/totals"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/stacks"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// envs are the environments cdk.json must define, in the order tests report.
var envs = []string{"dev", "staging", "prod"}

// synthesized is one stack of the shared app, synthesized once per binary.
type synthesized struct {
	stack    awscdk.Stack
	template assertions.Template
	json     map[string]any // the template as plain Go values

	// The constructs, for logical IDs.
	table    *singletable.Table
	ops      *alarms.Operations
	payments *paymentsapi.PaymentsAPI
	events   *paymentevents.PaymentEvents // nil in the defaults stack
	slo      *slo.SLO                     // nil in the defaults stack
	totals   *totals.Totals               // nil in the defaults stack
	canary   *canary.Canary               // nil in the defaults stack
}

var (
	byEnv    = map[string]*synthesized{}
	defaults *synthesized // a stack of every construct with nil props
	// drStacks are the disaster-recovery stacks, by environment.
	drStacks = map[string]*synthesized{}
	// keyStacks are the replica Regions' key stacks, by stack name.
	keyStacks = map[string]*synthesized{}
	// byStage is dev at each order index stage: "v1" is byEnv["dev"] (as
	// cdk.json has it), "both" and "v2" are dev with cdk.json's
	// orderIndexes changed, each in an app of its own.
	byStage = map[schema.OrderIndexes]*synthesized{}
	// deployed is prod as `make deploy ENV=prod` builds it: the account and
	// the Slack IDs given at deploy time (deployTimeContext), in an app
	// of its own; deployedDR is its DR stack.
	deployed, deployedDR *synthesized
)

// deployTimeContext is what `make deploy ENV=prod ACCOUNT=...
// SLACK_WORKSPACE_ID=... SLACK_CHANNEL_ID=...` passes to the app.
var deployTimeContext = map[string]any{
	envconfig.SelectKey:           "prod",
	envconfig.AccountKey:          "111122223333",
	envconfig.SlackWorkspaceIDKey: "T07ABCDEF12",
	envconfig.SlackChannelIDKey:   "C07ABCDEF12",
	// The ticket channel, only as a cdk -c key (make has no variable for it).
	envconfig.SlackTicketChannelIDKey: "C07TICKETS1",
}

// deployedPager is the page topic's HTTPS subscriber of deployed.
const deployedPager = "https://events.pagerduty.com/integration/0123456789abcdef0123456789abcdef/enqueue"

// stageEnv is the environment synthesized at every order index stage.
const stageEnv = "dev"

func TestMain(m *testing.M) {
	code := func() int {
		defer jsii.Close()
		// Deploy-time settings of the developer's shell must not reach the
		// snapshots: they are synthesized as cdk.json alone has them.
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, "ONCETABLE_") {
				os.Unsetenv(kv[:strings.IndexByte(kv, '=')])
			}
		}
		dir, err := os.MkdirTemp("", "oncetable-cdk-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		if err := synthAll(); err != nil {
			fmt.Fprintln(os.Stderr, "synth:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

// appBinary returns the path of the CDK app built from this module:
// "oncetable" (app.go). (test/consumer is a module of its own with its own
// test.)
func appBinary(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "../..").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

// synthAll builds the real app from the repository's cdk.json (context and
// feature flags included) plus a defaults stack, with cdk-nag's AwsSolutions
// pack on everything, and synthesizes it once.
func synthAll() error {
	ctx, err := cdkContext()
	if err != nil {
		return err
	}
	app := newNagApp(ctx)
	built, err := stacks.AddEnvironments(app)
	if err != nil {
		return err
	}
	var dr []*synthesized
	for _, s := range built {
		byEnv[*s.Stack.StackName()] = &synthesized{stack: s.Stack, table: s.Table, ops: s.Operations, payments: s.Payments, events: s.Events, slo: s.SLO, totals: s.Totals, canary: s.Canary}
		if s.DR != nil {
			d := &synthesized{stack: s.DR.Stack}
			drStacks[s.Config.Name] = d
			dr = append(dr, d)
		}
		if s.Global != nil {
			for region, k := range s.Global.Keys {
				d := &synthesized{stack: k.Stack}
				keyStacks[stacks.KeyStackName(s.Config.Name, region)] = d
				dr = append(dr, d)
			}
		}
	}
	defaults = newDefaultsStack(app)
	// The Serverless and PCI DSS 3.2.1 packs run on every stack on top of AwsSolutions.
	for _, s := range append(append([]*synthesized{defaults}, values(byEnv)...), dr...) {
		addNagPacks(s)
	}

	all := append([]*synthesized{defaults}, dr...)
	for _, env := range envs {
		s, ok := byEnv[stacks.StackName(env)]
		if !ok {
			return fmt.Errorf("cdk.json defines no %s environment", env)
		}
		byEnv[env] = s
		all = append(all, s)
	}
	byStage[schema.OrdersV1] = byEnv[stageEnv]
	for _, stage := range []schema.OrderIndexes{schema.OrdersBoth, schema.OrdersV2} {
		s, err := newStageStack(stage)
		if err != nil {
			return err
		}
		byStage[stage] = s
		all = append(all, s)
	}
	if deployed, deployedDR, err = newDeployedStacks(); err != nil {
		return err
	}
	all = append(all, deployed, deployedDR)
	for _, s := range all {
		s.template = assertions.Template_FromStack(s.stack, nil)
		raw, err := json.Marshal(s.template.ToJSON())
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &s.json); err != nil {
			return err
		}
	}
	return nil
}

// cdkContext is the context of the repository's cdk.json, read afresh.
func cdkContext() (map[string]any, error) {
	cdkJSON, err := os.ReadFile(filepath.Join("..", "..", "cdk.json"))
	if err != nil {
		return nil, err
	}
	var file struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(cdkJSON, &file); err != nil {
		return nil, err
	}
	// With this flag on, synthesis aborts on the first error annotation; off,
	// cdk-nag's findings reach TestNag as annotations. Templates are the same.
	file.Context["@aws-cdk/core:validateAgainstDefaultRules"] = false
	return file.Context, nil
}

// newNagApp is an app with ctx and cdk-nag's AwsSolutions pack.
func newNagApp(ctx map[string]any) awscdk.App {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	return app
}

// newStageStack builds stageEnv from cdk.json with its orderIndexes set to
// stage, through the app's own path (context, envconfig, -c env=dev).
func newStageStack(stage schema.OrderIndexes) (*synthesized, error) {
	ctx, err := cdkContext()
	if err != nil {
		return nil, err
	}
	env, ok := ctx[envconfig.ContextKey].(map[string]any)[stageEnv].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cdk.json defines no %s environment", stageEnv)
	}
	env["orderIndexes"] = string(stage)
	ctx[envconfig.SelectKey] = stageEnv
	built, err := stacks.AddEnvironments(newNagApp(ctx))
	if err != nil {
		return nil, err
	}
	if len(built) != 1 || built[0].DR != nil {
		return nil, fmt.Errorf("stage %s: got %d stacks, want %s alone", stage, len(built), stageEnv)
	}
	b := built[0]
	s := &synthesized{stack: b.Stack, table: b.Table, ops: b.Operations, payments: b.Payments, events: b.Events, slo: b.SLO, totals: b.Totals, canary: b.Canary}
	addNagPacks(s)
	return s, nil
}

// newDeployedStacks builds prod with deployTimeContext and deployedPager
// through the app's own path, with the nag packs.
func newDeployedStacks() (*synthesized, *synthesized, error) {
	ctx, err := cdkContext()
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(ctx, deployTimeContext)
	// and a pager's events URL for the pages, as docs/deploy.md asks of prod
	// (a URL, not a deploy-time setting: it is no secret of the organization).
	prod := ctx[envconfig.ContextKey].(map[string]any)["prod"].(map[string]any)
	prod["notifications"] = map[string]any{"page": map[string]any{"httpsEndpoints": []any{deployedPager}}}
	built, err := stacks.AddEnvironments(newNagApp(ctx))
	if err != nil {
		return nil, nil, err
	}
	if len(built) != 1 || built[0].DR == nil {
		return nil, nil, fmt.Errorf("deployed prod: got %d stacks, want prod with its DR stack", len(built))
	}
	b := built[0]
	s := &synthesized{stack: b.Stack, table: b.Table, ops: b.Operations, payments: b.Payments, events: b.Events, slo: b.SLO, totals: b.Totals, canary: b.Canary}
	dr := &synthesized{stack: b.DR.Stack}
	addNagPacks(s)
	addNagPacks(dr)
	return s, dr, nil
}

func values(m map[string]*synthesized) []*synthesized {
	var out []*synthesized
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// addNagPacks adds the Serverless and PCI DSS 3.2.1 packs to s's stack.
func addNagPacks(s *synthesized) {
	awscdk.Aspects_Of(s.stack).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(s.stack).Add(cdknag.NewPCIDSS321Checks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
}

// newDefaultsStack uses every construct with nil props, as a consumer would.
func newDefaultsStack(app awscdk.App) *synthesized {
	stack := awscdk.NewStack(app, jsii.String("Defaults"), &awscdk.StackProps{
		Env: &awscdk.Environment{Region: jsii.String("eu-west-1")},
	})
	// Default props are production defaults, so the production checks pass.
	awscdk.Aspects_Of(stack).Add(checks.New(&checks.Props{Production: true}), nil)
	table := singletable.NewTable(stack, "Data", nil)
	ops := alarms.NewOperations(stack, "Operations", nil)
	ops.MonitorTable("Table", table.Table, nil)
	backup.NewTableBackup(stack, "Backup", table.Table, &backup.TableBackupProps{AlarmTopic: ops.Ticket.Topic, Monitor: ops})
	// The API needs its table; everything else is left to the defaults.
	payments := paymentsapi.New(stack, "Payments", &paymentsapi.Props{Table: table.Table, Monitor: ops})
	return &synthesized{stack: stack, table: table, ops: ops, payments: payments}
}

// check runs a CDK assertion, which panics on a mismatch, as a test error.
func check(t *testing.T, what string, assertion func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	assertion()
}
