module github.com/oncetable/oncetable/test/enginebench

go 1.26.0

require (
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.74.0
	github.com/oncetable/oncetable v0.0.0-00010101000000-000000000000
	github.com/oncetable/oncetable/runtime/ddblocal v0.0.0-00010101000000-000000000000
	github.com/truora/minidyn v0.8.2
)

require (
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/dynamodbstreams v1.47.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.25 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.12 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/cockroachdb/apd/v3 v3.2.3 // indirect
	github.com/google/btree v1.1.3 // indirect
	github.com/klauspost/compress v1.18.5 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	github.com/oncetable/oncetable => ../..
	github.com/oncetable/oncetable/runtime/ddblocal => ../../runtime/ddblocal
	github.com/oncetable/oncetable/runtime/ddbtest => ../../runtime/ddbtest
	github.com/oncetable/oncetable/runtime/idempotency => ../../runtime/idempotency
	github.com/oncetable/oncetable/runtime/retry => ../../runtime/retry
	github.com/oncetable/oncetable/runtime/txn => ../../runtime/txn
)
