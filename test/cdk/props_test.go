package cdk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/singletable"
)

// panicOf runs f and returns what it panicked with, or "" if it returned.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// Props that AWS would only reject at deploy time are refused at synth.
func TestConstructsRejectInvalidProps(t *testing.T) {
	lock := func(mode backup.LockMode, min, max, changeable int) *backup.VaultLock {
		return &backup.VaultLock{Mode: mode, MinRetentionDays: min, MaxRetentionDays: max, ChangeableForDays: changeable}
	}
	tests := []struct {
		name   string
		backup *backup.TableBackupProps
		ops    *alarms.OperationsProps
		want   string
	}{
		{name: "compliance cooling-off under 3 days", backup: &backup.TableBackupProps{VaultLock: lock(backup.Compliance, 1, 400, 2)}, want: "ChangeableForDays >= 3"},
		{name: "governance with cooling-off", backup: &backup.TableBackupProps{VaultLock: lock(backup.Governance, 1, 400, 3)}, want: "governance mode takes no ChangeableForDays"},
		{name: "unknown lock mode", backup: &backup.TableBackupProps{VaultLock: lock("legal-hold", 1, 400, 0)}, want: "unknown vault lock mode"},
		{name: "retention above lock maximum", backup: &backup.TableBackupProps{VaultLock: lock(backup.Governance, 1, 100, 0)}, want: "Monthly retention of 365 days is outside the vault lock's 1..100"},
		{name: "retention below lock minimum", backup: &backup.TableBackupProps{Rules: []backup.Rule{{Schedule: backup.Daily, RetentionDays: 3}}, VaultLock: lock(backup.Governance, 7, 100, 0)}, want: "Daily retention of 3 days"},
		{name: "two daily rules", backup: &backup.TableBackupProps{Rules: []backup.Rule{{Schedule: backup.Daily, RetentionDays: 7}, {Schedule: backup.Daily, RetentionDays: 8}}}, want: "two Daily rules"},
		{name: "no rule", backup: &backup.TableBackupProps{Rules: []backup.Rule{}}, want: "no backup rule"},
		{name: "copy without retention", backup: &backup.TableBackupProps{CopyVaultARN: "arn:aws:backup:eu-central-1:111122223333:backup-vault:copy"}, want: "set CopyVaultARN and CopyRetentionDays (or a rule's) together"},
		{name: "Slack workspace without channel", ops: &alarms.OperationsProps{SlackWorkspaceID: "T1"}, want: "set SlackWorkspaceID together with a Page or Ticket SlackChannelID"},
		{name: "Slack channel without workspace", ops: &alarms.OperationsProps{Ticket: alarms.Subscribers{SlackChannelID: "C1"}}, want: "set SlackWorkspaceID together"},
		{name: "routing of an unknown kind", ops: &alarms.OperationsProps{Routing: oncall.Routing{"no-such-alarm": oncall.Page}}, want: `"no-such-alarm" is not an alarm kind`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := awscdk.NewApp(nil)
			stack := awscdk.NewStack(app, jsii.String("Props"), nil)
			got := panicOf(func() {
				if tt.ops != nil {
					alarms.NewOperations(stack, "Operations", tt.ops)
					return
				}
				table := singletable.NewTable(stack, "Table", nil)
				backup.NewTableBackup(stack, "Backup", table.Table, tt.backup)
			})
			if !strings.Contains(got, tt.want) {
				t.Errorf("got panic %q, want one containing %q", got, tt.want)
			}
		})
	}
}
