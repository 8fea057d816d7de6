package idemqueue_test

import (
	"net/http/httptest"
	"os"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddbtest"
)

// TestOverAnEndpoint runs every scenario of this package against a
// DynamoDB endpoint over HTTP (DYNAMODB_ENDPOINT, as for a real table or
// DynamoDB Local): here the embedded engine served by an httptest server,
// so `go test` covers the wire path too. With DYNAMODB_ENDPOINT already set
// the scenarios ran there already.
func TestOverAnEndpoint(t *testing.T) {
	if os.Getenv(ddbtest.EndpointEnv) != "" {
		t.Skip("the scenarios already run on " + os.Getenv(ddbtest.EndpointEnv))
	}
	eng := ddblocal.New()
	t.Cleanup(func() { eng.Close() })
	srv := httptest.NewServer(eng.Handler())
	t.Cleanup(srv.Close)
	t.Setenv(ddbtest.EndpointEnv, srv.URL)
	for _, sc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"SQSStandard", TestSQSStandard}, {"SQSDefaultKeyIsTheMessageID", TestSQSDefaultKeyIsTheMessageID},
		{"SQSFIFO", TestSQSFIFO}, {"DynamoDBStream", TestDynamoDBStream}, {"Kinesis", TestKinesis},
		{"ConcurrentDuplicates", TestConcurrentDuplicates}, {"PanicMidBatch", TestPanicMidBatch},
		{"TooLargeResult", TestTooLargeResult}, {"Offload", TestOffload}, {"ConfigError", TestConfigError},
		{"EventBridge", TestEventBridge},
	} {
		t.Run(sc.name, sc.run)
	}
}
