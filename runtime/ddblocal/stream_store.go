package ddblocal

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Streams are stored beside the tables: each stream's description in the
// "streams" bucket and its records in a bucket of their own, keyed by
// sequence number, written in the same transaction as the items they
// describe.
var streamsBucket = []byte("streams")

func recordsBucket(arn string) []byte { return []byte("records/" + arn) }

// streamChange is a record written by the current operation, for the store.
type streamChange struct {
	s   *stream
	rec streamRecord
}

type storedStream struct {
	ARN, Label, Table, ViewType string
	Keys                        []string
	Created                     time.Time
	ShardID                     string
	StartSeq, Trimmed, Last     uint64
	Disabled                    time.Time
}

func (s *stream) stored() storedStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return storedStream{ARN: s.arn, Label: s.label, Table: s.table, ViewType: s.viewType, Keys: s.keys.names(),
		Created: s.created, ShardID: s.shardID, StartSeq: s.startSeq, Trimmed: s.trimmed, Last: s.last, Disabled: s.disabled}
}

func putStreamMeta(tx *bolt.Tx, s *stream) error {
	raw, err := json.Marshal(s.stored())
	if err != nil {
		return err
	}
	b, err := tx.CreateBucketIfNotExists(streamsBucket)
	if err != nil {
		return err
	}
	return b.Put([]byte(s.arn), raw)
}

// persistStream saves a stream's description (its records are saved by
// flush).
func (e *Engine) persistStream(s *stream) {
	if e.db == nil {
		return
	}
	_ = e.db.Update(func(tx *bolt.Tx) error { return putStreamMeta(tx, s) })
}

func (e *Engine) dropStoredStream(arn string) {
	if e.db == nil {
		return
	}
	_ = e.db.Update(func(tx *bolt.Tx) error {
		if b := tx.Bucket(streamsBucket); b != nil {
			if err := b.Delete([]byte(arn)); err != nil {
				return err
			}
		}
		if tx.Bucket(recordsBucket(arn)) != nil {
			return tx.DeleteBucket(recordsBucket(arn))
		}
		return nil
	})
}

// saveStreamChanges writes the records of the current operation, drops
// the trimmed ones and updates the descriptions of their streams.
func saveStreamChanges(tx *bolt.Tx, changes []streamChange) error {
	var touched []*stream
	for _, c := range changes {
		b, err := tx.CreateBucketIfNotExists(recordsBucket(c.s.arn))
		if err != nil {
			return err
		}
		if err := b.Put(seqKey(c.rec.seq), encodeRecord(c.rec)); err != nil {
			return err
		}
		if len(touched) == 0 || touched[len(touched)-1] != c.s {
			touched = append(touched, c.s)
		}
	}
	for _, s := range touched {
		s.mu.Lock()
		trimmed := s.trimmed
		s.mu.Unlock()
		cur := tx.Bucket(recordsBucket(s.arn)).Cursor()
		for k, _ := cur.First(); k != nil && binary.BigEndian.Uint64(k) <= trimmed; k, _ = cur.Next() {
			if err := cur.Delete(); err != nil {
				return err
			}
		}
		if err := putStreamMeta(tx, s); err != nil {
			return err
		}
	}
	return nil
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// encodeRecord is a record's commit time, event, TTL flag and images; an
// encoded item is never empty, so a zero length is an absent image.
func encodeRecord(r streamRecord) []byte {
	buf := binary.BigEndian.AppendUint64(make([]byte, 0, 12+len(r.oldRaw)+len(r.newRaw)), uint64(r.at.UnixNano()))
	svc := byte(0)
	if r.service {
		svc = 1
	}
	buf = append(buf, r.event, svc)
	buf = binary.AppendUvarint(buf, uint64(len(r.oldRaw)))
	buf = append(buf, r.oldRaw...)
	buf = binary.AppendUvarint(buf, uint64(len(r.newRaw)))
	return append(buf, r.newRaw...)
}

func decodeRecord(seq uint64, v []byte) (streamRecord, error) {
	bad := fmt.Errorf("stream record %d is corrupt", seq)
	if len(v) < 10 || v[8] < eventInsert || v[8] > eventRemove {
		return streamRecord{}, bad
	}
	r := streamRecord{seq: seq, at: time.Unix(0, int64(binary.BigEndian.Uint64(v))), event: v[8], service: v[9] == 1}
	rest := v[10:]
	var imgs [2][]byte
	for i := range imgs {
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return streamRecord{}, bad
		}
		if n > 0 {
			// bbolt's memory is valid only in its transaction.
			imgs[i] = append([]byte(nil), rest[w:w+int(n)]...)
		}
		rest = rest[w+int(n):]
	}
	r.oldRaw, r.newRaw = imgs[0], imgs[1]
	return r, nil
}

// loadStreams restores the stored streams, their records trimmed by now,
// and the sequence counter.
func (e *Engine) loadStreams(tx *bolt.Tx, now time.Time) error {
	meta := tx.Bucket(streamsBucket)
	if meta == nil {
		return nil
	}
	return meta.ForEach(func(k, v []byte) error {
		var st storedStream
		if err := json.Unmarshal(v, &st); err != nil {
			return fmt.Errorf("stream %s: %w", k, err)
		}
		s := &stream{arn: st.ARN, label: st.Label, table: st.Table, viewType: st.ViewType, created: st.Created,
			shardID: st.ShardID, startSeq: st.StartSeq, trimmed: st.Trimmed, last: st.Last, disabled: st.Disabled, seq: &e.streamSeq}
		if len(st.Keys) > 0 {
			s.keys.hash.name = st.Keys[0]
		}
		if len(st.Keys) > 1 {
			s.keys.rng.name = st.Keys[1]
		}
		s.keys = s.keys.withAttrs()
		if b := tx.Bucket(recordsBucket(st.ARN)); b != nil {
			if err := b.ForEach(func(k, v []byte) error {
				r, err := decodeRecord(binary.BigEndian.Uint64(k), v)
				if err != nil {
					return err
				}
				s.records = append(s.records, r)
				s.last = max(s.last, r.seq)
				return nil
			}); err != nil {
				return fmt.Errorf("stream %s: %w", st.ARN, err)
			}
		}
		s.trimLocked(now)
		if s.last > e.streamSeq.Load() {
			e.streamSeq.Store(s.last)
		}
		e.streams[s.arn] = s
		return nil
	})
}
