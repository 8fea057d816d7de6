package ddblocal

import (
	"sync"
	"time"
)

// Transient statuses (Options.TransientStatusDelay): DynamoDB takes time to
// create, update and delete tables and indexes, and reports CREATING,
// UPDATING and DELETING meanwhile; the engine does each at once and, by
// default, reports ACTIVE (or the table gone) at once. With a delay it
// reports the transient status for that long: a CREATING table is not found
// by data operations (ResourceNotFoundException: "its status might not be
// ACTIVE"), a deleted table is described as DELETING and an updated one as
// UPDATING. Indexes are ACTIVE at once.

// transientState holds the tables deleted while their DELETING lasts.
type transientState struct {
	mu       sync.Mutex
	deleting map[string]deletingTable
}

type deletingTable struct {
	desc  map[string]any
	until time.Time
}

// transientStatus is a table's status while one lasts.
type transientStatus struct {
	creatingUntil time.Time
	updatingUntil time.Time
}

func (e *Engine) delay() time.Duration { return e.opts.TransientStatusDelay }

// markCreating keeps a new table CREATING for the delay.
func (e *Engine) markCreating(t *table) {
	if e.delay() > 0 {
		t.transient.creatingUntil = t.created.Add(e.delay())
	}
}

// markUpdating keeps an updated table UPDATING for the delay; the caller
// holds t.mu for writing.
func (e *Engine) markUpdating(t *table) {
	if e.delay() > 0 {
		t.transient.updatingUntil = e.now().Add(e.delay())
	}
}

// anyStatus returns the named table, CREATING or not, or nil.
func (e *Engine) anyStatus(name string) *table {
	if m := e.byName.Load(); m != nil {
		return (*m)[name]
	}
	return nil
}

// inUse is the ResourceInUseException of a table operation on a table that
// is still being created or deleted (API Reference, ResourceInUseException:
// "tried to delete a table currently in the CREATING state").
func inUse(being, name string) error {
	return newError(CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being %s: %s", being, name)
}

// creating reports whether a table is still CREATING.
func (e *Engine) creating(t *table) bool {
	return e.delay() > 0 && e.now().Before(t.transient.creatingUntil)
}

// tableStatus is the TableStatus DescribeTable reports.
func (e *Engine) tableStatus(t *table) string {
	if e.delay() <= 0 {
		return "ACTIVE"
	}
	now := e.now()
	t.mu.RLock()
	defer t.mu.RUnlock()
	switch {
	case now.Before(t.transient.creatingUntil):
		return "CREATING"
	case now.Before(t.transient.updatingUntil):
		return "UPDATING"
	}
	return "ACTIVE"
}

// describeWithStatus is t.describe with the table's transient status.
func (e *Engine) describeWithStatus(t *table) map[string]any {
	d := t.describe()
	d["TableStatus"] = e.tableStatus(t)
	return d
}

// markDeleting keeps a deleted table described as DELETING for the delay.
func (e *Engine) markDeleting(name string, desc map[string]any) {
	if e.delay() <= 0 {
		return
	}
	e.transient.mu.Lock()
	defer e.transient.mu.Unlock()
	if e.transient.deleting == nil {
		e.transient.deleting = map[string]deletingTable{}
	}
	e.transient.deleting[name] = deletingTable{desc: desc, until: e.now().Add(e.delay())}
}

// stillDeleting returns the description of a table whose DELETING lasts.
func (e *Engine) stillDeleting(name string) (map[string]any, bool) {
	if e.delay() <= 0 {
		return nil, false
	}
	e.transient.mu.Lock()
	defer e.transient.mu.Unlock()
	d, ok := e.transient.deleting[name]
	if ok && !e.now().Before(d.until) {
		delete(e.transient.deleting, name)
		return nil, false
	}
	return d.desc, ok
}
