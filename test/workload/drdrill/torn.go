package drdrill

import (
	"errors"

	"github.com/oncetable/oncetable/test/workload"
)

// ErrNoTornFault is returned while the engine has no torn-backup fault
// (issue 22, part 1).
var ErrNoTornFault = errors.New("dr-drill: the engine has no torn-backup fault yet (issue 22 part 1): the torn run cannot be rehearsed")

// tornFault turns on the engine's fault that makes a restore capture part
// of a recent transaction.
func tornFault(live *workload.Live) error {
	_ = live
	return ErrNoTornFault
}
