package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun checks deploycheck against the repository's cdk.json: what make
// deploy and make bootstrap are refused without, and what bootstrap is
// given.
func TestRun(t *testing.T) {
	cdkJSON := filepath.Join("..", "..", "cdk.json")
	slack := []string{"-slackWorkspaceId", "T07ABCDEF12", "-slackChannelId", "C07ABCDEF12"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    string // stdout
		wantErr string
	}{
		{"no environment", nil, nil, "", "-env is required"},
		{"unknown environment", []string{"-env", "qa"}, nil, "", `unknown environment "qa"`},
		{"dev without an account", []string{"-env", "dev"}, nil, "", `environment "dev": account: no account to deploy into`},
		{"dev with an account", []string{"-env", "dev", "-account", "444455556666"}, nil, "", ""},
		{"prod without a pager", []string{"-env", "prod", "-account", "111122223333"}, nil, "", `environment "prod": slack: production would page nobody`},
		{"prod with a placeholder", append([]string{"-env", "prod", "-account", "111122223333", "-slackWorkspaceId", "T0000000000"}, slack[2:]...), nil, "",
			`environment "prod": slack.workspaceId: "T0000000000" is a placeholder`},
		{"prod bootstrap targets include the replica's and the DR region", append([]string{"-env", "prod", "-targets"}, slack...),
			map[string]string{"ONCETABLE_PROD_ACCOUNT": "111122223333"}, "aws://111122223333/eu-west-1\naws://111122223333/eu-west-2\naws://111122223333/eu-central-1\n", ""},
		{"staging bootstrap targets", []string{"-env", "staging", "-targets", "-account", "555566667777"}, nil, "aws://555566667777/eu-west-1\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(append([]string{"-cdk-json", cdkJSON}, tt.args...), func(k string) string { return tt.env[k] }, &out)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got error %v, want %q", err, tt.wantErr)
			}
			if out.String() != tt.want {
				t.Errorf("got output %q, want %q", out.String(), tt.want)
			}
		})
	}
}
