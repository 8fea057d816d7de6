package ddblocal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The persistent store keeps each table's definition in the "tables"
// bucket and its items, encoded, in a bucket of its own. Indexes and the
// TTL order are rebuilt in memory when the engine opens.
var metaBucket = []byte("tables")

func itemsBucket(name string) []byte { return []byte("items/" + name) }

// DataFile is the name of the bbolt file in Options.Dir.
const DataFile = "ddblocal.db"

// ErrDirInUse is returned by Open when another engine (another process)
// holds Options.Dir: bbolt allows one writer per file, by an exclusive lock.
var ErrDirInUse = errors.New("data directory in use by another process")

// dirLockWait is how long Open waits for a busy directory: long enough for
// a runner that is just stopping to let go, short enough to fail fast.
const dirLockWait = time.Second

type storedIndex struct {
	Name       string
	Local      bool
	Keys       []keySchemaElement
	Projection projectionJSON
	RCU, WCU   int64
}

type storedTable struct {
	Name               string
	ID                 string
	ARN                string
	Created            time.Time
	Keys               []keySchemaElement
	AttrDefs           []attributeDefinition
	Billing            string
	RCU, WCU           int64
	DeletionProtection bool
	// StreamARN is the enabled stream ("" when none); LatestStreamARN the
	// last one enabled.
	StreamARN, LatestStreamARN string
	Indexes                    []storedIndex
	TTLAttr                    string
	TTLEnabled                 bool
	PITR                       bool
	PITRSince                  time.Time
	Tags                       map[string]string
	Policies                   map[string]resourcePolicy `json:",omitempty"`
	PITRDays                   int                       `json:",omitempty"`
	// Restore is the RestoreSummary of a restored table.
	Restore map[string]any `json:",omitempty"`
}

func (e *Engine) openStore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := e.openDB(dir)
	if err != nil {
		return err
	}
	err = e.load(db)
	if err != nil && e.machineCrash && e.recovery == "" {
		// Pages that check out but hold garbage: set the file aside too.
		_ = db.Close()
		if db, err = e.setAside(dir, err); err == nil {
			err = e.load(db)
		}
	}
	return err
}

// load reads every table, stream, token and backup of db; on failure the
// engine is left without them and db is closed.
func (e *Engine) load(db *bolt.DB) error {
	e.db = db
	err := db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if err := e.loadStreams(tx, e.now()); err != nil {
			return err
		}
		if err := e.loadTokens(tx, e.now()); err != nil {
			return err
		}
		if err := e.loadBackups(tx); err != nil {
			return err
		}
		return meta.ForEach(func(k, v []byte) error {
			var st storedTable
			if err := json.Unmarshal(v, &st); err != nil {
				return fmt.Errorf("table %s: %w", k, err)
			}
			t, err := restoreTable(st)
			if err != nil {
				return fmt.Errorf("table %s: %w", k, err)
			}
			if b := tx.Bucket(itemsBucket(st.Name)); b != nil {
				if err := b.ForEach(func(k, v []byte) error {
					it, err := attr.DecodeItem(v)
					if err != nil {
						return err
					}
					key := append([]byte(nil), k...)
					t.write(key, nil, it, 0, time.Time{})
					return nil
				}); err != nil {
					return fmt.Errorf("table %s: %w", st.Name, err)
				}
			}
			t.changes = nil
			t.persist = true
			if err := loadHistory(tx, t, e.now(), e.opts.PITRHistoryBytes); err != nil {
				return fmt.Errorf("table %s: %w", st.Name, err)
			}
			// Linked after the items are loaded, which are no changes.
			t.stream, t.latestStream = e.streams[st.StreamARN], e.streams[st.LatestStreamARN]
			e.tables[st.Name] = t
			return nil
		})
	})
	if err != nil {
		_ = db.Close()
		e.db = nil
		e.tables, e.streams, e.backups = map[string]*table{}, map[string]*stream{}, nil
		e.tokens = newTokenCache()
	}
	return err
}

