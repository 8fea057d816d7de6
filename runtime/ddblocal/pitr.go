package ddblocal

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Point-in-time recovery.
//
// A table with PITR enabled keeps a history: for every row a commit
// replaced (or created: then the replaced row is none), the commit's time,
// the row's key and the row as it was, oldest first. The table's state at
// a time T is its current state with the history after T undone, newest
// first; restoring clones the current items (a copy-on-write clone, O(1))
// and undoes onto the clone, so the source table keeps serving.
//
// The history is bounded twice. It holds the recovery period only
// (RecoveryPeriodInDays, 35 by default): older entries are dropped, as
// DynamoDB forgets them. And it holds at most Options.PITRHistoryBytes per
// table (256 MiB by default; the rows are shared with the versions they
// were, not copied, so a row costs its size once it is replaced, plus
// histOverhead): past it the oldest commits are dropped, and
// EarliestRestorableDateTime moves forward to the newest one dropped. A
// table that is never written costs nothing; one written at W bytes of
// replaced rows per second keeps min(W × period, budget) bytes. With a data
// directory the history is stored beside the items, in the commit's bbolt
// transaction (bucket "pitr/<table>"), and loaded at Open.

// histOverhead is the memory of one history entry besides its key and row.
const histOverhead = 64

type histEntry struct {
	at   int64  // UnixNano of the commit
	tx   uint64 // the commit's id when it was a transaction, else 0
	key  []byte // the row's key
	prev entry  // the row before the commit; prev.kv is nil when absent
}

type history struct {
	entries []histEntry // oldest first
	bytes   int64
	// floor is the newest commit time dropped for the budget: no state
	// before it can be rebuilt.
	floor int64
	// savedFloor is the floor last stored with a data directory.
	savedFloor int64
}

func (h *histEntry) cost() int64 { return int64(len(h.key)+len(h.prev.kv)) + histOverhead }

// recoveryPeriod is the table's PITR recovery period.
func (t *table) recoveryPeriod() time.Duration {
	days := t.pitrDays
	if days == 0 {
		days = 35
	}
	return time.Duration(days) * 24 * time.Hour
}

// remember adds the current operation's changes to the history (when PITR
// is on), and keeps the last transaction's changes for the torn-backup
// fault. The caller holds t.mu.
func (t *table) remember(now time.Time, id uint64, isTx bool, budget int64) {
	if isTx && len(t.changes) > 1 {
		t.lastTx = append(t.lastTx[:0], t.changes...)
	}
	if !t.pitr {
		return
	}
	if t.hist == nil {
		t.hist = &history{}
	}
	h := t.hist
	txid := uint64(0)
	if isTx {
		txid = id
	}
	for _, c := range t.changes {
		en := histEntry{at: now.UnixNano(), tx: txid, key: c.key, prev: c.prev}
		h.entries = append(h.entries, en)
		h.bytes += en.cost()
	}
	h.trim(now.Add(-t.recoveryPeriod()).UnixNano(), budget)
}

// trim drops the entries older than cut, then the oldest commits while the
// history is over budget.
func (h *history) trim(cut, budget int64) {
	n := 0
	for n < len(h.entries) && h.entries[n].at < cut {
		h.bytes -= h.entries[n].cost()
		n++
	}
	for n < len(h.entries) && h.bytes > budget {
		at := h.entries[n].at
		for n < len(h.entries) && h.entries[n].at == at {
			h.bytes -= h.entries[n].cost()
			n++
		}
		h.floor = max(h.floor, at)
	}
	if n == 0 {
		return
	}
	if n > len(h.entries)/2 {
		h.entries = append(make([]histEntry, 0, len(h.entries)-n+16), h.entries[n:]...)
	} else {
		clear(h.entries[:n])
		h.entries = h.entries[n:]
	}
}

// restorableWindow is the earliest and latest restorable times at now; the
// caller holds t.mu.
func (e *Engine) restorableWindow(t *table, now time.Time) (earliest, latest time.Time) {
	earliest = t.pitrSince
	if cut := now.Add(-t.recoveryPeriod()); cut.After(earliest) {
		earliest = cut
	}
	if t.hist != nil && t.hist.floor > earliest.UnixNano() {
		earliest = time.Unix(0, t.hist.floor)
	}
	latest = now.Add(-e.opts.PITRLag)
	if latest.Before(earliest) {
		latest = earliest
	}
	// Rounded up: a state before the floor cannot be rebuilt.
	if r := earliest.Truncate(time.Second); r.Before(earliest) {
		earliest = r.Add(time.Second)
	}
	return earliest, latest.Truncate(time.Second)
}

