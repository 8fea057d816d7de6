package stacks

import (
	"github.com/oncetable/oncetable/constructs/totals"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// totalsProps deploys the platform totaller on the table's stream with the
// construct's defaults (batches of one transaction, 10 retries, a day of
// record age, a ticket after 15 minutes of lag), the environment's log
// retention, the table's key and the event history's removal policy for
// its failure queue.
func totalsProps(cfg envconfig.Config, s *OnceTableStack) *totals.Props {
	return &totals.Props{
		Table:            s.Table.Table,
		TableKey:         s.Table.Key,
		LogRetentionDays: cfg.API.LogRetentionDays,
		DestroyLogs:      cfg.RemovalPolicy == envconfig.Destroy,
		RemovalPolicy:    removalPolicy(cfg),
		Monitor:          s.Operations,
	}
}
