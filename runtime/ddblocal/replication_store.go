package ddblocal

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// With Options.Dir, each Region's data file keeps what its replicas need
// across a restart, in the same bbolt transaction as the rows: the
// versions of the items (so last writer wins still decides after a
// restart), the entries its writes owe the other Regions (its backlog),
// and the global tables it takes part in. An entry leaves the backlog once
// the other Region has applied it (or found it older than its own item):
// a crash in between delivers it again, which last writer wins makes
// harmless, and an entry always carries one item's whole write, so a
// crash never delivers half of one.

var (
	groupsBucket  = []byte("global/groups")
	backlogBucket = []byte("global/backlog")
)

func versionsBucket(name string) []byte { return []byte("global/versions/" + name) }

// storedGroup is a global table as a Region's data file keeps it.
type storedGroup struct {
	Strong   bool
	Replicas []string
	Witness  string `json:",omitempty"`
	// SeededFrom names, by replica, the Region it was created from.
	SeededFrom map[string]string `json:",omitempty"`
}

// storedEntry is an entry of the backlog.
type storedEntry struct {
	Table, To string
	Key, Val  []byte
	At        int64
	Region    string
	TTL       bool `json:",omitempty"`
	Committed time.Time
	Fanout    []string `json:",omitempty"`
}

func encodeVersion(v itemVersion) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(v.at))
	return append(b, v.region...)
}

func decodeVersion(b []byte) (itemVersion, error) {
	if len(b) < 8 {
		return itemVersion{}, fmt.Errorf("a version of %d bytes", len(b))
	}
	return itemVersion{at: int64(binary.BigEndian.Uint64(b)), region: string(b[8:])}, nil
}

// save writes the versions and entries of the operation being committed
// in tx; the caller holds t.mu.
func (l *replicaLink) save(tx *bolt.Tx, t *table) error {
	vb, err := tx.CreateBucketIfNotExists(versionsBucket(t.name))
	if err != nil {
		return err
	}
	for i, c := range t.changes {
		if i < len(l.pending) && l.pending[i].region != "" {
			if err := vb.Put(c.key, encodeVersion(l.pending[i])); err != nil {
				return err
			}
		}
	}
	if len(l.outbox) == 0 {
		return nil
	}
	bb, err := tx.CreateBucketIfNotExists(backlogBucket)
	if err != nil {
		return err
	}
	for _, en := range l.outbox {
		raw, err := json.Marshal(storedEntry{Table: en.table, To: en.to, Key: en.key, Val: en.val,
			At: en.ver.at, Region: en.ver.region, TTL: en.ttl, Committed: en.committed, Fanout: en.fanout})
		if err != nil {
			return err
		}
		if err := bb.Put(seqKey(en.seq), raw); err != nil {
			return err
		}
	}
	return nil
}

// forget removes delivered or dropped entries from their Regions' files.
func (r *replicator) forget(ens []*replEntry) {
	by := map[string][]uint64{}
	for _, en := range ens {
		by[en.from] = append(by[en.from], en.seq)
	}
	for from, seqs := range by {
		e := r.set.engines[from]
		if e == nil || e.db == nil {
			continue
		}
		_ = e.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(backlogBucket)
			if b == nil {
				return nil
			}
			for _, n := range seqs {
				if err := b.Delete(seqKey(n)); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// saveGroup writes a global table's membership (or its end, when gone) to
// every Region's data file.
func (s *regionSet) saveGroup(name string) {
	s.mu.Lock()
	var raw []byte
	if g := s.groups[name]; g != nil {
		sg := storedGroup{Strong: g.strong, Replicas: g.regionNames(), Witness: g.witness}
		for r, st := range g.replicas {
			if st.seededFrom != "" {
				if sg.SeededFrom == nil {
					sg.SeededFrom = map[string]string{}
				}
				sg.SeededFrom[r] = st.seededFrom
			}
		}
		raw, _ = json.Marshal(sg)
	}
	s.mu.Unlock()
	for _, r := range s.names {
		e := s.engines[r]
		if e == nil || e.db == nil {
			continue
		}
		_ = e.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(groupsBucket)
			if err != nil {
				return err
			}
			if raw == nil {
				return b.Delete([]byte(name))
			}
			return b.Put([]byte(name), raw)
		})
	}
}

// load restores the global tables, the versions of their items and the
// backlogs from the Regions' data files, once every Region is open.
func (s *regionSet) load() error {
	r := s.repl
	for _, region := range s.names {
		e := s.engines[region]
		if e.db == nil {
			continue
		}
		err := e.db.View(func(tx *bolt.Tx) error {
			if gb := tx.Bucket(groupsBucket); gb != nil {
				if err := gb.ForEach(func(k, v []byte) error {
					var sg storedGroup
					if err := json.Unmarshal(v, &sg); err != nil {
						return fmt.Errorf("global table %s: %w", k, err)
					}
					g := &globalGroup{name: string(k), strong: sg.Strong, witness: sg.Witness, replicas: map[string]*replicaState{}}
					for _, m := range sg.Replicas {
						g.replicas[m] = &replicaState{seededFrom: sg.SeededFrom[m]}
					}
					s.groups[g.name] = g
					return nil
				}); err != nil {
					return err
				}
			}
			for name, g := range s.groups {
				t := e.tables[name]
				if t == nil || g.replicas[region] == nil {
					continue
				}
				l := &replicaLink{set: s, region: region, versions: map[string]itemVersion{}}
				if vb := tx.Bucket(versionsBucket(name)); vb != nil {
					if err := vb.ForEach(func(k, v []byte) error {
						ver, err := decodeVersion(v)
						l.versions[string(k)] = ver
						return err
					}); err != nil {
						return fmt.Errorf("global table %s: %w", name, err)
					}
				}
				t.replica = l
			}
			bb := tx.Bucket(backlogBucket)
			if bb == nil {
				return nil
			}
			return bb.ForEach(func(k, v []byte) error {
				var se storedEntry
				if err := json.Unmarshal(v, &se); err != nil {
					return fmt.Errorf("replication backlog: %w", err)
				}
				seq := binary.BigEndian.Uint64(k)
				r.seq = max(r.seq, seq)
				heap.Push(&r.queue, &replEntry{seq: seq, table: se.Table, from: region, to: se.To,
					key: bytes.Clone(se.Key), val: bytes.Clone(se.Val), ver: itemVersion{at: se.At, region: se.Region},
					ttl: se.TTL, committed: se.Committed, due: se.Committed, fanout: se.Fanout})
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("ddblocal: Region %s: %w", region, err)
		}
	}
	if r.queue.Len() > 0 && !r.manual {
		r.start()
	}
	return nil
}
