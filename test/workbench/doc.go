// Package workbench renders oncetable's single table as a NoSQL Workbench
// data model (the JSON model format the Workbench imports and exports:
// ModelName, ModelMetadata, and per table its KeyAttributes,
// NonKeyAttributes, TableFacets with KeyAttributeAlias, NonKeyAttributes
// and TableData in DynamoDB JSON, GlobalSecondaryIndexes, DataAccess,
// BillingMode), learnt from AWS's documentation and its published sample
// models (aws-samples/amazon-dynamodb-design-patterns). `make model`
// writes it.
//
// Everything comes from the code: the table's key and TTL attributes and
// its indexes from runtime/schema, each facet's key aliases from the
// prefixes of runtime/keys, each facet's attributes and their types from
// the dynamodbav tags of the entity it stands for (runtime/store's
// entities and runtime/idempotency's record), and the sample data is a
// tiny seeded population (test/population) written into the embedded
// engine by the real flows and scanned back.
//
// What the format cannot express: a key of more than one attribute.
// KeyAttributes holds one PartitionKey and one SortKey, so the v2 index
// OrdersByStatus (HASH status + shard, RANGE createdAt + orderId,
// DynamoDB's multi-attribute keys of November 2025) is left out of the
// model and named in its Description; the model is the table as deployed
// today (ORDER_INDEXES=v1: GSI1, Unprocessed, Featured). Nor can it say
// that an index is sparse (only the facets' sample rows show which items
// carry its keys), which attribute is the TTL attribute (it is named in
// the Description), or the transactions that keep items in step.
package workbench
