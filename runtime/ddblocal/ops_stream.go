package ddblocal

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*), served
// on the same endpoint as the tables, as DynamoDB Local does.

const streamsTargetPrefix = "DynamoDBStreams_20120810."

var streamOperations map[string]op

func init() {
	streamOperations = map[string]op{
		"ListStreams":      {run: handle(faultControl, (*Engine).listStreams)},
		"DescribeStream":   {run: handle(faultControl, (*Engine).describeStream)},
		"GetShardIterator": {run: handle(faultControl, (*Engine).getShardIterator)},
		"GetRecords":       {run: handle(faultControl, (*Engine).getRecords)},
	}
}

type listStreamsInput struct {
	TableName               string
	Limit                   *int
	ExclusiveStartStreamArn string
}

func (in *listStreamsInput) tableNames() []string { return nil }

func (e *Engine) listStreams(_ context.Context, in *listStreamsInput) (any, error) {
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
		}
		if *in.Limit > 100 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100", *in.Limit)
		}
		limit = *in.Limit
	}
	if in.ExclusiveStartStreamArn != "" && !strings.HasPrefix(in.ExclusiveStartStreamArn, "arn:") {
		return nil, validationf("Invalid StreamArn")
	}
	list := []map[string]any{}
	more := false
	for _, s := range e.liveStreams() {
		if (in.TableName != "" && s.table != in.TableName) || s.arn <= in.ExclusiveStartStreamArn {
			continue
		}
		if len(list) == limit {
			more = true
			break
		}
		list = append(list, map[string]any{"StreamArn": s.arn, "StreamLabel": s.label, "TableName": s.table})
	}
	out := map[string]any{"Streams": list}
	if more {
		out["LastEvaluatedStreamArn"] = list[len(list)-1]["StreamArn"]
	}
	return out, nil
}

type describeStreamInput struct {
	StreamArn             string
	Limit                 *int
	ExclusiveStartShardId string
}

func (in *describeStreamInput) tableNames() []string { return nil }

