package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DynamoDB leaves alone items whose TTL lies more than five years in the
// past (the attribute is probably not epoch seconds).
const ttlHorizon = 5 * 365 * 24 * time.Hour

type timeToLiveSpecification struct {
	AttributeName string
	Enabled       *bool
}

type updateTimeToLiveInput struct {
	TableName               string
	TimeToLiveSpecification *timeToLiveSpecification
}

func (in *updateTimeToLiveInput) tableNames() []string { return []string{in.TableName} }

func (e *Engine) updateTimeToLive(ctx context.Context, in *updateTimeToLiveInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	if spec.Enabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null")
	}
	if spec.AttributeName == "" {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := refuseStrongTTL(t); err != nil {
		return nil, err
	}
	t.mu.Lock()
	switch {
	case *spec.Enabled && t.ttlEnabled:
		t.mu.Unlock()
		return nil, validationf("TimeToLive is already enabled")
	case !*spec.Enabled && !t.ttlEnabled:
		t.mu.Unlock()
		return nil, validationf("TimeToLive is already disabled")
	case !*spec.Enabled && spec.AttributeName != t.ttlAttr:
		t.mu.Unlock()
		return nil, validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.ttlAttr)
	}
	if *spec.Enabled {
		t.enableTTL(spec.AttributeName)
	} else {
		t.ttlEnabled, t.ttlAttr, t.ttlTree = false, "", nil
	}
	t.mu.Unlock()
	if *spec.Enabled {
		// Not under t.mu: Close holds lifeMu while the sweeper may wait for t.mu.
		e.startSweeper()
	}
	if err := e.persistTable(t); err != nil {
		return nil, err
	}
	if e.global != nil {
		e.alignReplicas(ctx, t, func(peer *Engine, ctx context.Context) { _, _ = peer.updateTimeToLive(ctx, in) })
	}
	return map[string]any{"TimeToLiveSpecification": map[string]any{"AttributeName": spec.AttributeName, "Enabled": *spec.Enabled}}, nil
}

// enableTTL indexes the expiry of every item; the caller holds t.mu.
func (t *table) enableTTL(name string) {
	t.ttlEnabled, t.ttlAttr = true, name
	t.ttlTree = btreeTTL()
	t.items.Ascend(func(en entry) bool {
		it, err := decodeItem(en.val())
		if err != nil {
			return true
		}
		if exp, ok := ttlOf(it, name); ok {
			t.ttlTree.ReplaceOrInsert(ttlEntry{exp: exp, key: en.key()})
		}
		return true
	})
}

func (e *Engine) describeTimeToLive(_ context.Context, in *tableNameInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	desc := map[string]any{"TimeToLiveStatus": "DISABLED"}
	if t.ttlEnabled {
		desc = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": t.ttlAttr}
	}
	return map[string]any{"TimeToLiveDescription": desc}, nil
}

// SweepTTL deletes now every item whose TTL attribute lies in the past, as
// the background sweeper does, and returns how many it deleted. Until a
// sweep removes them, expired items stay readable, as in DynamoDB. When
// the store cannot save a table's deletions, that table keeps its items
// (the next sweep tries again) and the error is returned, after the other
// tables are swept.
func (e *Engine) SweepTTL(ctx context.Context) (int, error) {
	deleted := 0
	var errs []error
	for _, name := range e.tableNames() {
		if ctx.Err() != nil {
			break
		}
		t, err := e.table(name)
		if err != nil {
			continue
		}
		n, err := e.sweepTable(t)
		deleted += n
		if err != nil {
			errs = append(errs, fmt.Errorf("table %s: %w", name, err))
		}
	}
	return deleted, errors.Join(errs...)
}

func (e *Engine) sweepTable(t *table) (int, error) {
	now := e.now()
	delay := e.faults.gsiDelay(t.name)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ttlEnabled || t.ttlTree == nil {
		return 0, nil
	}
	var due []ttlEntry
	t.ttlTree.AscendGreaterOrEqual(ttlEntry{exp: now.Add(-ttlHorizon).Unix()}, func(te ttlEntry) bool {
		if te.exp >= now.Unix() {
			return false
		}
		due = append(due, te)
		return true
	})
	n := 0
	t.serviceWrite = true
	defer func() { t.serviceWrite = false }()
	for _, te := range due {
		old, err := t.get(te.key)
		if err != nil || old == nil {
			t.ttlTree.Delete(te)
			continue
		}
		t.write(te.key, old, nil, delay, now)
		n++
	}
	if err := e.flush(t); err != nil {
		return 0, err // rolled back: the items are still there
	}
	return n, nil
}