// itemsAt returns a clone of t's items as they were at time at: every
// commit after it undone. torn leaves the second half of the last
// transaction at or before at undone too, so that the copy holds only part
// of it. The caller holds t.mu for writing.
func (t *table) itemsAt(at time.Time, torn bool) *rows {
	items := t.items.Clone()
	if t.hist == nil {
		return items
	}
	es := t.hist.entries
	i := len(es)
	for i > 0 && es[i-1].at > at.UnixNano() {
		i--
		undo(items, es[i].key, es[i].prev)
	}
	if torn {
		j := i
		for j > 0 && es[j-1].tx == 0 {
			j--
		}
		if j > 0 {
			tx, end := es[j-1].tx, j
			for j > 0 && es[j-1].tx == tx {
				j--
			}
			tearTx(items, es[j:end], func(e histEntry) ([]byte, entry) { return e.key, e.prev })
		}
	}
	return items
}

// tearTx undoes the second half (at least one, never all) of a
// transaction's changes in items.
func tearTx[C any](items *rows, changes []C, of func(C) ([]byte, entry)) {
	if len(changes) < 2 {
		return
	}
	for _, c := range changes[(len(changes)+1)/2:] {
		key, prev := of(c)
		undo(items, key, prev)
	}
}

// undo puts prev (absent when prev.kv is nil) back under key.
func undo(items *rows, key []byte, prev entry) {
	if prev.kv == nil {
		items.Delete(probe(key))
	} else {
		items.ReplaceOrInsert(prev)
	}
}

// History in the store: bucket "pitr/<table>", keys the commit time, the
// commit id and the change's position (8, 8 and 4 bytes, big-endian), so
// that they sort oldest first; values a transaction flag, the row's key
// and the replaced row (its size and encoding; none when absent). The
// floor of each table's history is in the "pitr-floor" bucket.
func historyBucket(name string) []byte { return []byte("pitr/" + name) }

var historyFloorBucket = []byte("pitr-floor")

// saveHistory stores the current operation's changes of a table with PITR
// in tx, and drops the stored entries the history no longer holds.
func saveHistory(tx *bolt.Tx, t *table, now time.Time, id uint64, isTx bool, budget int64) error {
	if !t.pitr || !t.persist || t.deleted || len(t.changes) == 0 {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(historyBucket(t.name))
	if err != nil {
		return err
	}
	at := now.UnixNano()
	for i, c := range t.changes {
		k := binary.BigEndian.AppendUint64(make([]byte, 0, 20), uint64(at))
		k = binary.BigEndian.AppendUint64(k, id)
		k = binary.BigEndian.AppendUint32(k, uint32(i))
		v := []byte{0}
		if isTx {
			v[0] = 1
		}
		v = binary.AppendUvarint(v, uint64(len(c.key)))
		v = append(v, c.key...)
		if c.prev.kv != nil {
			v = binary.AppendUvarint(v, uint64(c.prev.size))
			v = append(v, c.prev.val()...)
		}
		if err := b.Put(k, v); err != nil {
			return err
		}
	}
	cut := now.Add(-t.recoveryPeriod()).UnixNano()
	floor := int64(0)
	if t.hist != nil {
		floor = t.hist.floor
	}
	cur := b.Cursor()
	for k, _ := cur.First(); k != nil && int64(binary.BigEndian.Uint64(k)) <= max(cut-1, floor); k, _ = cur.Next() {
		if err := cur.Delete(); err != nil {
			return err
		}
	}
	if t.hist != nil && floor != t.hist.savedFloor {
		fb, err := tx.CreateBucketIfNotExists(historyFloorBucket)
		if err != nil {
			return err
		}
		if err := fb.Put([]byte(t.name), binary.BigEndian.AppendUint64(nil, uint64(floor))); err != nil {
			return err
		}
		t.hist.savedFloor = floor
	}
	return nil
}

// loadHistory restores a stored table's history at Open.
func loadHistory(tx *bolt.Tx, t *table, now time.Time, budget int64) error {
	if !t.pitr {
		return nil
	}
	t.hist = &history{}
	if fb := tx.Bucket(historyFloorBucket); fb != nil {
		if v := fb.Get([]byte(t.name)); len(v) == 8 {
			t.hist.floor = int64(binary.BigEndian.Uint64(v))
			t.hist.savedFloor = t.hist.floor
		}
	}
	b := tx.Bucket(historyBucket(t.name))
	if b == nil {
		return nil
	}
	err := b.ForEach(func(k, v []byte) error {
		bad := fmt.Errorf("history entry %x of %s is corrupt", k, t.name)
		if len(k) != 20 || len(v) < 2 {
			return bad
		}
		en := histEntry{at: int64(binary.BigEndian.Uint64(k))}
		if v[0] == 1 {
			en.tx = binary.BigEndian.Uint64(k[8:])
		}
		rest := v[1:]
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return bad
		}
		en.key = append([]byte(nil), rest[w:w+int(n)]...)
		rest = rest[w+int(n):]
		if len(rest) > 0 {
			size, w := binary.Uvarint(rest)
			if w <= 0 || size > math.MaxUint32 {
				return bad
			}
			en.prev = joinEntry(en.key, rest[w:], uint32(size))
		}
		t.hist.entries = append(t.hist.entries, en)
		t.hist.bytes += en.cost()
		return nil
	})
	if err != nil {
		return err
	}
	t.hist.trim(now.Add(-t.recoveryPeriod()).UnixNano(), budget)
	return nil
}

