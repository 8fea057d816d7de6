package cdk

import (
	"strings"
	"testing"

	probe "github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/config"
)

// TestCanary: every environment deploys the canary on a 5-minute
// schedule, its function calls the stack's API as an IAM operator (the
// OperatorInvoke policy, and its role listed in every payments function's
// AUTH_IAM_OPERATORS), and its alarm pages on failure or silence.
func TestCanary(t *testing.T) {
	for _, env := range envs {
		s := byEnv[env]
		t.Run(env, func(t *testing.T) {
			if s.canary == nil {
				t.Fatal("no canary")
			}
			res := s.json["Resources"].(map[string]any)
			fn := props(res[logicalID(s, s.canary.Function.Function)].(map[string]any))
			vars := fn["Environment"].(map[string]any)["Variables"].(map[string]any)
			if vars[probe.URLEnv] == nil || vars[probe.UserEnv] != "canary" {
				t.Errorf("canary environment %v, want the API's URL and the user canary", vars)
			}
			role := props(res[logicalID(s, s.canary.Function.Role)].(map[string]any))
			if !strings.Contains(compact(role["ManagedPolicyArns"]), logicalID(s, s.payments.InvokePolicies["operator"])) {
				t.Errorf("canary role's managed policies %s lack OperatorInvoke", compact(role["ManagedPolicyArns"]))
			}
			roleArn := compact(getAtt(logicalID(s, s.canary.Function.Role)))
			for name, f := range s.payments.Functions {
				env := props(res[logicalID(s, f.Function)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
				if !strings.Contains(compact(env[config.AuthIAMOperatorsEnv]), roleArn) {
					t.Errorf("%s: %s = %s, want the canary's role %s", name, config.AuthIAMOperatorsEnv, compact(env[config.AuthIAMOperatorsEnv]), roleArn)
				}
			}
			sched := props(res[*s.stack.GetLogicalId(s.canary.Schedule)].(map[string]any))
			if sched["ScheduleExpression"] != "rate(5 minutes)" {
				t.Errorf("schedule %v, want rate(5 minutes)", sched["ScheduleExpression"])
			}
			al := alarmResource(t, s, s.canary.Alarm)
			if al["TreatMissingData"] != "breaching" || al["ComparisonOperator"] != "LessThanThreshold" || al["Threshold"] != 1.0 {
				t.Errorf("canary alarm %v, want Success below 1, missing data breaching", al)
			}
		})
	}
}

// TestCanaryWhereverTheAPIIs: a canary probes every deployed API, and
// only those. A replica Region (prod's eu-west-2) holds a key stack and a
// table replica but no API, so it has nothing to probe and no canary.
func TestCanaryWhereverTheAPIIs(t *testing.T) {
	check := func(name string, s *synthesized) {
		t.Run(name, func(t *testing.T) {
			apis, probes := 0, 0
			for _, r := range s.json["Resources"].(map[string]any) {
				switch r.(map[string]any)["Type"] {
				case "AWS::ApiGatewayV2::Api":
					apis++
				case "AWS::Scheduler::Schedule":
					if strings.Contains(compact(r), "Canary") {
						probes++
					}
				}
			}
			if apis != probes {
				t.Errorf("got %d HTTP APIs and %d canary schedules, want one canary per API", apis, probes)
			}
		})
	}
	for _, env := range envs {
		check(env, byEnv[env])
	}
	if len(keyStacks) == 0 {
		t.Fatal("no replica Region's stack: cdk.json's prod has a replica")
	}
	for name, s := range keyStacks {
		check(name, s)
	}
	for env, s := range drStacks {
		check("dr-"+env, s)
	}
}
