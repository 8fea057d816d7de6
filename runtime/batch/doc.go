// Package batch wraps BatchGetItem and BatchWriteItem so that nothing is
// silently dropped: requests are cut into DynamoDB's chunks (100 keys per
// BatchGetItem, 25 writes per BatchWriteItem), and UnprocessedKeys /
// UnprocessedItems are sent again with capped, jittered backoff until they
// are done or the attempts run out, which is an error naming how many are
// left.
//
// It is not transactional: use TransactWriteItems when items must change
// together.
package batch