type pointInTimeRecoverySpecification struct {
	PointInTimeRecoveryEnabled *bool
	RecoveryPeriodInDays       *int
}

type updateContinuousBackupsInput struct {
	TableName                        string
	PointInTimeRecoverySpecification *pointInTimeRecoverySpecification
}

func (in *updateContinuousBackupsInput) tableNames() []string { return []string{in.TableName} }

// updateContinuousBackups turns PITR on (its history starts now) or off
// (its history is dropped, as DynamoDB deletes it), and sets the recovery
// period (1 to 35 days).
func (e *Engine) updateContinuousBackups(_ context.Context, in *updateContinuousBackupsInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	spec := in.PointInTimeRecoverySpecification
	if spec == nil || spec.PointInTimeRecoveryEnabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
	}
	if d := spec.RecoveryPeriodInDays; d != nil && (*d < 1 || *d > 35) {
		return nil, validationf("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value between 1 and 35", *d)
	}
	if spec.RecoveryPeriodInDays != nil && !*spec.PointInTimeRecoveryEnabled {
		return nil, validationf("Cannot set RecoveryPeriodInDays when PointInTimeRecoveryEnabled is false")
	}
	t, err := e.table(in.TableName)
	if err != nil {
		if e.stillCreating(in.TableName) {
			return nil, backupsUnavailable()
		}
		return nil, newError("TableNotFoundException", "Table not found: %s", in.TableName)
	}
	t.mu.Lock()
	if *spec.PointInTimeRecoveryEnabled && !t.pitr {
		t.pitrSince = e.now()
		t.hist = &history{}
	}
	if !*spec.PointInTimeRecoveryEnabled {
		t.hist, t.pitrDays = nil, 0
	}
	if spec.RecoveryPeriodInDays != nil {
		t.pitrDays = *spec.RecoveryPeriodInDays
	}
	t.pitr = *spec.PointInTimeRecoveryEnabled
	t.mu.Unlock()
	if err := e.persistTable(t); err != nil {
		return nil, err
	}
	if !*spec.PointInTimeRecoveryEnabled {
		e.dropStoredHistory(t.name)
	}
	return map[string]any{"ContinuousBackupsDescription": e.continuousBackups(t)}, nil
}

// dropStoredHistory deletes a table's stored history.
func (e *Engine) dropStoredHistory(name string) {
	if e.db == nil {
		return
	}
	_ = e.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(historyBucket(name)) != nil {
			if err := tx.DeleteBucket(historyBucket(name)); err != nil {
				return err
			}
		}
		if fb := tx.Bucket(historyFloorBucket); fb != nil {
			return fb.Delete([]byte(name))
		}
		return nil
	})
}

func (e *Engine) describeContinuousBackups(_ context.Context, in *tableNameInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, newError("TableNotFoundException", "Table not found: %s", in.TableName)
	}
	return map[string]any{"ContinuousBackupsDescription": e.continuousBackups(t)}, nil
}

