package enginebench

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniclient "github.com/truora/minidyn/aws-v2/client"
	miniserver "github.com/truora/minidyn/server"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// API is the part of *dynamodb.Client the workloads use. The engine's
// clients and minidyn's fake client both satisfy it.
type API interface {
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Peer is one system under measurement.
type Peer struct {
	Name string
	API  API
	// Lacks names operations the peer does not implement, with the reason
	// shown in the report.
	Lacks map[string]string
	// Raw, when set, is how the workloads reach the peer without a client;
	// API then only prepares the tables.
	Raw Raw
	// Arm, when set, is called once a workload's table is prepared and
	// before its timed run; the function it returns is called after it.
	Arm   func() (disarm func())
	close func()
}

// Close stops the peer and frees what it holds.
func (p *Peer) Close() {
	if p.close != nil {
		p.close()
	}
}

// Peer names, in report order.
const (
	PeerEngineRaw    = "engine, no client"
	PeerEngineInproc = "engine in-process (SDK)"
	PeerEngineHTTP   = "engine HTTP (SDK)"
	PeerSDKAlone     = "SDK client alone"
	PeerMinidyn      = "minidyn direct"
	PeerMinidynSDK   = "minidyn in-process (SDK)"
	PeerDynalite     = "dynalite (SDK)"
)

// NewEngineInproc starts an in-memory engine reached through its in-process
// client: the unmodified SDK client whose HTTP client calls the engine's
// handler without sockets.
func NewEngineInproc() *Peer {
	e := ddblocal.New()
	return &Peer{Name: PeerEngineInproc, API: e.Client(noRetries), close: func() { _ = e.Close() }}
}

// Engines on a data directory, for the cost of durability (BenchmarkDurable).
const (
	PeerEngineDisk    = "engine on disk (SDK)"
	PeerEngineDurable = "engine on disk, durable (SDK)"
)

// NewEngineOnDisk starts an engine keeping its data in dir, with fsync per
// commit when durable, reached like NewEngineInproc.
func NewEngineOnDisk(dir string, durable bool) (*Peer, error) {
	e, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir, o.Durable = dir, durable })
	if err != nil {
		return nil, err
	}
	name := PeerEngineDisk
	if durable {
		name = PeerEngineDurable
	}
	return &Peer{Name: name, API: e.Client(noRetries), close: func() { _ = e.Close() }}, nil
}

// NewEngineRaw starts an in-memory engine reached without any client: the
// workloads hand JSON request bodies to its http.Handler in process.
// Tables are prepared through the in-process SDK client.
func NewEngineRaw() *Peer {
	e := ddblocal.New()
	return &Peer{Name: PeerEngineRaw, API: e.Client(noRetries), Raw: HandlerRaw(e.Handler()), close: func() { _ = e.Close() }}
}

// NewSDKAlone measures the SDK client by itself: an in-process engine
// answers until the peer is armed; from then on the transport replays the
// last answer the engine gave for each operation without calling it. Its
// figures are the ceiling for any engine reached through the SDK.
func NewSDKAlone() *Peer {
	e := ddblocal.New()
	rt := &replayTransport{next: e.RoundTripper(), saved: map[string]savedResponse{}}
	api := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://replay.invalid"),
		Credentials:  staticCredentials("sdkalone"),
		HTTPClient:   &http.Client{Transport: rt},
	}, noRetries)
	return &Peer{Name: PeerSDKAlone, API: api, Arm: rt.arm, close: func() { _ = e.Close() }}
}

// NewMinidynSDK serves minidyn's own DynamoDB JSON handler (its server
// package) in process, behind the same unmodified SDK client and the same
// kind of socket-free transport as the engine's in-process client.
func NewMinidynSDK() *Peer {
	api := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://minidyn.invalid"),
		Credentials:  staticCredentials("minidyn"),
		HTTPClient:   &http.Client{Transport: handlerTransport{h: miniserver.NewServer()}},
	}, noRetries)
	return &Peer{Name: PeerMinidynSDK, API: api}
}

func staticCredentials(id string) aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: id, SecretAccessKey: id, Source: "enginebench"}, nil
	})
}

// NewEngineHTTP starts an in-memory engine served on a loopback port and
// reached through an ordinary SDK client over TCP.
func NewEngineHTTP() (*Peer, error) {
	e := ddblocal.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = e.Close()
		return nil, err
	}
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &Peer{
		Name: PeerEngineHTTP,
		API:  HTTPClient("http://" + ln.Addr().String()),
		close: func() {
			_ = srv.Close()
			_ = e.Close()
		},
	}, nil
}

// NewMinidyn returns minidyn's in-memory fake client, called directly: it
// takes the SDK's typed inputs and never serializes them.
func NewMinidyn() *Peer {
	return &Peer{Name: PeerMinidyn, API: miniclient.NewClient()}
}

func noRetries(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// HTTPClient is an SDK client for a DynamoDB endpoint with static dummy
// credentials. It is built with dynamodb.New directly: LoadDefaultConfig
// fails here when AWS_CA_BUNDLE is set.
func HTTPClient(endpoint string) *dynamodb.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// The hot-item workload runs 16 goroutines against one endpoint.
	tr.MaxIdleConnsPerHost = 64
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  staticCredentials("bench"),
		HTTPClient:   &http.Client{Transport: tr},
		Retryer:      closedConnRetryer(),
	})
}

// closedConnRetryer retries only "use of closed network connection", a
// known client-side race of aws-sdk-go-v2 and net/http (aws-sdk-go-v2
// issues 1825 and 2737) that the SDK's default retryer also retries; every
// service error reaches the workload on the first attempt.
func closedConnRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if err != nil && strings.Contains(err.Error(), "use of closed network connection") {
				return aws.TrueTernary
			}
			return aws.FalseTernary
		})}
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.RateLimiter = ratelimit.None
	})
}
