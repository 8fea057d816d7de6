package republish

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue is the part of the SQS client the failure queue needs.
type Queue interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Failure is one message of the events function's failure queue: a stream
// batch Lambda gave up on, named by its shard, sequence numbers and the
// approximate arrival times of its first and last records.
type Failure struct {
	MessageID, ReceiptHandle string
	Shard                    string
	StartSequence            string
	EndSequence              string
	BatchSize                int
	FirstArrival             time.Time
	LastArrival              time.Time
}

// failureBody is Lambda's on-failure record of a DynamoDB stream batch.
type failureBody struct {
	Info *struct {
		ShardID       string    `json:"shardId"`
		StartSequence string    `json:"startSequenceNumber"`
		EndSequence   string    `json:"endSequenceNumber"`
		FirstArrival  time.Time `json:"approximateArrivalOfFirstRecord"`
		LastArrival   time.Time `json:"approximateArrivalOfLastRecord"`
		BatchSize     int       `json:"batchSize"`
	} `json:"DDBStreamBatchInfo"`
}

// FailureMessageError reports a message of the queue that is not a
// stream batch's failure record.
type FailureMessageError struct {
	MessageID string
	Reason    string
}

func (e *FailureMessageError) Error() string {
	return fmt.Sprintf("republish: message %s is not a stream batch failure: %s", e.MessageID, e.Reason)
}

// ParseFailure reads one message's body.
func ParseFailure(messageID, receiptHandle, body string) (Failure, error) {
	var b failureBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return Failure{}, &FailureMessageError{MessageID: messageID, Reason: err.Error()}
	}
	if b.Info == nil || b.Info.FirstArrival.IsZero() || b.Info.LastArrival.Before(b.Info.FirstArrival) {
		return Failure{}, &FailureMessageError{MessageID: messageID, Reason: "no DDBStreamBatchInfo with arrival times"}
	}
	return Failure{MessageID: messageID, ReceiptHandle: receiptHandle, Shard: b.Info.ShardID,
		StartSequence: b.Info.StartSequence, EndSequence: b.Info.EndSequence, BatchSize: b.Info.BatchSize,
		FirstArrival: b.Info.FirstArrival, LastArrival: b.Info.LastArrival}, nil
}

// Window is the range of commit times of the batch's records, widened by
// margin on both sides: a record's approximate arrival in the stream
// follows its commit, and the item's timestamp precedes both.
func (f Failure) Window(margin time.Duration) Window {
	return Window{From: f.FirstArrival.Add(-margin), To: f.LastArrival.Add(margin)}
}

// ReadFailures receives up to limit messages of the queue at url, each
// hidden for visibility, which must outlast the republish that follows
// before DeleteFailures. A message received twice counts once.
func ReadFailures(ctx context.Context, q Queue, url string, limit int, visibility time.Duration) ([]Failure, error) {
	var out []Failure
	seen := map[string]bool{}
	for len(out) < limit {
		resp, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: int32(min(10, limit-len(out))),
			VisibilityTimeout: int32(visibility / time.Second), WaitTimeSeconds: 1,
		})
		if err != nil {
			return nil, fmt.Errorf("republish: receive from %s: %w", url, err)
		}
		fresh := 0
		for _, m := range resp.Messages {
			id := aws.ToString(m.MessageId)
			if seen[id] {
				continue
			}
			seen[id], fresh = true, fresh+1
			f, err := ParseFailure(id, aws.ToString(m.ReceiptHandle), aws.ToString(m.Body))
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		if fresh == 0 {
			return out, nil
		}
	}
	return out, nil
}

// DeleteFailures deletes the messages of fs from the queue, in batches of
// 10, once their events are republished.
func DeleteFailures(ctx context.Context, q Queue, url string, fs []Failure) error {
	for start := 0; start < len(fs); start += 10 {
		batch := fs[start:min(start+10, len(fs))]
		in := &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url)}
		for i, f := range batch {
			in.Entries = append(in.Entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: aws.String(f.ReceiptHandle)})
		}
		out, err := q.DeleteMessageBatch(ctx, in)
		if err != nil {
			return fmt.Errorf("republish: delete from %s: %w", url, err)
		}
		if len(out.Failed) > 0 {
			return fmt.Errorf("republish: delete from %s: %d messages not deleted (%s: %s)", url, len(out.Failed),
				aws.ToString(out.Failed[0].Code), aws.ToString(out.Failed[0].Message))
		}
	}
	return nil
}