func (e *Engine) describeStream(_ context.Context, in *describeStreamInput) (any, error) {
	if in.StreamArn == "" {
		return nil, validationf("1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 100) {
		return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
	}
	s, err := e.stream(in.StreamArn)
	if err != nil {
		return nil, err
	}
	shards := []map[string]any{}
	// The one shard sorts after any ExclusiveStartShardId up to its own.
	if in.ExclusiveStartShardId < s.shardID {
		shards = append(shards, s.describeShard())
	}
	return map[string]any{"StreamDescription": map[string]any{
		"StreamArn":               s.arn,
		"StreamLabel":             s.label,
		"StreamStatus":            s.status(),
		"StreamViewType":          s.viewType,
		"CreationRequestDateTime": epochSeconds(s.created),
		"TableName":               s.table,
		"KeySchema":               keySchemaJSON(s.keys),
		"Shards":                  shards,
	}}, nil
}

type getShardIteratorInput struct {
	StreamArn         string
	ShardId           string
	ShardIteratorType string
	SequenceNumber    *string
}

func (in *getShardIteratorInput) tableNames() []string { return nil }

func (e *Engine) getShardIterator(_ context.Context, in *getShardIteratorInput) (any, error) {
	if in.StreamArn == "" {
		return nil, validationf("1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	}
	if in.ShardId == "" {
		return nil, validationf("1 validation error detected: Value null at 'shardId' failed to satisfy constraint: Member must not be null")
	}
	seqType := in.ShardIteratorType == "AT_SEQUENCE_NUMBER" || in.ShardIteratorType == "AFTER_SEQUENCE_NUMBER"
	if !seqType && in.ShardIteratorType != "TRIM_HORIZON" && in.ShardIteratorType != "LATEST" {
		return nil, validationf("1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]", in.ShardIteratorType)
	}
	if seqType && (in.SequenceNumber == nil || *in.SequenceNumber == "") {
		return nil, validationf("Must specify a sequence number for iterator type %s", in.ShardIteratorType)
	}
	s, err := e.stream(in.StreamArn)
	if err != nil {
		return nil, err
	}
	if in.ShardId != s.shardID {
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Shard does not exist")
	}
	now := e.now()
	s.mu.Lock()
	s.trimLocked(now)
	after, err := s.position(in.ShardIteratorType, in.SequenceNumber)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return map[string]any{"ShardIterator": encodeIterator(s.arn, s.shardID, after, now)}, nil
}

// position is where an iterator of type typ starts: the sequence number
// after which it reads. The caller holds s.mu.
func (s *stream) position(typ string, seqText *string) (uint64, error) {
	switch typ {
	case "TRIM_HORIZON":
		return s.trimmed, nil
	case "LATEST":
		return s.last, nil
	}
	n, ok := parseSeq(*seqText)
	if !ok || n < s.startSeq || n > s.last {
		return 0, validationf("Invalid SequenceNumber %s for shard %s", *seqText, s.shardID)
	}
	after := n
	if typ == "AT_SEQUENCE_NUMBER" && n > s.startSeq {
		after = n - 1
	}
	if after < s.trimmed {
		return 0, newError(CodeTrimmedDataAccess, "The operation attempted to read past the oldest stream record in a shard, or to use a stale iterator")
	}
	return after, nil
}

// A shard iterator is opaque to clients: the stream, the shard, the
// position and when it was issued, which decides its expiry.
func encodeIterator(arn, shard string, after uint64, issued time.Time) string {
	raw := arn + "|" + shard + "|" + strconv.FormatUint(after, 10) + "|" + strconv.FormatInt(issued.UnixNano(), 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

type shardIterator struct {
	arn, shard string
	after      uint64
	issued     time.Time
}

func decodeIterator(text string) (shardIterator, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return shardIterator{}, false
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 4 {
		return shardIterator{}, false
	}
	after, err1 := strconv.ParseUint(parts[2], 10, 64)
	ns, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil {
		return shardIterator{}, false
	}
	return shardIterator{arn: parts[0], shard: parts[1], after: after, issued: time.Unix(0, ns)}, true
}

type getRecordsInput struct {
	ShardIterator string
	Limit         *int
}

func (in *getRecordsInput) tableNames() []string { return nil }

func (e *Engine) getRecords(_ context.Context, in *getRecordsInput) (any, error) {
	if in.ShardIterator == "" {
		return nil, validationf("1 validation error detected: Value null at 'shardIterator' failed to satisfy constraint: Member must not be null")
	}
	limit := 1000
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 1000 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 1000", *in.Limit)
		}
		limit = *in.Limit
	}
	it, ok := decodeIterator(in.ShardIterator)
	if !ok {
		return nil, validationf("Invalid ShardIterator")
	}
	now := e.now()
	if now.Sub(it.issued) > iteratorLifetime {
		return nil, newError(CodeExpiredIterator, "Iterator expired. The iterator was created at time %s while right now it is %s. The iterator is valid for 15 minutes.",
			it.issued.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	s, err := e.stream(it.arn)
	if err != nil {
		return nil, err
	}
	if it.shard != s.shardID {
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Shard does not exist")
	}
	s.mu.Lock()
	s.trimLocked(now)
	s.mu.Unlock()
	recs, next, done, err := s.since(it.after, limit, now.Add(-e.faults.streamDelay(s.table)))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"Records": e.streamRecordsJSON(s, recs)}
	if !done {
		out["NextShardIterator"] = encodeIterator(s.arn, s.shardID, next, now)
	}
	return out, nil
}

// streamRecordsJSON writes records in the Streams API's form.
func (e *Engine) streamRecordsJSON(s *stream, recs []streamRecord) []map[string]any {
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		m, err := e.streamRecordJSON(s, r)
		if err != nil {
			continue // a corrupt row never reaches the table either
		}
		out = append(out, m)
	}
	return out
}

func (e *Engine) streamRecordJSON(s *stream, r streamRecord) (map[string]any, error) {
	keySrc := r.newRaw
	if keySrc == nil {
		keySrc = r.oldRaw
	}
	full, err := attr.DecodeItemView(keySrc)
	if err != nil {
		return nil, err
	}
	keys := attr.Item{}
	for _, n := range s.keys.names() {
		keys[n] = full[n]
	}
	size := attr.ItemSize(keys)
	body := map[string]any{
		"ApproximateCreationDateTime": r.at.Unix(),
		"Keys":                        keys,
		"SequenceNumber":              formatSeq(r.seq),
		"StreamViewType":              s.viewType,
	}
	if s.wantsNew() && r.newRaw != nil {
		body["NewImage"] = rawItem(r.newRaw)
		size += imageSize(r.newRaw)
	}
	if s.wantsOld() && r.oldRaw != nil {
		body["OldImage"] = rawItem(r.oldRaw)
		size += imageSize(r.oldRaw)
	}
	body["SizeBytes"] = int64(size)
	m := map[string]any{
		"awsRegion":    arnRegion(s.arn, e.opts.Region),
		"dynamodb":     body,
		"eventID":      eventID(s.arn, r.seq),
		"eventName":    eventNames[r.event],
		"eventSource":  "aws:dynamodb",
		"eventVersion": "1.1",
	}
	if r.service {
		// Deleted by TTL, as "Time to Live (TTL) and DynamoDB Streams" documents.
		m["userIdentity"] = map[string]any{"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
	}
	return m, nil
}

// arnRegion is the region an ARN names (the table's, which follows the
// request that created it), or def.
func arnRegion(arn, def string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 5 || parts[3] == "" {
		return def
	}
	return parts[3]
}

func imageSize(raw []byte) int {
	it, err := attr.DecodeItemView(raw)
	if err != nil {
		return 0
	}
	return attr.ItemSize(it)
}

// eventID is unique per stream record and stable across reads.
func eventID(arn string, seq uint64) string {
	const hex = "0123456789abcdef"
	var b [32]byte
	h := fnv64(arn)
	for i := 15; i >= 0; i-- {
		b[i] = hex[h&0xF]
		h >>= 4
	}
	for i := 31; i >= 16; i-- {
		b[i] = hex[seq&0xF]
		seq >>= 4
	}
	return string(b[:])
}
