module github.com/oncetable/oncetable/runtime/ddblocal

go 1.26.0

require (
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression v1.10.9
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.74.0
	github.com/aws/aws-sdk-go-v2/service/dynamodbstreams v1.47.0
	github.com/aws/smithy-go v1.28.9
	github.com/cockroachdb/apd/v3 v3.2.3
	github.com/google/btree v1.1.3
	github.com/klauspost/compress v1.18.5
	go.etcd.io/bbolt v1.5.0
)

require (
	github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue v1.21.21 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.25 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.12 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
