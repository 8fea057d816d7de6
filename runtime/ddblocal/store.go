package ddblocal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

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
}

func (e *Engine) openStore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Without fsync a commit still reaches the OS, so data survives the
	// process (make run restarts) though not a machine crash; local state
	// is not worth a disk flush per write.
	db, err := bolt.Open(filepath.Join(dir, DataFile), 0o644, &bolt.Options{Timeout: dirLockWait, NoSync: true, NoFreelistSync: true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return ErrDirInUse
	}
	if err != nil {
		return err
	}
	e.db = db
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if err := e.loadStreams(tx, e.now()); err != nil {
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
			// Linked after the items are loaded, which are no changes.
			t.stream, t.latestStream = e.streams[st.StreamARN], e.streams[st.LatestStreamARN]
			e.tables[st.Name] = t
			return nil
		})
	})
	if err != nil {
		_ = db.Close()
		e.db = nil
	}
	return err
}

func restoreTable(st storedTable) (*table, error) {
	defs := map[string]attr.Type{}
	t := &table{
		name: st.Name, id: st.ID, arn: st.ARN, created: st.Created,
		billing: st.Billing, rcu: st.RCU, wcu: st.WCU,
		deletionProtection: st.DeletionProtection,
		items:              newTree(), pitr: st.PITR, pitrSince: st.PITRSince, tags: st.Tags,
		policies: st.Policies,
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
	st := storedTable{
		Name: t.name, ID: t.id, ARN: t.arn, Created: t.created, Keys: keySchemaJSON(t.keys),
		Billing: t.billing, RCU: t.rcu, WCU: t.wcu, DeletionProtection: t.deletionProtection,
		TTLAttr: t.ttlAttr, TTLEnabled: t.ttlEnabled, PITR: t.pitr, PITRSince: t.pitrSince, Tags: t.tags,
		Policies: t.policies,
	}
	if t.stream != nil {
		st.StreamARN = t.stream.arn
	}
	if t.latestStream != nil {
		st.LatestStreamARN = t.latestStream.arn
	}
	for _, d := range t.attrDefs {
		st.AttrDefs = append(st.AttrDefs, attributeDefinition{d.name, d.typ.String()})
	}
	for _, ix := range t.indexes() {
		st.Indexes = append(st.Indexes, storedIndex{Name: ix.name, Local: ix.local, Keys: keySchemaJSON(ix.keys),
			Projection: projectionJSON{ProjectionType: ix.proj.typ, NonKeyAttributes: ix.proj.nonKey}, RCU: ix.rcu, WCU: ix.wcu})
	}
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

// flush writes the rows changed by the current operation to the store. The
// caller holds t.mu for writing.
func (e *Engine) flush(t *table) error {
	if len(t.changes) == 0 {
		return nil
	}
	changes, records := t.changes, t.streamChanges
	t.changes, t.streamChanges = t.changes[:0], t.streamChanges[:0]
	if e.db == nil || t.deleted {
		return nil
	}
	err := e.db.Update(func(tx *bolt.Tx) error {
		if err := saveStreamChanges(tx, records); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(itemsBucket(t.name))
		if err != nil {
			return err
		}
		for _, c := range changes {
			if c.val == nil {
				err = b.Delete(c.key)
			} else {
				err = b.Put(c.key, c.val)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return newError(CodeInternalServerError, "cannot save items of %s: %v", t.name, err)
	}
	return nil
}

func (e *Engine) dropStoredTable(name string) error {
	if e.db == nil {
		return nil
	}
	err := e.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(metaBucket).Delete([]byte(name)); err != nil {
			return err
		}
		if tx.Bucket(itemsBucket(name)) != nil {
			return tx.DeleteBucket(itemsBucket(name))
		}
		return nil
	})
	if err != nil {
		return newError(CodeInternalServerError, "cannot delete table %s: %v", name, err)
	}
	return nil
}
