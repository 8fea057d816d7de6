package standalone_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddblocal/standalone"
)

func TestParseFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want standalone.Options
		err  string
	}{
		{"defaults", nil, standalone.Options{Port: 8000, CORS: "*"}, ""},
		{"every option", []string{"-port", "8123", "-dbPath", "/tmp/x", "-sharedDb", "-delayTransientStatuses", "-cors", "http://a.example,http://b.example", "-s3Dir", "/tmp/s3"},
			standalone.Options{Port: 8123, DBPath: "/tmp/x", SharedDB: true, DelayTransientStatuses: true, CORS: "http://a.example,http://b.example", S3Dir: "/tmp/s3"}, ""},
		{"in memory", []string{"-inMemory", "-sharedDb"}, standalone.Options{Port: 8000, InMemory: true, SharedDB: true, CORS: "*"}, ""},
		{"in memory and a path", []string{"-inMemory", "-dbPath", "d"}, standalone.Options{}, "you cannot specify both -dbPath and -inMemory"},
		{"optimize without a path", []string{"-optimizeDbBeforeStartup"}, standalone.Options{}, "-optimizeDbBeforeStartup needs -dbPath"},
		{"bad port", []string{"-port", "70000"}, standalone.Options{}, "-port 70000 is not a port"},
		{"unknown option", []string{"-nope"}, standalone.Options{}, "flag provided but not defined: -nope"},
		{"regions", []string{"-regions", "us-east-1, eu-west-1"}, standalone.Options{Port: 8000, CORS: "*", Regions: []string{"us-east-1", "eu-west-1"}}, ""},
		{"bad region", []string{"-regions", "us-east-1,EU"}, standalone.Options{}, `-regions: "EU" is not a Region name`},
		{"region ports", []string{"-regions", "us-east-1,eu-west-1", "-regionPorts"}, standalone.Options{Port: 8000, CORS: "*", Regions: []string{"us-east-1", "eu-west-1"}, RegionPorts: true}, ""},
		{"region ports without regions", []string{"-regionPorts"}, standalone.Options{}, "-regionPorts needs -regions"},
		{"region ports on port 0", []string{"-regions", "us-east-1", "-regionPorts", "-port", "0"}, standalone.Options{}, "-regionPorts needs a -port other than 0"},
		{"region ports past 65535", []string{"-regions", "us-east-1,eu-west-1", "-regionPorts", "-port", "65534"}, standalone.Options{}, "-regionPorts: -port 65534 leaves no port for each of 2 Regions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := standalone.ParseFlags(tt.args, &out)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Port != tt.want.Port || got.DBPath != tt.want.DBPath || got.InMemory != tt.want.InMemory || got.SharedDB != tt.want.SharedDB ||
				got.DelayTransientStatuses != tt.want.DelayTransientStatuses || got.CORS != tt.want.CORS || got.S3Dir != tt.want.S3Dir ||
				strings.Join(got.Regions, ",") != strings.Join(tt.want.Regions, ",") || got.RegionPorts != tt.want.RegionPorts {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	var out bytes.Buffer
	if _, err := standalone.ParseFlags([]string{"-help"}, &out); !errors.Is(err, standalone.ErrHelp) || !strings.Contains(out.String(), "-sharedDb") {
		t.Errorf("-help: %v, usage %q", err, out.String())
	}
}

// client signs with the given access key and region, as an SDK user of
// DynamoDB Local configures it.
func client(url, key, region string) *dynamodb.Client {
	return ddblocal.EndpointClient(url, func(o *dynamodb.Options) {
		o.Region = region
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "x"}, nil
		})
	})
}

func tables(t *testing.T, c *dynamodb.Client) []string {
	t.Helper()
	out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}