func (e *Engine) continuousBackups(t *table) map[string]any {
	t.mu.RLock()
	defer t.mu.RUnlock()
	pitr := map[string]any{"PointInTimeRecoveryStatus": "DISABLED"}
	if t.pitr {
		earliest, latest := e.restorableWindow(t, e.now())
		pitr = map[string]any{
			"PointInTimeRecoveryStatus":  "ENABLED",
			"EarliestRestorableDateTime": epochSeconds(earliest),
			"LatestRestorableDateTime":   epochSeconds(latest),
			"RecoveryPeriodInDays":       int(t.recoveryPeriod() / (24 * time.Hour)),
		}
	}
	return map[string]any{"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": pitr}
}

// restoreOverrides are the settings a restore may change.
type restoreOverrides struct {
	TargetTableName               string
	BillingModeOverride           string
	ProvisionedThroughputOverride *provisionedThroughput
	GlobalSecondaryIndexOverride  []indexJSON
	LocalSecondaryIndexOverride   []indexJSON
	SSESpecificationOverride      map[string]any
	OnDemandThroughputOverride    map[string]any
}

type restoreTableToPointInTimeInput struct {
	SourceTableArn          string
	SourceTableName         string
	UseLatestRestorableTime *bool
	RestoreDateTime         *float64
	restoreOverrides
}

func (in *restoreTableToPointInTimeInput) tableNames() []string {
	return []string{in.SourceTableName, in.TargetTableName}
}

// restoreTableToPointInTime restores the source table as it was at
// RestoreDateTime (or the latest restorable time) into a new table.
func (e *Engine) restoreTableToPointInTime(ctx context.Context, in *restoreTableToPointInTimeInput) (any, error) {
	if err := checkTableName(in.TargetTableName); err != nil {
		return nil, err
	}
	latestFlag := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	switch {
	case in.SourceTableArn == "" && in.SourceTableName == "":
		return nil, validationf("One or more parameter values were invalid: either SourceTableArn or SourceTableName must be specified")
	case in.SourceTableArn != "" && in.SourceTableName != "":
		return nil, validationf("One or more parameter values were invalid: only one of SourceTableArn or SourceTableName may be specified")
	case latestFlag && in.RestoreDateTime != nil:
		return nil, validationf("One or more parameter values were invalid: only one of RestoreDateTime or UseLatestRestorableTime may be specified")
	case !latestFlag && in.RestoreDateTime == nil:
		return nil, validationf("One or more parameter values were invalid: either RestoreDateTime or UseLatestRestorableTime must be specified")
	}
	name := in.SourceTableName
	if in.SourceTableArn != "" {
		name, _ = tableNameOfARN(in.SourceTableArn)
	}
	src, err := e.table(name)
	if err != nil || (in.SourceTableArn != "" && src.arn != in.SourceTableArn) {
		return nil, newError("TableNotFoundException", "Table not found: %s", name)
	}
	if err := e.checkRestoreTarget(in.TargetTableName); err != nil {
		return nil, err
	}
	now := e.now()
	torn := e.faults.torn(src.name)
	// The write lock: the clone marks the tree copy-on-write.
	src.mu.Lock()
	if !src.pitr {
		src.mu.Unlock()
		return nil, newError("PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table '%s'", src.name)
	}
	earliest, latest := e.restorableWindow(src, now)
	at := latest
	if in.RestoreDateTime != nil {
		at = time.UnixMilli(int64(math.Round(*in.RestoreDateTime * 1000)))
	}
	if at.Before(earliest) || at.After(latest) {
		src.mu.Unlock()
		return nil, newError("InvalidRestoreTimeException", "Restore time must be between EarliestRestorableDateTime (%s) and LatestRestorableDateTime (%s)",
			earliest.UTC().Format(time.RFC3339), latest.UTC().Format(time.RFC3339))
	}
	items := src.itemsAt(at, torn)
	def := src.stored()
	src.mu.Unlock()
	summary := map[string]any{"SourceTableArn": src.arn, "RestoreDateTime": epochSeconds(at), "RestoreInProgress": false}
	t, err := e.restoreInto(ctx, def, items, in.restoreOverrides, summary)
	if err != nil {
		return nil, err
	}
	return map[string]any{"TableDescription": e.describeWithStatus(t)}, nil
}
