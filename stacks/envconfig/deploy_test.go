package envconfig_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/stacks/envconfig"
)

// prodAndDev is an environment with a DR copy marked production, and a
// plain one.
func prodAndDev(t *testing.T) map[string]envconfig.Config {
	t.Helper()
	all, err := envconfig.Parse([]byte(`{"prod":` + with(t, "production", true,
		"backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 35, "weeklyRetentionDays": 91}) +
		`,"dev":` + with(t, "removalPolicy", "destroy") + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func lookupIn(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestApplyDeployTime(t *testing.T) {
	tests := []struct {
		name     string
		selected string
		ctx, env map[string]string
		want     map[string]envconfig.Slack // per environment
		account  map[string]string
		wantErr  string
	}{
		{name: "nothing given", want: map[string]envconfig.Slack{"prod": {}, "dev": {}}, account: map[string]string{"prod": "", "dev": ""}},
		{name: "context applies to the selected environment only", selected: "prod",
			ctx:     map[string]string{"account": "111122223333", "slackWorkspaceId": "T07ABCDEF12", "slackChannelId": "C07ABCDEF12"},
			want:    map[string]envconfig.Slack{"prod": {WorkspaceID: "T07ABCDEF12", ChannelID: "C07ABCDEF12"}, "dev": {}},
			account: map[string]string{"prod": "111122223333", "dev": ""}},
		{name: "variables apply per environment",
			env:     map[string]string{"ONCETABLE_PROD_ACCOUNT": "111122223333", "ONCETABLE_DEV_ACCOUNT": "444455556666", "ONCETABLE_PROD_SLACK_WORKSPACE_ID": "T07ABCDEF12", "ONCETABLE_PROD_SLACK_CHANNEL_ID": "C07ABCDEF12"},
			want:    map[string]envconfig.Slack{"prod": {WorkspaceID: "T07ABCDEF12", ChannelID: "C07ABCDEF12"}, "dev": {}},
			account: map[string]string{"prod": "111122223333", "dev": "444455556666"}},
		{name: "context wins over the variable", selected: "dev",
			ctx: map[string]string{"account": "777788889999"}, env: map[string]string{"ONCETABLE_DEV_ACCOUNT": "444455556666"},
			want: map[string]envconfig.Slack{"prod": {}, "dev": {}}, account: map[string]string{"prod": "", "dev": "777788889999"}},
		{name: "context without a selected environment", ctx: map[string]string{"account": "111122223333"},
			wantErr: "invalid environment configuration: -c account applies to one environment: add -c env=NAME"},
		{name: "placeholder given at deploy time", selected: "prod",
			ctx:     map[string]string{"slackWorkspaceId": "T0000000000", "slackChannelId": "C07ABCDEF12"},
			wantErr: `environment "prod": slack.workspaceId: "T0000000000" is a placeholder, not a real Slack ID; pass the real one at deploy time (-c slackWorkspaceId=... or ONCETABLE_PROD_SLACK_WORKSPACE_ID), never in cdk.json`},
		{name: "one Slack ID alone", env: map[string]string{"ONCETABLE_PROD_SLACK_CHANNEL_ID": "C07ABCDEF12"},
			wantErr: `environment "prod": slack: set workspaceId together with channelId (pages) or ticketChannelId (tickets), or none of them`},
		{name: "malformed account", env: map[string]string{"ONCETABLE_DEV_ACCOUNT": "1111-2222-3333"},
			wantErr: `environment "dev": account: "1111-2222-3333" is not a 12-digit AWS account ID`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := prodAndDev(t)
			err := envconfig.ApplyDeployTime(all, tt.selected, lookupIn(tt.ctx), lookupIn(tt.env))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, envconfig.ErrInvalidConfig) {
					t.Fatalf("got %v, want exactly %q wrapping ErrInvalidConfig", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				if all[name].Slack != want || all[name].Account != tt.account[name] {
					t.Errorf("%s: got slack %+v account %q, want %+v %q", name, all[name].Slack, all[name].Account, want, tt.account[name])
				}
			}
		})
	}
}

func TestReadyToDeploy(t *testing.T) {
	tests := []struct {
		name, env  string
		vars       map[string]string
		wantField  string
		wantReason string
	}{
		{"no account", "dev", nil, "account", "no account to deploy into: pass it at deploy time (make ... ACCOUNT=123456789012, -c account=..., or ONCETABLE_DEV_ACCOUNT)"},
		{"dev with an account needs no pager", "dev", map[string]string{"ONCETABLE_DEV_ACCOUNT": "444455556666"}, "", ""},
		{"prod without a pager", "prod", map[string]string{"ONCETABLE_PROD_ACCOUNT": "111122223333"}, "slack", "production would page nobody"},
		{"prod with Slack", "prod", map[string]string{"ONCETABLE_PROD_ACCOUNT": "111122223333",
			"ONCETABLE_PROD_SLACK_WORKSPACE_ID": "T07ABCDEF12", "ONCETABLE_PROD_SLACK_CHANNEL_ID": "C07ABCDEF12"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := prodAndDev(t)
			if err := envconfig.ApplyDeployTime(all, "", lookupIn(nil), lookupIn(tt.vars)); err != nil {
				t.Fatal(err)
			}
			err := all[tt.env].ReadyToDeploy()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("got %v, want ready", err)
				}
				return
			}
			var fe *envconfig.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.wantField || !strings.Contains(fe.Reason, tt.wantReason) {
				t.Fatalf("got %v, want field %s: %s", err, tt.wantField, tt.wantReason)
			}
		})
	}
	// A pager's HTTPS endpoint serves as well as Slack.
	all := prodAndDev(t)
	prod := all["prod"]
	prod.Account, prod.Notifications.Page.HTTPSEndpoints = "111122223333", []string{"https://events.pagerduty.com/integration/abc/enqueue"}
	if err := prod.ReadyToDeploy(); err != nil {
		t.Errorf("prod with an HTTPS pager: %v", err)
	}
	prod.Notifications = envconfig.Notifications{Page: envconfig.Subscribers{Emails: []string{"oncall@payments.acme.eu"}}}
	if err := prod.ReadyToDeploy(); err == nil {
		t.Error("prod with email alone is ready, want refused: an email is not a pager")
	}
	prod.Notifications = envconfig.Notifications{Ticket: envconfig.Subscribers{HTTPSEndpoints: []string{"https://tickets.acme.eu/hook"}}}
	if err := prod.ReadyToDeploy(); err == nil {
		t.Error("prod with a ticket endpoint alone is ready, want refused: tickets page nobody")
	}
}

func TestBootstrapTargetsIncludeDR(t *testing.T) {
	all := prodAndDev(t)
	if err := envconfig.ApplyDeployTime(all, "", lookupIn(nil), lookupIn(map[string]string{
		"ONCETABLE_PROD_ACCOUNT": "111122223333", "ONCETABLE_DEV_ACCOUNT": "444455556666",
	})); err != nil {
		t.Fatal(err)
	}
	for env, want := range map[string]string{
		"prod": "[aws://111122223333/eu-west-1 aws://111122223333/eu-central-1]",
		"dev":  "[aws://444455556666/eu-west-1]",
	} {
		if got := fmt.Sprint(all[env].BootstrapTargets()); got != want {
			t.Errorf("%s: got %s, want %s", env, got, want)
		}
	}
}

// Nothing deploy-time may be committed: cdk.json has no account and no
// Slack ID, and every environment still synthesizes.
func TestRepositoryCDKJSONHoldsNoDeployTimeValue(t *testing.T) {
	all, err := envconfig.ReadCDKJSON(filepath.Join("..", "..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range all {
		if c.Account != "" || c.Slack != (envconfig.Slack{}) {
			t.Errorf("%s: cdk.json holds account %q and Slack %+v; pass them at deploy time", name, c.Account, c.Slack)
		}
	}
}

func ExampleEnvVar() {
	fmt.Println(envconfig.EnvVar("prod", envconfig.AccountKey))
	fmt.Println(envconfig.EnvVar("prod", envconfig.SlackChannelIDKey))
	// Output:
	// ONCETABLE_PROD_ACCOUNT
	// ONCETABLE_PROD_SLACK_CHANNEL_ID
}
