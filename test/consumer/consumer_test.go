package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// template is the synthesized Payments stack, with the logical IDs of the
// constructs the test looks at.
type template struct {
	Resources map[string]struct {
		Type       string
		Properties map[string]any
	}
}

// TestConsumerApp synthesizes the app as the CDK CLI would, from this
// module's directory, which has no lambdas/: every function must come
// bundled from oncetable's module as this module's build resolves it.
func TestConsumerApp(t *testing.T) {
	defer jsii.Close()
	out := t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out)})
	s := newStack(app)
	app.Synth(nil)
	raw, err := os.ReadFile(filepath.Join(out, "Payments.template.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl template
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	t.Run("every function bundled from oncetable", func(t *testing.T) { bundled(t, tpl, out) })
	t.Run("two instances do not collide", func(t *testing.T) { noCollidingNames(t, tpl) })
	t.Run("own topic and bus", func(t *testing.T) { ownTopicAndBus(t, tpl, s) })
	t.Run("explicit zeros", func(t *testing.T) { explicitZeros(t, tpl, s) })
}

// bundled: each function's code is an asset of this synthesis holding a
// linux/arm64 bootstrap, and the functions of oncetable (api, charge,
// debit, settle, the cursor rotation, events and the restore validation)
// are all there, each built once, the payments ones shared by both
// instances.
func bundled(t *testing.T, tpl template, out string) {
	hashes := map[string]int{}
	for lid, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Function" {
			continue
		}
		code, _ := r.Properties["Code"].(map[string]any)
		key, _ := code["S3Key"].(string)
		hash, ok := strings.CutSuffix(key, ".zip")
		if !ok {
			t.Errorf("%s: code %v is not a bundled asset", lid, code)
			continue
		}
		hashes[hash]++
		f, err := elf.Open(filepath.Join(out, "asset."+hash, "bootstrap"))
		if err != nil {
			t.Errorf("%s: asset.%s/bootstrap: %v", lid, hash, err)
			continue
		}
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("%s: bootstrap for %v, want arm64", lid, f.Machine)
		}
		f.Close()
	}
	// Two APIs of 5 functions each (4 + the cursor rotation), two
	// outboxes of one and the restore tests' validation: 13 functions from
	// 7 distinct bundles.
	var counts []int
	for _, n := range hashes {
		counts = append(counts, n)
	}
	sort.Ints(counts)
	if want := []int{1, 2, 2, 2, 2, 2, 2}; !reflect.DeepEqual(counts, want) {
		t.Errorf("functions per bundle %v, want %v (7 bundles, those of the payments constructs used by both instances)", counts, want)
	}
}

// physicalNames are the properties that name a resource in its account
// and region: two resources of a type with the same name cannot coexist.
// (An HTTP API's Name is a label; APIs are told apart by their ids.)
var physicalNames = map[string]string{
	"AWS::Events::EventBus":                   "Name",
	"AWS::Events::Rule":                       "Name",
	"AWS::Backup::BackupPlan":                 "BackupPlan.BackupPlanName",
	"AWS::Backup::BackupVault":                "BackupVaultName",
	"AWS::Backup::RestoreTestingPlan":         "RestoreTestingPlanName",
	"AWS::Lambda::Function":                   "FunctionName",
	"AWS::SQS::Queue":                         "QueueName",
	"AWS::SNS::Topic":                         "TopicName",
	"AWS::Logs::LogGroup":                     "LogGroupName",
	"AWS::SecretsManager::Secret":             "Name",
	"AWS::CloudWatch::Dashboard":              "DashboardName",
	"AWS::IAM::Role":                          "RoleName",
	"AWS::Chatbot::SlackChannelConfiguration": "ConfigurationName",
}

func noCollidingNames(t *testing.T, tpl template) {
	seen := map[string]string{}
	for lid, r := range tpl.Resources {
		path, ok := physicalNames[r.Type]
		if !ok {
			continue
		}
		var v any = r.Properties
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if v == nil {
			continue // CloudFormation names it: unique
		}
		name, _ := json.Marshal(v)
		key := r.Type + " " + string(name)
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share the name %s", lid, other, key)
		}
		seen[key] = lid
	}
	if n := count(tpl, "AWS::ApiGatewayV2::Api"); n != 2 {
		t.Errorf("got %d HTTP APIs, want 2", n)
	}
}

// ownTopicAndBus: the failed-jobs rules publish to the team's topic; the
// second outbox publishes to the team's bus and makes no bus or archive
// of its own, while the first makes one of each.
func ownTopicAndBus(t *testing.T, tpl template, s *consumerStack) {
	topicID := logicalID(s.stack, s.topic.Node().DefaultChild())
	rules := 0
	for lid, r := range tpl.Resources {
		if r.Type != "AWS::Events::Rule" || !strings.HasPrefix(lid, "BackupFailed") {
			continue
		}
		rules++
		target := r.Properties["Targets"].([]any)[0].(map[string]any)
		if !reflect.DeepEqual(target["Arn"], map[string]any{"Ref": topicID}) {
			t.Errorf("%s targets %v, want the team's topic %s", lid, target["Arn"], topicID)
		}
	}
	if rules != 2 {
		t.Errorf("got %d failed-jobs rules, want FailedJobs and FailedRestores", rules)
	}
	if n, m := count(tpl, "AWS::Events::EventBus"), count(tpl, "AWS::Events::Archive"); n != 2 || m != 1 {
		t.Errorf("got %d buses and %d archives, want the team's bus and the first outbox's, archived", n, m)
	}
	busID := logicalID(s.stack, s.bus.Node().DefaultChild())
	fnID := logicalID(s.stack, s.ownBus.Function.Function.Node().DefaultChild())
	env := tpl.Resources[fnID].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	if !reflect.DeepEqual(env["EVENT_BUS_NAME"], map[string]any{"Ref": busID}) {
		t.Errorf("the second outbox's function publishes to %v, want the team's bus %s", env["EVENT_BUS_NAME"], busID)
	}
}

// explicitZeros: RetryAttempts new(0) and BatchingWindow new(0) reach
// the mapping as 0, while the first outbox keeps the defaults (10, 1 s).
func explicitZeros(t *testing.T, tpl template, s *consumerStack) {
	for _, tt := range []struct {
		id             string
		retries, batch float64
	}{
		{logicalID(s.stack, s.events.Mapping.Node().DefaultChild()), 10, 1},
		{logicalID(s.stack, s.ownBus.Mapping.Node().DefaultChild()), 0, 0},
	} {
		p := tpl.Resources[tt.id].Properties
		if p["MaximumRetryAttempts"] != tt.retries || p["MaximumBatchingWindowInSeconds"] != tt.batch {
			t.Errorf("%s: retries %v, window %v; want %v, %v", tt.id, p["MaximumRetryAttempts"], p["MaximumBatchingWindowInSeconds"], tt.retries, tt.batch)
		}
	}
}

func logicalID(stack awscdk.Stack, c any) string {
	return *stack.GetLogicalId(c.(awscdk.CfnElement))
}

func count(tpl template, typ string) int {
	n := 0
	for _, r := range tpl.Resources {
		if r.Type == typ {
			n++
		}
	}
	return n
}