func restoreTable(st storedTable) (*table, error) {
	defs := map[string]attr.Type{}
	t := &table{
		name: st.Name, id: st.ID, arn: st.ARN, created: st.Created,
		billing: st.Billing, rcu: st.RCU, wcu: st.WCU,
		deletionProtection: st.DeletionProtection,
		items:              newRows(), pitr: st.PITR, pitrSince: st.PITRSince, pitrDays: st.PITRDays, tags: st.Tags,
		restoreSummary: st.Restore,
		policies:       st.Policies,
	}
	for _, d := range st.AttrDefs {
		typ, _ := attr.ParseType(d.AttributeType)
		defs[d.AttributeName] = typ
		t.attrDefs = append(t.attrDefs, attrDef{d.AttributeName, typ})
	}
	ks, err := parseKeySchema(st.Keys, defs, "keySchema")
	if err != nil {
		return nil, err
	}
	t.keys = ks
	for _, si := range st.Indexes {
		iks, err := parseIndexKeySchema(si.Keys, defs, si.Local)
		if err != nil {
			return nil, err
		}
		ix := &index{name: si.Name, local: si.Local, keys: iks, tree: newTree(), status: "ACTIVE", rcu: si.RCU, wcu: si.WCU,
			proj: projection{typ: si.Projection.ProjectionType, nonKey: si.Projection.NonKeyAttributes}}
		if ix.local {
			t.lsis = append(t.lsis, ix)
		} else {
			t.gsis = append(t.gsis, ix)
		}
	}
	if st.TTLEnabled {
		t.ttlEnabled, t.ttlAttr, t.ttlTree = true, st.TTLAttr, btreeTTL()
	}
	return t, nil
}

// persistTable saves a table's definition.
func (e *Engine) persistTable(t *table) error {
	if e.db == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil
	}
	t.persist = true
	st := t.stored()
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	err = e.db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(itemsBucket(t.name)); err != nil {
			return err
		}
		return tx.Bucket(metaBucket).Put([]byte(t.name), raw)
	})
	if err != nil {
		return newError(CodeInternalServerError, "cannot save table %s: %v", t.name, err)
	}
	return nil
}

// flush commits the rows changed by the current operation on t (see
// commit). The caller holds t.mu for writing.
func (e *Engine) flush(t *table) error {
	return e.commit([]*table{t}, nil, false)
}

// commit writes the rows and stream records the current operation changed
// in tables, and the transaction's ClientRequestToken when tok is not nil,
// in one bbolt transaction: all of it reaches the file, or none of it
// does, whatever the number of tables. Stream records become readable
// only after that write; when it fails (a full disk, say), every table's
// rows are put back as they were, so that no reader ever sees a change the
// store does not hold, and the caller gets an InternalServerError. The
// caller holds the tables' write locks.
//
// The changes of a table with point-in-time recovery also go to its
// history (see pitr.go), with the commit's id when it is a transaction.
func (e *Engine) commit(tables []*table, tok *tokenRecord, isTx bool) error {
	dirty := tok != nil
	for _, t := range tables {
		dirty = dirty || len(t.changes) > 0
	}
	if !dirty {
		return nil
	}
	now := e.now()
	for _, t := range tables {
		if t.replica != nil && len(t.changes) > 0 {
			if err := t.replica.replicateStrong(t, isTx, now); err != nil {
				for _, t := range tables {
					t.rollback(now)
				}
				return err
			}
			t.replica.prepare(t, now)
		}
	}
	id := e.commitSeq.Add(1)
	if e.db == nil {
		for _, t := range tables {
			t.committed(now, id, isTx, e.opts.PITRHistoryBytes)
		}
		return nil
	}
	err := e.db.Update(func(tx *bolt.Tx) error {
		for _, t := range tables {
			if err := saveChanges(tx, t); err != nil {
				return err
			}
			if err := saveHistory(tx, t, now, id, isTx, e.opts.PITRHistoryBytes); err != nil {
				return err
			}
		}
		if tok != nil {
			if err := e.saveToken(tx, tok, now); err != nil {
				return err
			}
		}
		if e.commitFault != nil {
			return e.commitFault()
		}
		return nil
	})
	if err != nil {
		for _, t := range tables {
			t.rollback(now)
		}
		ae := newError(CodeInternalServerError, "cannot save the changes: %v", err)
		ae.Cause = err
		return ae
	}
	for _, t := range tables {
		t.committed(now, id, isTx, e.opts.PITRHistoryBytes)
	}
	return nil
}

