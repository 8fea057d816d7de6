package cdk

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/stacks/envconfig"
)

// TestAppConfigErrors runs the real app (app.go) as the CDK CLI does, with
// the context in CDK_CONTEXT_JSON, and checks that configuration mistakes
// end it with exit status 1 and one clear line, not a panic trace.
func TestAppConfigErrors(t *testing.T) {
	bin := appBinary(t, "oncetable")
	cdkJSON, err := os.ReadFile(filepath.Join("..", "..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(cdkJSON, &file); err != nil {
		t.Fatal(err)
	}
	envs := file.Context[envconfig.ContextKey].(map[string]any)

	tests := []struct {
		name   string
		change func(ctx map[string]any)
		want   string
	}{
		{"unknown environment", func(ctx map[string]any) { ctx["env"] = "qa" },
			`oncetable: unknown environment "qa" (cdk.json oncetable:environments defines: dev, prod, staging)`},
		{"missing required value", func(ctx map[string]any) {
			ctx["env"] = "prod"
			prod := map[string]any{}
			for k, v := range envs["prod"].(map[string]any) {
				if k != "pitrRecoveryPeriodDays" {
					prod[k] = v
				}
			}
			ctx[envconfig.ContextKey] = map[string]any{"prod": prod}
		}, `oncetable: environment "prod": pitrRecoveryPeriodDays: required value is missing`},
		{"unknown order index stage", func(ctx map[string]any) {
			ctx["env"] = "dev"
			dev := map[string]any{}
			for k, v := range envs["dev"].(map[string]any) {
				dev[k] = v
			}
			dev["orderIndexes"] = "v3"
			ctx[envconfig.ContextKey] = map[string]any{"dev": dev}
		}, `oncetable: environment "dev": orderIndexes: "v3" is not "v1", "both" or "v2" (the stages of the orders-by-status migration, one per deploy: see docs/migrations.md)`},
		{"order shards out of range", func(ctx map[string]any) {
			dev := map[string]any{}
			for k, v := range envs["dev"].(map[string]any) {
				dev[k] = v
			}
			dev["orderShards"] = 0
			ctx[envconfig.ContextKey] = map[string]any{"dev": dev}
		}, `oncetable: environment "dev": orderShards: 0 is outside 1..100`},
		{"placeholder Slack workspace at deploy time", func(ctx map[string]any) {
			ctx["env"], ctx["account"] = "prod", "111122223333"
			ctx["slackWorkspaceId"], ctx["slackChannelId"] = "T0000000000", "C07ABCDEF12"
		}, `oncetable: environment "prod": slack.workspaceId: "T0000000000" is a placeholder, not a real Slack ID; pass the real one at deploy time (-c slackWorkspaceId=... or ONCETABLE_PROD_SLACK_WORKSPACE_ID), never in cdk.json`},
		{"Slack placeholder committed to cdk.json", func(ctx map[string]any) {
			prod := map[string]any{}
			for k, v := range envs["prod"].(map[string]any) {
				prod[k] = v
			}
			prod["slack"] = map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "C0000000000"}
			ctx[envconfig.ContextKey] = map[string]any{"prod": prod}
		}, `oncetable: environment "prod": slack.channelId: "C0000000000" is a placeholder, not a real Slack ID; pass the real one at deploy time (-c slackChannelId=... or ONCETABLE_PROD_SLACK_CHANNEL_ID), never in cdk.json`},
		{"account without an environment", func(ctx map[string]any) { ctx["account"] = "111122223333" },
			`oncetable: invalid environment configuration: -c account applies to one environment: add -c env=NAME`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := map[string]any{envconfig.ContextKey: envs}
			tt.change(ctx)
			raw, err := json.Marshal(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "CDK_CONTEXT_JSON="+string(raw), "CDK_OUTDIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			exit, ok := err.(*exec.ExitError)
			if !ok || exit.ExitCode() != 1 {
				t.Fatalf("got %v, want exit status 1; output:\n%s", err, out)
			}
			got := strings.TrimSpace(string(out))
			if got != tt.want {
				t.Errorf("got output:\n%s\nwant exactly:\n%s", got, tt.want)
			}
		})
	}
}
