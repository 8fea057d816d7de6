// Package outbox turns the table's change stream into payment domain
// events and publishes them to Amazon EventBridge: the table is its own
// transactional outbox. An event is derived from a stream record's new
// image, never written separately, so a committed change cannot lose its
// event and an uncommitted one cannot produce one.
//
// FromRecord derives the event of one stream record, if it carries one:
//
//	ledger entry inserted, kind credit        CreditPosted      id CreditPosted:<entryId>
//	ledger entry inserted, kind debit/settle  DebitPosted       id DebitPosted:<entryId>
//	order modified to gain paymentId (charge) PaymentCreated    id PaymentCreated:<paymentId>
//	order modified to status paid (settle)    OrderPaid         id OrderPaid:<orderId>
//	payment modified to status processed      PaymentProcessed  id PaymentProcessed:<paymentId>
//	order modified to status shipped (ship)   OrderShipped      id OrderShipped:<orderId>
//	order modified to status delivered        OrderDelivered    id OrderDelivered:<orderId>
//
// Everything else (profiles, addresses, orders being created, order items,
// payments being inserted, idempotency records and their TTL expiry)
// produces nothing. PaymentCreated is read from the order, not from the
// payment's INSERT in the same transaction, because charge's request names
// only the order and the payment does not carry the user: the order's
// MODIFY has the user, the total (the payment's amount) and updatedAt (the
// payment's createdAt). Every event names its user; an event-bearing
// record without one is a *RecordError. Ids come
// from the items, not from stream sequence numbers, which change when a
// table is restored, so a consumer deduplicates redeliveries by Event.ID.
//
// Publisher is the stream consumer: its Handle is a Lambda handler for
// DynamoDB event source mappings with ReportBatchItemFailures:
//
//	pub := outbox.NewPublisher(eventbridge.NewFromConfig(cfg), func(o *outbox.Options) {
//		o.BusName = os.Getenv("EVENT_BUS_NAME")
//	})
//	lambda.Start(pub.Handle)
//
// It publishes in PutEvents calls of at most 10 entries holding at most
// one event per user, in record order, one call after another: a call is
// sent only when every entry of the previous one was accepted, retrying
// only the entries that failed. EventBridge keeps no order among the
// entries of one call, so this is what keeps each user's events in stream
// order on the bus. When some still fail it answers BatchItemFailures
// naming the first record whose event was not published, so that the
// mapping retries from there and no later event of that user was sent
// before it. Delivery is at least once.
//
// It is not for reading the stream itself (the event source mapping, or
// the local runner, does that) nor for events of other tables.
package outbox
