package stacks

import (
	"github.com/oncetable/oncetable/constructs/reconciler"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// reconcileProps deploys the live reconciliation with the construct's
// defaults (every 15 minutes, 100 RCU, a ticket after 6 hours without a
// pass), the environment's log retention and the table's key.
func reconcileProps(cfg envconfig.Config, s *OnceTableStack) *reconciler.Props {
	return &reconciler.Props{
		Table:            s.Table.Table,
		TableKey:         s.Table.Key,
		LogRetentionDays: cfg.API.LogRetentionDays,
		DestroyLogs:      cfg.RemovalPolicy == envconfig.Destroy,
		Monitor:          s.Operations,
	}
}
