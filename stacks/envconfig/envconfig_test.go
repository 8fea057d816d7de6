package envconfig_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// valid is one complete environment; cases below change one value each.
const valid = `{
  "region": "eu-west-1",
  "removalPolicy": "retain",
  "deletionProtection": true,
  "pitrRecoveryPeriodDays": 35,
  "capacity": {"mode": "on-demand"},
  "backup": {
    "dailyRetentionDays": 35,
    "weeklyRetentionDays": 91,
    "vaultLock": {"mode": "compliance", "minRetentionDays": 7, "maxRetentionDays": 400, "changeableForDays": 3}
  },
  "alarms": {"throttleEvents": 5, "systemErrors": 1, "transactionConflicts": 25, "readUnitsPerSecond": 500, "writeUnitsPerSecond": 200},
  "api": {"throttleRatePerSecond": 500, "throttleBurst": 1000, "logRetentionDays": 365}
}`

// with returns valid with values set at dotted paths, given as path, value
// pairs; a nil value removes the path.
func with(t *testing.T, pathValues ...any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(valid), &m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(pathValues); i += 2 {
		keys := strings.Split(pathValues[i].(string), ".")
		cur := m
		for _, k := range keys[:len(keys)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
		}
		last := keys[len(keys)-1]
		if v := pathValues[i+1]; v == nil {
			delete(cur, last)
		} else {
			cur[last] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRejectsBadEnvironments(t *testing.T) {
	tests := []struct {
		name      string
		env       string
		wantField string
		wantIn    string
	}{
		{"missing region", with(t, "region", nil), "region", "required value is missing"},
		{"empty region", with(t, "region", ""), "region", "empty"},
		{"missing removal policy", with(t, "removalPolicy", nil), "removalPolicy", "missing"},
		{"missing deletion protection", with(t, "deletionProtection", nil), "deletionProtection", "missing"},
		{"missing backup", with(t, "backup", nil), "backup", "missing"},
		{"missing alarms", with(t, "alarms", nil), "alarms", "missing"},
		{"bad removal policy", with(t, "removalPolicy", "snapshot"), "removalPolicy", `"snapshot"`},
		{"bad account", with(t, "account", "12345"), "account", "12-digit"},
		{"pitr zero", with(t, "pitrRecoveryPeriodDays", 0), "pitrRecoveryPeriodDays", "outside 1..35"},
		{"pitr 36", with(t, "pitrRecoveryPeriodDays", 36), "pitrRecoveryPeriodDays", "outside 1..35"},
		{"unknown capacity mode", with(t, "capacity.mode", "serverless"), "capacity.mode", `"serverless"`},
		{"on-demand with bounds", with(t, "capacity.maxRead", 10), "capacity", "no read/write bounds"},
		{"provisioned without bounds", with(t, "capacity.mode", "provisioned"), "capacity", "minRead"},
		{"unknown lock mode", with(t, "backup.vaultLock.mode", "strict"), "backup.vaultLock.mode", `"strict"`},
		{"compliance without cooling-off", with(t, "backup.vaultLock.changeableForDays", 2), "backup.vaultLock.changeableForDays", "at least 3 days"},
		{"governance with cooling-off", with(t, "backup.vaultLock.mode", "governance"), "backup.vaultLock.changeableForDays", "governance"},
		{"retention below lock minimum", with(t, "backup.dailyRetentionDays", 3), "backup.dailyRetentionDays", "outside the vault lock's 7..400"},
		{"retention above lock maximum", with(t, "backup.weeklyRetentionDays", 500), "backup.weeklyRetentionDays", "outside"},
		{"no backup rule", with(t, "backup", map[string]any{"vaultLock": map[string]any{"mode": "governance", "minRetentionDays": 1, "maxRetentionDays": 35}}), "backup", "at least one"},
		{"copy retention without vault", with(t, "backup.copyRetentionDays", 35), "backup.copyRetentionDays", "without copyVaultArn"},
		{"copy vault not an ARN", with(t, "backup.copyVaultArn", "my-vault"), "backup.copyVaultArn", "not a backup vault ARN"},
		{"zero throttle threshold", with(t, "alarms.throttleEvents", 0), "alarms.throttleEvents", "at least 1"},
		{"slack workspace without channel", with(t, "slack.workspaceId", "T07ABCDEF12"), "slack", "together with channelId"},
		{"slack ticket channel without workspace", with(t, "slack.ticketChannelId", "C07ABCDEF12"), "slack", "together with channelId"},
		{"slack ticket channel placeholder", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "ticketChannelId": "C0000000000"}), "slack.ticketChannelId", "placeholder"},
		{"slack workspace placeholder", with(t, "slack", map[string]any{"workspaceId": "T0000000000", "channelId": "C07ABCDEF12"}), "slack.workspaceId", `"T0000000000" is a placeholder`},
		{"slack channel placeholder", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "C0000000000"}), "slack.channelId", `"C0000000000" is a placeholder`},
		{"slack channel of Xs", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "CXXXXXXXXXX"}), "slack.channelId", "placeholder"},
		{"slack workspace counting up", with(t, "slack", map[string]any{"workspaceId": "T123456789", "channelId": "C07ABCDEF12"}), "slack.workspaceId", "placeholder"},
		{"slack workspace in lower case", with(t, "slack", map[string]any{"workspaceId": "t07abcdef12", "channelId": "C07ABCDEF12"}), "slack.workspaceId", "not a Slack workspace ID"},
		{"slack workspace too short", with(t, "slack", map[string]any{"workspaceId": "T1", "channelId": "C07ABCDEF12"}), "slack.workspaceId", "not a Slack workspace ID"},
		{"slack channel name, not ID", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "#payments-oncall"}), "slack.channelId", "not a Slack channel ID"},
		{"slack user ID as channel", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "U07ABCDEF12"}), "slack.channelId", "not a Slack channel ID"},
		{"email at example.com", with(t, "notifications.page.emails", []any{"payments-oncall@example.com"}), "notifications.page.emails", "reserved for examples"},
		{"email at a .test domain", with(t, "notifications.ticket.emails", []any{"oncall@pager.test"}), "notifications.ticket.emails", "reserved for examples"},
		{"routing of an unknown kind", with(t, "alarms.routing", map[string]any{"api-latencyy": "page"}), "alarms.routing", `"api-latencyy" is not an alarm kind`},
		{"routing to an unknown severity", with(t, "alarms.routing", map[string]any{"api-latency": "sms"}), "alarms.routing", `severity "sms"`},
		{"runbook over http", with(t, "alarms.runbookUrl", "http://wiki/runbook"), "alarms.runbookUrl", "not an https URL"},
		{"error rate above 100", with(t, "alarms.errorRatePercent", 101), "alarms.errorRatePercent", "outside 0..100"},
		{"one request guard", with(t, "alarms.minRequests", 1), "alarms.minRequests", "at least 2"},
		{"heartbeat of a minute", with(t, "alarms.settledPaymentEveryMinutes", 1), "alarms.settledPaymentEveryMinutes", "outside 5..1440"},
		{"unknown field", with(t, "pitrDays", 3), "", `unknown field "pitrDays"`},
		{"missing api", with(t, "api", nil), "api", "missing"},
		{"zero throttle rate", with(t, "api.throttleRatePerSecond", 0), "api.throttleRatePerSecond", "at least 1"},
		{"zero burst", with(t, "api.throttleBurst", 0), "api.throttleBurst", "at least 1"},
		{"log retention CloudWatch does not offer", with(t, "api.logRetentionDays", 31), "api.logRetentionDays", "not a CloudWatch Logs retention"},
		{"jwt issuer not https", with(t, "api.jwt", map[string]any{"issuer": "http://idp", "audience": []any{"a"}}), "api.jwt.issuer", "https"},
		{"jwt without audience", with(t, "api.jwt", map[string]any{"issuer": "https://idp.example.com"}), "api.jwt.audience", "at least one"},
		{"jwt scope with a space", with(t, "api.jwt", map[string]any{"issuer": "https://idp.example.com", "audience": []any{"a"},
			"scopes": map[string]any{"customer": "shop/buy shop/read"}}), "api.jwt.scopes", "not one scope"},
		{"jwt scope of two roles", with(t, "api.jwt", map[string]any{"issuer": "https://idp.example.com", "audience": []any{"a"},
			"scopes": map[string]any{"service": "payments/operator"}}), "api.jwt.scopes", "grants two roles"},
		{"iam operator not an ARN", with(t, "api.iamOperators", []any{"PaymentsOperator"}), "api.iamOperators", "not an IAM principal ARN"},
		{"reserved concurrency of unknown function", with(t, "api.reservedConcurrency", map[string]any{"refund": 5}), "api.reservedConcurrency", `"refund"`},
		{"on-demand maximum on provisioned", with(t, "capacity", map[string]any{"mode": "provisioned", "minRead": 1, "maxRead": 2, "minWrite": 1, "maxWrite": 2, "targetUtilizationPercent": 70, "maxReadRequestUnits": 10}), "capacity", "on-demand only"},
		{"negative on-demand maximum", with(t, "capacity.maxWriteRequestUnits", -1), "capacity", "must not be negative"},
		{"email without domain", with(t, "notifications.page.emails", []any{"oncall"}), "notifications.page.emails", "not an email address"},
		{"http endpoint", with(t, "notifications.ticket.httpsEndpoints", []any{"http://pager.example.com/"}), "notifications.ticket.httpsEndpoints", "not an https URL"},
		{"money route rate above stage", with(t, "api.moneyRouteThrottleRatePerSecond", 501), "api.moneyRouteThrottleRatePerSecond", "outside 0..500"},
		{"money route burst above stage", with(t, "api.moneyRouteThrottleBurst", 1001), "api.moneyRouteThrottleBurst", "outside 0..1000"},
		{"dr in the same region", with(t, "backup.dr", map[string]any{"region": "eu-west-1", "dailyRetentionDays": 35}), "backup.dr.region", "other than"},
		{"dr with nothing to copy", with(t, "backup.dr", map[string]any{"region": "eu-central-1"}), "backup.dr", "nothing to copy"},
		{"dr copy of a rule the plan lacks", with(t, "backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 35, "weeklyRetentionDays": 91, "monthlyRetentionDays": 365}), "backup.dr.monthlyRetentionDays", "no such rule"},
		{"dr without the weekly rule's copy", with(t, "backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 35}), "backup.dr.weeklyRetentionDays", "every rule must reach DR"},
		{"dr retention outside the lock", with(t, "backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 3, "weeklyRetentionDays": 91}), "backup.dr.dailyRetentionDays", "outside the vault lock's 7..400"},
		{"dr and copy vault", with(t, "backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 35, "weeklyRetentionDays": 91}, "backup.copyVaultArn", "arn:aws:backup:eu-central-1:111122223333:backup-vault:copy", "backup.copyRetentionDays", 35), "backup.dr", "not both"},
		{"events batch size", with(t, "events.batchSize", 20000), "events.batchSize", "outside 0..10000"},
		{"events record age under a minute", with(t, "events.maxRecordAgeSeconds", 30), "events.maxRecordAgeSeconds", "below 60"},
		{"restore test schedule", with(t, "backup.restoreTest", map[string]any{"schedule": "daily"}), "backup.restoreTest.schedule", `"daily"`},
		{"zero reserved concurrency", with(t, "api.reservedConcurrency", map[string]any{"charge": 0}), "api.reservedConcurrency.charge", "at least 1"},
		{"unknown order index stage", with(t, "orderIndexes", "v3"), "orderIndexes", `"v3" is not "v1", "both" or "v2"`},
		{"order index stage in capitals", with(t, "orderIndexes", "BOTH"), "orderIndexes", `"BOTH"`},
		{"zero order shards", with(t, "orderShards", 0), "orderShards", "0 is outside 1..100"},
		{"101 order shards", with(t, "orderShards", 101), "orderShards", "101 is outside 1..100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := envconfig.Parse([]byte(`{"prod":` + tt.env + `}`))
			if !errors.Is(err, envconfig.ErrInvalidConfig) {
				t.Fatalf("got error %v, want one wrapping ErrInvalidConfig", err)
			}
			var fe *envconfig.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %T %v, want *FieldError", err, err)
			}
			if fe.Env != "prod" || fe.Field != tt.wantField || !strings.Contains(fe.Reason, tt.wantIn) {
				t.Errorf("got env %q field %q reason %q, want env prod field %q reason containing %q", fe.Env, fe.Field, fe.Reason, tt.wantField, tt.wantIn)
			}
		})
	}
}

func TestParseAcceptsValidEnvironments(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		check func(envconfig.Config) error
	}{
		{"compliance prod", valid, func(c envconfig.Config) error {
			if c.Name != "prod" || c.Backup.VaultLock.Mode != envconfig.Compliance || c.Backup.VaultLock.ChangeableForDays != 3 {
				return fmt.Errorf("got %+v", c)
			}
			return nil
		}},
		{"provisioned capacity", with(t, "capacity", map[string]any{"mode": "provisioned", "minRead": 5, "maxRead": 100, "minWrite": 1, "maxWrite": 1, "targetUtilizationPercent": 70}), func(c envconfig.Config) error {
			want := envconfig.Capacity{Mode: envconfig.Provisioned, MinRead: 5, MaxRead: 100, MinWrite: 1, MaxWrite: 1, TargetUtilization: 70}
			if c.Capacity != want {
				return fmt.Errorf("got %+v, want %+v", c.Capacity, want)
			}
			return nil
		}},
		{"copy to second region", with(t, "backup.copyVaultArn", "arn:aws:backup:eu-central-1:111122223333:backup-vault:copy", "backup.copyRetentionDays", 35), func(c envconfig.Config) error {
			if c.Backup.CopyRetentionDays != 35 || !strings.HasSuffix(c.Backup.CopyVaultARN, ":copy") {
				return fmt.Errorf("got %+v", c.Backup)
			}
			return nil
		}},
		{"jwt api", with(t, "api.jwt", map[string]any{"issuer": "https://idp.example.com/", "audience": []any{"payments"},
			"scopes": map[string]any{"customer": "shop/customer"}, "userClaim": "custom:userId"}, "api.reservedConcurrency", map[string]any{"charge": 20}), func(c envconfig.Config) error {
			if c.API.JWT == nil || c.API.JWT.Issuer != "https://idp.example.com/" || fmt.Sprint(c.API.JWT.Audience) != "[payments]" ||
				c.API.JWT.Scopes.Customer != "shop/customer" || c.API.JWT.Scopes.Operator != "" || c.API.JWT.UserClaim != "custom:userId" ||
				c.API.ReservedConcurrency["charge"] != 20 || c.API.ThrottleRatePerSecond != 500 || c.API.LogRetentionDays != 365 {
				return fmt.Errorf("got %+v", c.API)
			}
			return nil
		}},
		{"iam operators", with(t, "api.iamOperators", []any{"arn:aws:iam::111122223333:role/PaymentsOperator", "arn:aws:sts::111122223333:assumed-role/Ops/*"}), func(c envconfig.Config) error {
			if len(c.API.IAMOperators) != 2 || c.API.IAMOperators[0] != "arn:aws:iam::111122223333:role/PaymentsOperator" {
				return fmt.Errorf("got %+v", c.API.IAMOperators)
			}
			return nil
		}},
		{"dr, restore test, on-demand maximum and pagers", with(t,
			"backup.dr", map[string]any{"region": "eu-central-1", "dailyRetentionDays": 35, "weeklyRetentionDays": 91},
			"backup.restoreTest", map[string]any{"schedule": "monthly", "validationWindowHours": 2},
			"capacity.maxReadRequestUnits", 4000, "capacity.maxWriteRequestUnits", 1000,
			"notifications", map[string]any{"page": map[string]any{"httpsEndpoints": []any{"https://pager.example.com/e"}}, "ticket": map[string]any{"emails": []any{"oncall@payments.acme.eu"}}},
		), func(c envconfig.Config) error {
			b := c.Backup
			if b.DR == nil || *b.DR != (envconfig.DR{Region: "eu-central-1", DailyRetentionDays: 35, WeeklyRetentionDays: 91}) ||
				b.RestoreTest == nil || b.RestoreTest.Schedule != "monthly" || b.RestoreTest.ValidationWindowHours == nil || *b.RestoreTest.ValidationWindowHours != 2 ||
				c.Capacity.MaxReadRequestUnits != 4000 || c.Capacity.MaxWriteRequestUnits != 1000 ||
				len(c.Notifications.Ticket.Emails) != 1 || len(c.Notifications.Page.HTTPSEndpoints) != 1 {
				return fmt.Errorf("got %+v", c)
			}
			return nil
		}},
		{"order indexes default to v1 and 4 shards", valid, func(c envconfig.Config) error {
			if c.OrderIndexes != schema.OrdersV1 || c.OrderShards != 4 {
				return fmt.Errorf("got orderIndexes %q, orderShards %d; want v1, 4", c.OrderIndexes, c.OrderShards)
			}
			return nil
		}},
		{"order indexes both, 16 shards", with(t, "orderIndexes", "both", "orderShards", 16), func(c envconfig.Config) error {
			if c.OrderIndexes != schema.OrdersBoth || c.OrderShards != 16 {
				return fmt.Errorf("got orderIndexes %q, orderShards %d; want both, 16", c.OrderIndexes, c.OrderShards)
			}
			return nil
		}},
		{"order indexes v2", with(t, "orderIndexes", "v2", "orderShards", 100), func(c envconfig.Config) error {
			if c.OrderIndexes != schema.OrdersV2 || c.OrderShards != 100 {
				return fmt.Errorf("got orderIndexes %q, orderShards %d; want v2, 100", c.OrderIndexes, c.OrderShards)
			}
			return nil
		}},
		{"slack", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "channelId": "G07ABCDEF12"}), func(c envconfig.Config) error {
			if c.Slack.WorkspaceID != "T07ABCDEF12" || c.Slack.ChannelID != "G07ABCDEF12" {
				return fmt.Errorf("got %+v", c.Slack)
			}
			return nil
		}},
		{"slack for tickets only", with(t, "slack", map[string]any{"workspaceId": "T07ABCDEF12", "ticketChannelId": "C07ABCDEF34"}), func(c envconfig.Config) error {
			if c.Slack.TicketChannelID != "C07ABCDEF34" || c.Slack.ChannelID != "" {
				return fmt.Errorf("got %+v", c.Slack)
			}
			return nil
		}},
		{"routing and rates", with(t, "alarms.routing", map[string]any{"api-latency": "page", "api-5xx-rate": "ticket"},
			"alarms.errorRatePercent", 1, "alarms.minRequests", 50, "alarms.settledPaymentEveryMinutes", 30), func(c envconfig.Config) error {
			a := c.Alarms
			if a.Routing.SeverityOf(oncall.APILatency) != oncall.Page || a.Routing.SeverityOf(oncall.APIServerErrorRate) != oncall.Ticket ||
				a.ErrorRatePercent != 1 || a.MinRequests != 50 || a.SettledPaymentEveryMinutes != 30 {
				return fmt.Errorf("got %+v", a)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all, err := envconfig.Parse([]byte(`{"prod":` + tt.env + `}`))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if err := tt.check(all["prod"]); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	all, err := envconfig.Parse([]byte(`{"prod":` + valid + `,"dev":` + with(t, "removalPolicy", "destroy") + `}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		select_ string
		want    []string
		wantErr error
	}{
		{"all sorted", "", []string{"dev", "prod"}, nil},
		{"one", "prod", []string{"prod"}, nil},
		{"unknown", "qa", nil, envconfig.ErrUnknownEnvironment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := envconfig.Select(all, tt.select_)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", names, tt.want)
			}
		})
	}
	_, err = envconfig.Select(all, "qa")
	var ue *envconfig.UnknownEnvironmentError
	if !errors.As(err, &ue) || ue.Name != "qa" || fmt.Sprint(ue.Known) != "[dev prod]" {
		t.Errorf("got %v, want *UnknownEnvironmentError for qa listing [dev prod]", err)
	}
}

// The repository's own cdk.json must always parse: it is what synth uses.
func TestRepositoryCDKJSON(t *testing.T) {
	all, err := envconfig.ReadCDKJSON(filepath.Join("..", "..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := envconfig.Names(all); fmt.Sprint(got) != "[dev prod staging]" {
		t.Fatalf("got environments %v, want [dev prod staging]", got)
	}
	prod := all["prod"]
	if prod.RemovalPolicy != envconfig.Retain || !prod.DeletionProtection || prod.Backup.VaultLock.Mode != envconfig.Compliance {
		t.Errorf("prod must retain, protect from deletion and use a compliance vault lock; got %+v", prod)
	}
}

func TestFromContextMissing(t *testing.T) {
	if _, err := envconfig.FromContext(nil); !errors.Is(err, envconfig.ErrInvalidConfig) {
		t.Errorf("got %v, want ErrInvalidConfig", err)
	}
}

func ExampleParse() {
	_, err := envconfig.Parse([]byte(`{"qa": {"region": "eu-west-1"}}`))
	fmt.Println(err)
	// Output:
	// environment "qa": removalPolicy: required value is missing
}