// saveChanges writes t's rows and stream records of the current operation
// in tx.
func saveChanges(tx *bolt.Tx, t *table) error {
	if len(t.changes) == 0 || t.deleted || !t.persist {
		return nil
	}
	if err := saveStreamChanges(tx, t.streamChanges); err != nil {
		return err
	}
	b, err := tx.CreateBucketIfNotExists(itemsBucket(t.name))
	if err != nil {
		return err
	}
	for _, c := range t.changes {
		if c.val == nil {
			err = b.Delete(c.key)
		} else {
			err = b.Put(c.key, c.val)
		}
		if err != nil {
			return err
		}
	}
	if t.replica != nil {
		return t.replica.save(tx, t)
	}
	return nil
}

// committed publishes the stream records of the operation the store now
// holds, adds its changes to the table's history and forgets them.
func (t *table) committed(now time.Time, id uint64, isTx bool, budget int64) {
	for _, c := range t.streamChanges {
		c.s.publish(c.rec, now)
	}
	if len(t.changes) > 0 {
		if t.replica != nil {
			t.replica.shipCommitted(t)
		}
		t.remember(now, id, isTx, budget)
	}
	t.forgetChanges()
}

func (t *table) forgetChanges() {
	clear(t.changes) // the replaced rows are garbage now
	clear(t.streamChanges)
	t.changes, t.streamChanges = t.changes[:0], t.streamChanges[:0]
}

// rollback undoes the current operation's writes in memory, newest first:
// each row goes back to the one it replaced, with its index rows and TTL
// entry, and the index writes a GSI delay held back are dropped. Its
// stream records were never published. The caller holds t.mu.
func (t *table) rollback(now time.Time) {
	for i, ix := range t.gsis {
		if i < len(t.pendingMark) && len(ix.pending) > t.pendingMark[i] {
			ix.pending = ix.pending[:t.pendingMark[i]]
		}
	}
	changes := t.changes
	t.changes = nil
	persist, s := t.persist, t.stream
	t.persist, t.stream, t.undoing = false, nil, true
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		cur, err1 := decodeRaw(c.val)
		old, err2 := decodeRaw(c.old())
		if err1 != nil || err2 != nil {
			panic("ddblocal: cannot decode a row written by this operation")
		}
		t.write(c.key, cur, old, 0, now)
	}
	t.persist, t.stream, t.undoing = persist, s, false
	t.changes = changes
	t.forgetChanges()
}

// decodeRaw decodes a row's encoding; nil is an absent item.
func decodeRaw(raw []byte) (attr.Item, error) {
	if raw == nil {
		return nil, nil
	}
	return decodeItem(raw)
}

func (e *Engine) dropStoredTable(name string) error {
	if e.db == nil {
		return nil
	}
	err := e.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(metaBucket).Delete([]byte(name)); err != nil {
			return err
		}
		for _, b := range [][]byte{itemsBucket(name), historyBucket(name), versionsBucket(name)} {
			if tx.Bucket(b) != nil {
				if err := tx.DeleteBucket(b); err != nil {
					return err
				}
			}
		}
		if fb := tx.Bucket(historyFloorBucket); fb != nil {
			return fb.Delete([]byte(name))
		}
		return nil
	})
	if err != nil {
		return newError(CodeInternalServerError, "cannot delete table %s: %v", name, err)
	}
	return nil
}
