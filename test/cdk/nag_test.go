package cdk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/runtime/schema"
)

// findingPattern matches a finding of cdk-nag's AwsSolutions, Serverless and
// PCI DSS 3.2.1 packs and of the project's own rules (constructs/checks).
const findingPattern = `(AwsSolutions|Serverless|PCI\.DSS\.321|OnceTable)-.*`

// nagStacks are every stack the packs run on, by name for subtests.
func nagStacks() map[string]*synthesized {
	out := map[string]*synthesized{"defaults": defaults}
	for _, env := range envs {
		out[env] = byEnv[env]
	}
	for env, s := range drStacks {
		out[env+"-dr"] = s
	}
	for name, s := range keyStacks {
		out[name] = s
	}
	for stage, s := range byStage {
		if stage != schema.OrdersV1 { // v1 is byEnv[stageEnv]
			out[stageEnv+"@"+string(stage)] = s
		}
	}
	return out
}

// TestNag checks that cdk-nag's AwsSolutions, Serverless and PCI DSS 3.2.1
// packs and the project's own rules, applied to every stack in TestMain,
// find no unsuppressed error or warning.
func TestNag(t *testing.T) {
	for name, s := range nagStacks() {
		t.Run(name, func(t *testing.T) {
			found := findings(s.stack)
			for kind, found := range found {
				for _, f := range found {
					t.Errorf("unsuppressed cdk-nag %s: %s", kind, f)
				}
			}
		})
	}
}

// findings lists the stack's nag and own-rule findings by kind.
func findings(stack awscdk.Stack) map[string][]string {
	annotations := assertions.Annotations_FromStack(stack)
	return map[string][]string{
		"error":   messages(annotations.FindError(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String(findingPattern)))),
		"warning": messages(annotations.FindWarning(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String(findingPattern)))),
	}
}

// TestNagSuppressionsHaveReasons checks every suppression names one rule
// and says specifically why it does not apply.
func TestNagSuppressionsHaveReasons(t *testing.T) {
	for env, s := range nagStacks() {
		t.Run(env, func(t *testing.T) {
			if strings.HasSuffix(env, "-dr") || strings.HasSuffix(env, "-key") {
				t.Skip("the DR and key stacks need no suppression")
			}
			count := 0
			for id, r := range s.json["Resources"].(map[string]any) {
				meta, _ := r.(map[string]any)["Metadata"].(map[string]any)
				nag, _ := meta["cdk_nag"].(map[string]any)
				rules, _ := nag["rules_to_suppress"].([]any)
				for _, rule := range rules {
					count++
					rm := rule.(map[string]any)
					ruleID, _ := rm["id"].(string)
					reason, _ := rm["reason"].(string)
					if !strings.HasPrefix(ruleID, "AwsSolutions-") && !strings.HasPrefix(ruleID, "Serverless-") && !strings.HasPrefix(ruleID, "PCI.DSS.321-") {
						t.Errorf("%s: suppression of %q is not one AwsSolutions, Serverless or PCI DSS 3.2.1 rule", id, ruleID)
					}
					if len(reason) < 80 {
						t.Errorf("%s: suppression of %s has a reason too short to be specific: %q", id, ruleID, reason)
					}
					if _, ok := rm["applies_to"]; !ok && strings.HasPrefix(ruleID, "AwsSolutions-IAM") {
						t.Errorf("%s: IAM suppression of %s must name the findings it applies to (appliesTo)", id, ruleID)
					}
				}
			}
			if count == 0 {
				t.Error("no suppression found; if none is needed any more, delete this test")
			}
		})
	}
}

// messages renders synthesis messages as "path: message". It goes through
// JSON because the Go fields of cxapi.SynthesisMessage are deprecated aliases.
func messages[T any](found *[]*T) []string {
	var out []string
	if found == nil {
		return out
	}
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