func create(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDatabasePerCredential: without -sharedDb each access key ID and
// region has its own database, kept under -dbPath as <key>_<region>; with
// -sharedDb every credential sees one database.
func TestDatabasePerCredential(t *testing.T) {
	dir := t.TempDir()
	s := standalone.New(standalone.Options{DBPath: dir, CORS: "*"})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close()
	alice, bob, aliceEU := client(srv.URL, "alice", "us-east-1"), client(srv.URL, "bob", "us-east-1"), client(srv.URL, "alice", "eu-west-1")
	create(t, alice, "orders")
	if got := tables(t, alice); len(got) != 1 || got[0] != "orders" {
		t.Errorf("alice's tables = %v", got)
	}
	if got := tables(t, bob); len(got) != 0 {
		t.Errorf("bob sees %v, want his own empty database", got)
	}
	if got := tables(t, aliceEU); len(got) != 0 {
		t.Errorf("alice in eu-west-1 sees %v, want a database of its own", got)
	}
	for _, db := range []string{"alice_us-east-1", "bob_us-east-1", "alice_eu-west-1"} {
		if _, err := os.Stat(filepath.Join(dir, db, ddblocal.DataFile)); err != nil {
			t.Errorf("database %s: %v", db, err)
		}
	}
	if _, err := client(srv.URL, "../etc", "us-east-1").ListTables(context.Background(), &dynamodb.ListTablesInput{}); err == nil {
		t.Error("an access key ID with a path in it was accepted")
	}

	shared := standalone.New(standalone.Options{InMemory: true, SharedDB: true, CORS: "*"})
	ssrv := httptest.NewServer(shared.Handler())
	defer ssrv.Close()
	defer shared.Close()
	create(t, client(ssrv.URL, "alice", "us-east-1"), "shared")
	if got := tables(t, client(ssrv.URL, "bob", "ap-south-1")); len(got) != 1 || got[0] != "shared" {
		t.Errorf("with -sharedDb bob sees %v, want [shared]", got)
	}
}

// TestRegions: with -regions one database per access key serves every
// Region, each request reaching the Region it is signed for.
func TestRegions(t *testing.T) {
	dir := t.TempDir()
	s := standalone.New(standalone.Options{DBPath: dir, CORS: "*", Regions: []string{"us-east-1", "eu-west-1"}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close()
	create(t, client(srv.URL, "alice", "eu-west-1"), "orders")
	if got := tables(t, client(srv.URL, "alice", "eu-west-1")); len(got) != 1 {
		t.Errorf("alice in eu-west-1 sees %v, want [orders]", got)
	}
	if got := tables(t, client(srv.URL, "alice", "us-east-1")); len(got) != 0 {
		t.Errorf("alice in us-east-1 sees %v, want none", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "alice", "eu-west-1", ddblocal.DataFile)); err != nil {
		t.Errorf("eu-west-1's data file: %v", err)
	}
	if _, err := client(srv.URL, "alice", "ap-south-1").ListTables(context.Background(), &dynamodb.ListTablesInput{}); err == nil {
		t.Error("a Region outside -regions was served")
	}
	if b := standalone.Banner(standalone.Options{InMemory: true, CORS: "*", Regions: []string{"us-east-1", "eu-west-1"}}, "[::]:8000"); !strings.Contains(b, "Regions:\tus-east-1,eu-west-1\n") {
		t.Errorf("banner %q names no Regions", b)
	}
}

// TestRegionPorts: with -regionPorts each Region is served on a port of
// its own after -port, named in the banner; a port serves its Region to
// unsigned requests and refuses a signature for another Region, while
// -port keeps routing by signature.
func TestRegionPorts(t *testing.T) {
	regions := []string{"us-east-1", "eu-west-1"}
	var port int
	var addr string
	var cancel context.CancelFunc
	var errc chan error
	for try := 0; try < 5 && addr == ""; try++ {
		port = freePort(t)
		ctx, c := context.WithCancel(context.Background())
		cancel, errc = c, make(chan error, 1)
		ready := make(chan string, 1)
		go func() {
			errc <- standalone.Run(ctx, standalone.Options{Host: "127.0.0.1", Port: port, InMemory: true, CORS: "*", Regions: regions, RegionPorts: true},
				func(a string) { ready <- a })
		}()
		select {
		case addr = <-ready:
		case err := <-errc:
			t.Logf("port %d: %v", port, err) // taken meanwhile: try another
			cancel()
		}
	}
	if addr == "" {
		t.Fatal("no free run of three ports")
	}
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	url := func(p int) string { return fmt.Sprintf("http://127.0.0.1:%d", p) }
	create(t, client(url(port+2), "alice", "eu-west-1"), "orders")
	if got := tables(t, client(url(port), "alice", "eu-west-1")); len(got) != 1 {
		t.Errorf("alice in eu-west-1 on -port sees %v, want [orders]", got)
	}
	if got := tables(t, client(url(port+1), "alice", "us-east-1")); len(got) != 0 {
		t.Errorf("alice on us-east-1's port sees %v, want none", got)
	}
	_, err := client(url(port+1), "alice", "eu-west-1").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" {
		t.Errorf("signed for eu-west-1 on us-east-1's port: %v, want InvalidSignatureException", err)
	}
	b := standalone.Banner(standalone.Options{InMemory: true, CORS: "*", Regions: regions, RegionPorts: true}, addr)
	for i, r := range regions {
		if want := fmt.Sprintf("Region %s:\thttp://127.0.0.1:%d\n", r, port+1+i); !strings.Contains(b, want) {
			t.Errorf("banner %q lacks %q", b, want)
		}
	}
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestCORS: -cors lists the allowed origins; "*" allows any. A preflight
// is answered without reaching the engine.
func TestCORS(t *testing.T) {
	for _, tt := range []struct {
		cors, origin, allow string
		status              int
	}{
		{"*", "http://app.example", "*", http.StatusOK},
		{"http://app.example,http://other.example", "http://other.example", "http://other.example", http.StatusOK},
		{"http://app.example", "http://evil.example", "", http.StatusForbidden},
	} {
		s := standalone.New(standalone.Options{InMemory: true, SharedDB: true, CORS: tt.cors})
		srv := httptest.NewServer(s.Handler())
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/", nil)
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-amz-target,authorization")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Access-Control-Allow-Origin") != tt.allow {
			t.Errorf("-cors %q, origin %s: %d allow %q, want %d %q", tt.cors, tt.origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tt.status, tt.allow)
		}
		if tt.status == http.StatusOK && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "x-amz-target") {
			t.Errorf("preflight allows headers %q", resp.Header.Get("Access-Control-Allow-Headers"))
		}
		srv.Close()
		s.Close()
	}
}

// TestDelayTransientStatuses: the option keeps a new table CREATING.
func TestDelayTransientStatuses(t *testing.T) {
	s := standalone.New(standalone.Options{InMemory: true, SharedDB: true, CORS: "*", DelayTransientStatuses: true})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close()
	c := client(srv.URL, "a", "us-east-1")
	create(t, c, "slow")
	d, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("DescribeTable right after CreateTable: %v %v, want CREATING", d, err)
	}
}

func TestBanner(t *testing.T) {
	got := standalone.Banner(standalone.Options{Port: 0, InMemory: true, SharedDB: true, CORS: "*"}, "[::]:41234")
	for _, want := range []string{"Port:\t41234", "InMemory:\ttrue", "DbPath:\tnull", "SharedDb:\ttrue", "Endpoint: http://localhost:41234"} {
		if !strings.Contains(got, want) {
			t.Errorf("banner %q lacks %q", got, want)
		}
	}
}

// TestS3Dir: -s3Dir is where exports are written, a bucket per directory.
func TestS3Dir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := standalone.New(standalone.Options{InMemory: true, SharedDB: true, CORS: "*", S3Dir: dir})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close()
	c := client(srv.URL, "a", "us-east-1")
	create(t, c, "orders")
	ctx := context.Background()
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("orders"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/orders"), S3Bucket: aws.String("exports")})
	if err != nil {
		t.Fatal(err)
	}
	arn := *out.ExportDescription.ExportArn
	id := arn[strings.LastIndex(arn, "/")+1:]
	if _, err := os.Stat(filepath.Join(dir, "exports", "AWSDynamoDB", id, "manifest-summary.json")); err != nil {
		t.Errorf("the export's manifest: %v", err)
	}
}
