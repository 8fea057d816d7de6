package drdrill

import (
	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/test/workload"
)

// tornFault turns on the engine's fault that makes a restore of the table
// capture only the first half of the last transaction at or before the
// restore point, the rest of its items as they were before it
// (ddblocal.Faults.TornBackups).
func tornFault(live *workload.Live) error {
	live.Engine.SetFaults(live.Table, ddblocal.Faults{TornBackups: true})
	return nil
}
