package ddblocal

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// A table's stream is one shard, open while the stream is enabled and
// closed (EndingSequenceNumber set) when it is disabled or the table is
// deleted. DynamoDB splits shards as a table grows; one engine process
// never needs to, and a client that follows shard lineage handles one shard
// without parents as well as many.

// streamRetention is how long DynamoDB keeps a stream record, and a
// disabled stream.
const streamRetention = 24 * time.Hour

// iteratorLifetime is how long a shard iterator can be used.
const iteratorLifetime = 15 * time.Minute

// Stream view types.
const (
	viewKeysOnly      = "KEYS_ONLY"
	viewNewImage      = "NEW_IMAGE"
	viewOldImage      = "OLD_IMAGE"
	viewNewAndOldImgs = "NEW_AND_OLD_IMAGES"
)

func validViewType(v string) bool {
	switch v {
	case viewKeysOnly, viewNewImage, viewOldImage, viewNewAndOldImgs:
		return true
	}
	return false
}

// Event names of a stream record.
const (
	eventInsert byte = iota + 1
	eventModify
	eventRemove
)

var eventNames = [...]string{eventInsert: "INSERT", eventModify: "MODIFY", eventRemove: "REMOVE"}

// streamRecord is one change of one item. Images are the encoded rows
// (attr.EncodeItem) of the table's B-tree, which are never modified once
// stored, so a record shares no memory with a decoded item that the engine
// pools and reuses. Only the images the view type needs are kept, and one
// of them always, for the keys.
type streamRecord struct {
	seq     uint64
	at      time.Time
	event   byte
	service bool // deleted by TTL
	oldRaw  []byte
	newRaw  []byte
}

// stream is one stream of a table, enabled or kept (disabled) until its
// records expire.
type stream struct {
	arn      string
	label    string
	table    string
	viewType string
	keys     keySchema
	created  time.Time
	shardID  string
	// startSeq is reserved for the shard's start: records have higher
	// sequence numbers.
	startSeq uint64
	seq      *atomic.Uint64 // the engine's sequence counter

	mu      sync.Mutex
	records []streamRecord
	// trimmed is the highest sequence number no longer readable.
	trimmed  uint64
	last     uint64    // highest sequence number written
	disabled time.Time // zero while enabled
}

func (s *stream) wantsOld() bool {
	return s.viewType == viewOldImage || s.viewType == viewNewAndOldImgs
}
func (s *stream) wantsNew() bool {
	return s.viewType == viewNewImage || s.viewType == viewNewAndOldImgs
}

