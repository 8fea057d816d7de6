package ddblocal_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestRegionsRouteBySignature serves two Regions on one endpoint: a
// client signing for eu-west-1 reaches eu-west-1's tables, and a Region
// the engine does not serve is refused.
func TestRegionsRouteBySignature(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Regions = []string{"us-east-1", "eu-west-1"} })
	defer eng.Close()
	srv := httptest.NewServer(eng.Handler())
	defer srv.Close()
	client := func(region string) *dynamodb.Client {
		return ddblocal.EndpointClient(srv.URL, func(o *dynamodb.Options) { o.Region = region })
	}
	if err := createUsers(ctx, client("eu-west-1")); err != nil {
		t.Fatal(err)
	}
	for region, want := range map[string]int{"eu-west-1": 1, "us-east-1": 0} {
		out, err := client(region).ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.TableNames) != want {
			t.Errorf("%s: ListTables = %v, want %d tables", region, out.TableNames, want)
		}
	}
	desc, err := eng.Region("eu-west-1").Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("users")})
	if err != nil {
		t.Fatal(err)
	}
	if arn := aws.ToString(desc.Table.TableArn); arn != "arn:aws:dynamodb:eu-west-1:000000000000:table/users" {
		t.Errorf("TableArn = %s, want eu-west-1's", arn)
	}
	_, err = client("ap-south-1").ListTables(ctx, &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "UnrecognizedClientException" {
		t.Errorf("a Region the engine does not serve: err = %v, want UnrecognizedClientException", err)
	}
	if eng.Region("ap-south-1") != nil {
		t.Error("Region(ap-south-1) is not nil")
	}
}

// TestRegionHandlerServesOneRegion serves each Region on a port of its
// own: an unsigned request reaches that port's Region, and a request
// signed for another Region gets the InvalidSignatureException that a
// Region's endpoint answers.
func TestRegionHandlerServesOneRegion(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Regions = []string{"us-east-1", "eu-west-1"} })
	defer eng.Close()
	eu := httptest.NewServer(eng.Region("eu-west-1").RegionHandler())
	defer eu.Close()
	if err := createUsers(ctx, ddblocal.EndpointClient(eu.URL, func(o *dynamodb.Options) { o.Region = "eu-west-1" })); err != nil {
		t.Fatal(err)
	}
	if out, err := eng.Region("eu-west-1").Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 1 {
		t.Errorf("eu-west-1 after a create on its port: %v, %v; want [users]", out, err)
	}
	req, _ := http.NewRequest(http.MethodPost, eu.URL, strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"users"`) {
		t.Errorf("unsigned ListTables on eu-west-1's port: %d %s, want eu-west-1's [users]", resp.StatusCode, body)
	}
	_, err = ddblocal.EndpointClient(eu.URL, func(o *dynamodb.Options) { o.Region = "us-east-1" }).ListTables(ctx, &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" ||
		ae.ErrorMessage() != "Credential should be scoped to a valid region, not 'us-east-1'." {
		t.Errorf("signed for us-east-1 on eu-west-1's port: err = %v, want InvalidSignatureException", err)
	}
}

// TestRegionsOptions refuses bad Regions and keeps each Region's data in
// a directory of its own.
func TestRegionsOptions(t *testing.T) {
	for name, regions := range map[string][]string{
		"duplicate": {"us-east-1", "us-east-1"},
		"bad name":  {"us-east-1", "EU West"},
	} {
		if _, err := ddblocal.Open(func(o *ddblocal.Options) { o.Regions = regions }); err == nil {
			t.Errorf("%s: Open(%v) succeeded", name, regions)
		}
	}
	if _, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.Regions, o.Region = []string{"us-east-1", "eu-west-1"}, "ap-south-1"
	}); err == nil {
		t.Error("Open with a Region outside Regions succeeded")
	}
	dir := t.TempDir()
	eng, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.Regions, o.Region, o.Dir = []string{"us-east-1", "eu-west-1"}, "eu-west-1", dir
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := eng.Regions(); len(got) != 2 || got[0] != "us-east-1" {
		t.Errorf("Regions() = %v", got)
	}
	if err := createUsers(context.Background(), eng.Client()); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"us-east-1", "eu-west-1"} {
		if _, err := os.Stat(filepath.Join(dir, r, "ddblocal.db")); err != nil {
			t.Errorf("Region %s has no data file: %v", r, err)
		}
	}
	eng, err = ddblocal.Open(func(o *ddblocal.Options) { o.Regions, o.Dir = []string{"us-east-1", "eu-west-1"}, dir })
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	out, err := eng.Region("eu-west-1").Client().ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 {
		t.Errorf("eu-west-1 after a restart: ListTables = %v, %v; want users", out, err)
	}
}