// newStream starts a stream of t at now; the caller holds t.mu.
func (e *Engine) newStream(t *table, viewType string, now time.Time) *stream {
	e.streamMu.Lock()
	defer e.streamMu.Unlock()
	// Labels are milliseconds; a stream enabled again within the same
	// millisecond (a fake clock) still gets an ARN of its own.
	at := now.UTC().Truncate(time.Millisecond)
	var label, arn string
	for {
		label = at.Format("2006-01-02T15:04:05.000")
		arn = t.arn + "/stream/" + label
		if _, taken := e.streams[arn]; !taken {
			break
		}
		at = at.Add(time.Millisecond)
	}
	start := e.streamSeq.Add(1)
	s := &stream{
		arn: arn, label: label, table: t.name, viewType: viewType, keys: t.keys,
		created: now, startSeq: start, seq: &e.streamSeq,
		shardID: fmt.Sprintf("shardId-%020d-%08x", at.UnixMilli(), uint32(fnv64(arn))),
		trimmed: start - 1, last: start,
	}
	e.streams[arn] = s
	return s
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// disable closes the stream's shard at now.
func (s *stream) disable(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disabled.IsZero() {
		s.disabled = now
	}
}

// capture records the change of one item from oldRaw to newRaw (nil when
// absent) committed at now. It is called by writeEntry, under t.mu, for
// every write path; a write that changes nothing records nothing.
func (t *table) capture(oldRaw, newRaw []byte, now time.Time) {
	s := t.stream
	var ev byte
	switch {
	case oldRaw == nil && newRaw == nil:
		return
	case oldRaw == nil:
		ev = eventInsert
	case newRaw == nil:
		ev = eventRemove
	default:
		if sameItem(oldRaw, newRaw) {
			return
		}
		ev = eventModify
	}
	rec := streamRecord{at: now, event: ev, service: t.serviceWrite}
	if s.wantsOld() || newRaw == nil {
		rec.oldRaw = oldRaw
	}
	if s.wantsNew() || rec.oldRaw == nil {
		rec.newRaw = newRaw
	}
	rec.seq = s.seq.Add(1)
	if t.persist || t.replica != nil {
		// Readers see it once the store holds it (see Engine.commit), or
		// once a replica's write is committed in every Region it must be.
		t.streamChanges = append(t.streamChanges, streamChange{s: s, rec: rec})
		return
	}
	s.publish(rec, now)
}

// publish makes a committed record readable; records are published in
// sequence order, under their table's lock.
func (s *stream) publish(rec streamRecord, now time.Time) {
	s.mu.Lock()
	s.records = append(s.records, rec)
	s.last = rec.seq
	s.trimLocked(now)
	s.mu.Unlock()
}

// sameItem reports whether two encoded items hold the same attributes; the
// encoding follows map order, so equal bytes are sufficient, not necessary.
func sameItem(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if bytes.Equal(a, b) {
		return true
	}
	x, err1 := attr.DecodeItemView(a)
	y, err2 := attr.DecodeItemView(b)
	return err1 == nil && err2 == nil && attr.EqualItems(x, y)
}

// trimLocked drops the records older than the retention period; the
// caller holds s.mu.
func (s *stream) trimLocked(now time.Time) {
	cut := now.Add(-streamRetention)
	n := 0
	for n < len(s.records) && s.records[n].at.Before(cut) {
		n++
	}
	if n == 0 {
		return
	}
	s.trimmed = s.records[n-1].seq
	// Reslicing costs nothing per write; the next growth of the slice
	// copies only the live records, and the cleared ones free their images.
	clear(s.records[:n])
	s.records = s.records[n:]
}

// expired reports whether a disabled stream has outlived its records.
func (s *stream) expired(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.disabled.IsZero() && now.Sub(s.disabled) > streamRetention
}

// since returns up to limit records after sequence number after that are
// visible at visibleBy (committed no later), and whether the shard is
// closed and fully read by them.
func (s *stream) since(after uint64, limit int, visibleBy time.Time) (recs []streamRecord, next uint64, done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if after < s.trimmed {
		return nil, 0, false, newError(CodeTrimmedDataAccess, "The operation attempted to read past the oldest stream record in a shard, or to use a stale iterator")
	}
	i := sort.Search(len(s.records), func(i int) bool { return s.records[i].seq > after })
	next = after
	for ; i < len(s.records) && len(recs) < limit; i++ {
		r := s.records[i]
		if r.at.After(visibleBy) {
			break
		}
		recs = append(recs, r)
		next = r.seq
	}
	done = !s.disabled.IsZero() && next >= s.last
	return recs, next, done, nil
}

// describeShard is the shard in DescribeStream's form.
func (s *stream) describeShard() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	rng := map[string]any{"StartingSequenceNumber": formatSeq(s.startSeq)}
	if !s.disabled.IsZero() {
		rng["EndingSequenceNumber"] = formatSeq(s.last)
	}
	return map[string]any{"ShardId": s.shardID, "SequenceNumberRange": rng}
}

func (s *stream) status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disabled.IsZero() {
		return "ENABLED"
	}
	return "DISABLED"
}

// formatSeq writes sequence numbers with a fixed width, so that they
// compare the same as strings and as numbers.
func formatSeq(n uint64) string { return fmt.Sprintf("%021d", n) }

func parseSeq(s string) (uint64, bool) {
	if s == "" || len(s) > 40 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if n > (^uint64(0)-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// stream returns the stream with ARN arn, dropping it when it expired.
func (e *Engine) stream(arn string) (*stream, error) {
	e.streamMu.Lock()
	s := e.streams[arn]
	e.streamMu.Unlock()
	if s == nil || s.expired(e.now()) {
		if s != nil {
			e.dropStream(s)
		}
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Stream: %s not found", arn)
	}
	return s, nil
}

// liveStreams returns the streams not yet expired, sorted by ARN.
func (e *Engine) liveStreams() []*stream {
	now := e.now()
	e.streamMu.Lock()
	all := make([]*stream, 0, len(e.streams))
	for _, s := range e.streams {
		all = append(all, s)
	}
	e.streamMu.Unlock()
	out := all[:0]
	for _, s := range all {
		if s.expired(now) {
			e.dropStream(s)
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].arn < out[j].arn })
	return out
}

func (e *Engine) dropStream(s *stream) {
	e.streamMu.Lock()
	if e.streams[s.arn] == s {
		delete(e.streams, s.arn)
	}
	e.streamMu.Unlock()
	e.dropStoredStream(s.arn)
}
