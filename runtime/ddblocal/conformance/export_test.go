package conformance_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/zstd"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageExport = "ExportTableToPointInTime / DescribeExport / ListExports (DynamoDB API Reference); DynamoDB table export output format (Developer Guide)"
	pageImport = "ImportTable / DescribeImport / ListImports (DynamoDB API Reference); DynamoDB data import from Amazon S3: formats and quotas (Developer Guide)"
)

// s3Engine runs f against fresh engines whose S3 is a temporary directory
// with one bucket, "bucket".
func s3Engine(t *testing.T, f func(t *testing.T, tg *target, bucket string)) {
	dir := t.TempDir()
	bucket := filepath.Join(dir, "bucket")
	if err := os.Mkdir(bucket, 0o755); err != nil {
		t.Fatal(err)
	}
	eachEngine(t, []func(*ddblocal.Options){func(o *ddblocal.Options) { o.S3Dir = dir }}, func(t *testing.T, tg *target) {
		f(t, tg, bucket)
	})
}

func enablePITR(t *testing.T, tg *target, table string) {
	t.Helper()
	_, err := tg.client.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	noErr(t, err, "UpdateContinuousBackups")
}

func exportTableARN(t *testing.T, tg *target, table string) string {
	t.Helper()
	d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	noErr(t, err, "DescribeTable")
	return *d.Table.TableArn
}

func scanByKey(t *testing.T, tg *target, table string) map[string]item {
	t.Helper()
	out, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	noErr(t, err, "Scan")
	got := map[string]item{}
	for _, it := range out.Items {
		got[show(it["pk"])] = it
	}
	return got
}

// TestExportErrors: an export needs point-in-time recovery, an existing
// table and one of the two formats.
func TestExportErrors(t *testing.T) {
	doc(t, pageExport, `PointInTimeRecoveryUnavailableException: "Point in time recovery has not yet been enabled for this source table"; TableNotFoundException: "A source table with the name TableName does not currently exist"; ExportFormat: DYNAMODB_JSON | ION; InvalidExportTimeException: "The specified ExportTime is outside of the point in time recovery window"`)
	s3Engine(t, func(t *testing.T, tg *target, _ string) {
		table := hashTable(t, tg)
		arn := exportTableARN(t, tg, table)
		_, err := tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket")})
		wantErr(t, err, "PointInTimeRecoveryUnavailableException", table)
		_, err = tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn + "-missing"), S3Bucket: aws.String("bucket")})
		wantErr(t, err, "TableNotFoundException")
		_, err = tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket"), ExportFormat: "CSV"})
		wantValidation(t, err, "Value 'CSV' at 'exportFormat' failed to satisfy constraint: Member must satisfy enum value set")
		enablePITR(t, tg, table)
		_, err = tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket"), ExportTime: aws.Time(timeAgo(48))})
		wantErr(t, err, "InvalidExportTimeException")
		out, err := tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("no-such-bucket")})
		noErr(t, err, "export to a missing bucket")
		d, err := tg.client.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
		noErr(t, err, "DescribeExport")
		if d.ExportDescription.ExportStatus != types.ExportStatusFailed || aws.ToString(d.ExportDescription.FailureCode) != "S3NoSuchBucket" {
			t.Errorf("export to a missing bucket: %s %s", d.ExportDescription.ExportStatus, aws.ToString(d.ExportDescription.FailureCode))
		}
		_, err = tg.client.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(arn + "/export/01700000000000-00000000")})
		wantErr(t, err, "ExportNotFoundException")
	})
}

func sampleItems() []item {
	return []item{
		{"pk": s("a"), "n": n("-12.5E+3"), "b": b([]byte{0, 1, 2}), "t": boolv(true), "z": null(), "ss": ss("x", "y"), "ns": ns("1", "2.5"), "bs": bs([]byte("p"), []byte("q")),
			"l": l(s("in"), n("7"), m(item{"deep": s("er")})), "m": m(item{"k": s("v"), "quote's \"x\"": s("é\n")})},
		{"pk": s("b")},
		{"pk": s("c"), "n": n("103")},
	}
}

// TestExportLayoutAndImportRoundTrip: an export writes the documented
// layout (manifest-summary.json, manifest-files.json and their checksums,
// _started, gzipped data files of one item per line) and an import of its
// data files, in either format, gives the table back.
func TestExportLayoutAndImportRoundTrip(t *testing.T) {
	doc(t, pageExport+" / "+pageImport, `export-prefix/AWSDynamoDB/ExportId/manifest-summary.json, manifest-files.json (+ .checksum), data/*.json.gz (DynamoDB JSON, {"Item":{...}} per line) or *.ion.gz (Amazon Ion); manifest-summary: version 2020-06-30, exportArn, tableArn, itemCount, outputFormat, manifestFilesS3Key; manifest-files: itemCount, md5Checksum, etag, dataFileS3Key per line; ImportTable reads DYNAMODB_JSON, ION or CSV objects under S3KeyPrefix, GZIP, ZSTD or NONE, into a new table`)
	s3Engine(t, func(t *testing.T, tg *target, bucket string) {
		table := hashTable(t, tg)
		for _, it := range sampleItems() {
			put(t, tg, table, it)
		}
		enablePITR(t, tg, table)
		arn := exportTableARN(t, tg, table)
		for _, format := range []types.ExportFormat{types.ExportFormatDynamodbJson, types.ExportFormatIon} {
			t.Run(string(format), func(t *testing.T) {
				out, err := tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket"), S3Prefix: aws.String("exports/" + string(format)), ExportFormat: format})
				noErr(t, err, "ExportTableToPointInTime")
				if out.ExportDescription.ExportStatus != types.ExportStatusInProgress {
					t.Errorf("ExportTableToPointInTime answered %s, want IN_PROGRESS", out.ExportDescription.ExportStatus)
				}
				d, err := tg.client.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
				noErr(t, err, "DescribeExport")
				if d.ExportDescription.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ExportDescription.ItemCount) != 3 {
					t.Fatalf("export %s with %d items, failure %s", d.ExportDescription.ExportStatus, aws.ToInt64(d.ExportDescription.ItemCount), aws.ToString(d.ExportDescription.FailureMessage))
				}
				id := (*out.ExportDescription.ExportArn)[strings.LastIndex(*out.ExportDescription.ExportArn, "/")+1:]
				root := "exports/" + string(format) + "/AWSDynamoDB/" + id
				if aws.ToString(d.ExportDescription.ExportManifest) != root+"/manifest-summary.json" {
					t.Errorf("ExportManifest = %s", aws.ToString(d.ExportDescription.ExportManifest))
				}
				var summary map[string]any
				readJSON(t, filepath.Join(bucket, root, "manifest-summary.json"), &summary)
				if summary["version"] != "2020-06-30" || summary["itemCount"] != 3.0 || summary["outputFormat"] != string(format) ||
					summary["exportArn"] != *out.ExportDescription.ExportArn || summary["manifestFilesS3Key"] != root+"/manifest-files.json" {
					t.Errorf("manifest-summary.json = %v", summary)
				}
				for _, f := range []string{"_started", "manifest-summary.checksum", "manifest-files.checksum"} {
					if _, err := os.Stat(filepath.Join(bucket, root, f)); err != nil {
						t.Error(err)
					}
				}
				files := readLines(t, filepath.Join(bucket, root, "manifest-files.json"))
				lines := 0
				for _, fl := range files {
					var entry struct {
						ItemCount     int
						MD5Checksum   string `json:"md5Checksum"`
						DataFileS3Key string `json:"dataFileS3Key"`
					}
					if err := json.Unmarshal([]byte(fl), &entry); err != nil || entry.MD5Checksum == "" || !strings.HasPrefix(entry.DataFileS3Key, root+"/data/") {
						t.Fatalf("manifest-files.json line %q: %v", fl, err)
					}
					data := gunzipLines(t, filepath.Join(bucket, filepath.FromSlash(entry.DataFileS3Key)))
					for _, dl := range data {
						if format == types.ExportFormatIon && !strings.HasPrefix(dl, "$ion_1_0 {Item:{") || format == types.ExportFormatDynamodbJson && !strings.HasPrefix(dl, `{"Item":{`) {
							t.Errorf("data line %q", dl)
						}
					}
					lines += len(data)
				}
				if lines != 3 {
					t.Errorf("the data files hold %d lines, want 3", lines)
				}
				// Import the export's own prefix: its manifests are skipped.
				imported := tableName(t)
				imp, err := tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{
					InputFormat: types.InputFormat(format), InputCompressionType: types.InputCompressionTypeGzip,
					S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String(root + "/")},
					TableCreationParameters: creationParams(imported, "pk", types.ScalarAttributeTypeS),
				})
				noErr(t, err, "ImportTable")
				t.Cleanup(func() {
					_, _ = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(imported)})
				})
				di, err := tg.client.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: imp.ImportTableDescription.ImportArn})
				noErr(t, err, "DescribeImport")
				if di.ImportTableDescription.ImportStatus != types.ImportStatusCompleted || di.ImportTableDescription.ImportedItemCount != 3 || di.ImportTableDescription.ErrorCount != 0 {
					t.Fatalf("import %s: %d imported, %d errors (%s)", di.ImportTableDescription.ImportStatus, di.ImportTableDescription.ImportedItemCount, di.ImportTableDescription.ErrorCount, aws.ToString(di.ImportTableDescription.FailureMessage))
				}
				want := scanByKey(t, tg, table)
				got := scanByKey(t, tg, imported)
				for k, it := range want {
					wantItem(t, got[k], it)
				}
			})
		}
		le, err := tg.client.ListExports(ctx(t), &dynamodb.ListExportsInput{TableArn: aws.String(arn), MaxResults: aws.Int32(1)})
		noErr(t, err, "ListExports")
		if len(le.ExportSummaries) != 1 || le.NextToken == nil {
			t.Errorf("ListExports MaxResults 1: %d summaries, next %v", len(le.ExportSummaries), le.NextToken)
		}
		le, err = tg.client.ListExports(ctx(t), &dynamodb.ListExportsInput{TableArn: aws.String(arn), NextToken: le.NextToken})
		noErr(t, err, "ListExports page 2")
		if len(le.ExportSummaries) != 1 || le.NextToken != nil {
			t.Errorf("ListExports page 2: %d summaries, next %v", len(le.ExportSummaries), le.NextToken)
		}
		li, err := tg.client.ListImports(ctx(t), &dynamodb.ListImportsInput{})
		noErr(t, err, "ListImports")
		if len(li.ImportSummaryList) != 2 {
			t.Errorf("ListImports: %d imports, want 2", len(li.ImportSummaryList))
		}
	})
}

// TestImportAWSExportAndCSV: objects written as AWS writes them (the
// Developer Guide's sample lines, in DynamoDB JSON and in Ion) and CSV in
// every compression import into a new table; bad lines count as errors;
// ImportTable refuses an existing table and a reused ClientToken with
// other parameters.
func TestImportAWSExportAndCSV(t *testing.T) {
	doc(t, pageImport, `CSV: "the first line is the header" unless HeaderList is given, Delimiter; "Any non-key attribute will be imported as a string"; InputCompressionType GZIP | ZSTD | NONE; "ImportTable ... creates a new table"; ResourceInUseException; ImportConflictException: "the current import conflicts with a previous import request that had the same client token"; items that fail are counted in ErrorCount`)
	s3Engine(t, func(t *testing.T, tg *target, bucket string) {
		write := func(key string, data []byte) {
			p := filepath.Join(bucket, filepath.FromSlash(key))
			noErr(t, os.MkdirAll(filepath.Dir(p), 0o755), "mkdir")
			noErr(t, os.WriteFile(p, data, 0o644), "write")
		}
		// The Developer Guide's sample item, as an AWS export writes it.
		write("aws/AWSDynamoDB/01604474914028-1a2b3c4d/data/e4qgrwtbgq6dbmxq5izwcuxbtm.json.gz", gz(
			`{"Item":{"Authors":{"SS":["Author1","Author2"]},"Dimensions":{"S":"8.5 x 11.0 x 0.5"},"ISBN":{"S":"333-3333333333"},"Id":{"N":"103"},"InPublication":{"BOOL":false},"PageCount":{"N":"600"},"Price":{"N":"2000"},"ProductCategory":{"S":"Book"},"Title":{"S":"Book 103 Title"}}}`+"\n"+
				`{"Item":{"Id":{"N":"104"},"Title":{"S":"no authors"}}}`+"\n"+
				`{"Item":{"Title":{"S":"no key"}}}`+"\n"+
				`not json`+"\n"))
		write("ion/AWSDynamoDB/01604474914028-5e6f7a8b/data/abcdefghijklmnopqrstuvwxyz.ion.gz", gz(
			`$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Dimensions:"8.5 x 11.0 x 0.5",ISBN:"333-3333333333",Id:103.,InPublication:false,PageCount:6d2,Price:2d3,ProductCategory:"Book",Title:"Book 103 Title",Cover:{{aGVsbG8=}}}}`+"\n"))
		csvBody := "Id,Title,Price\n1,One,10\n2,\"Two, quoted\",\nx,bad key,1\n"
		write("csv/plain.csv", []byte(csvBody))
		write("csvgz/a.csv.gz", gz(csvBody))
		var zb bytes.Buffer
		zw, _ := zstd.NewWriter(&zb)
		_, _ = zw.Write([]byte(csvBody))
		zw.Close()
		write("csvzst/a.csv.zst", zb.Bytes())
		write("csvsemi/a.csv", []byte("7;Seven\n8;Eight\n"))

		type want struct{ imported, errors int64 }
		for _, c := range []struct {
			name, prefix string
			format       types.InputFormat
			compression  types.InputCompressionType
			csv          *types.CsvOptions
			want         want
		}{
			{"AWS DynamoDB JSON export", "aws/AWSDynamoDB/01604474914028-1a2b3c4d/data/", types.InputFormatDynamodbJson, types.InputCompressionTypeGzip, nil, want{2, 2}},
			{"AWS Ion export", "ion/", types.InputFormatIon, types.InputCompressionTypeGzip, nil, want{1, 0}},
			{"CSV", "csv/", types.InputFormatCsv, types.InputCompressionTypeNone, nil, want{2, 1}},
			{"CSV gzip", "csvgz/", types.InputFormatCsv, types.InputCompressionTypeGzip, nil, want{2, 1}},
			{"CSV zstd", "csvzst/", types.InputFormatCsv, types.InputCompressionTypeZstd, nil, want{2, 1}},
			{"CSV header list and delimiter", "csvsemi/", types.InputFormatCsv, types.InputCompressionTypeNone, &types.CsvOptions{Delimiter: aws.String(";"), HeaderList: []string{"Id", "Title"}}, want{2, 0}},
		} {
			t.Run(c.name, func(t *testing.T) {
				name := tableName(t)
				in := &dynamodb.ImportTableInput{
					InputFormat: c.format, InputCompressionType: c.compression,
					S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String(c.prefix)},
					TableCreationParameters: creationParams(name, "Id", types.ScalarAttributeTypeN),
				}
				if c.csv != nil {
					in.InputFormatOptions = &types.InputFormatOptions{Csv: c.csv}
				}
				out, err := tg.client.ImportTable(ctx(t), in)
				noErr(t, err, "ImportTable")
				t.Cleanup(func() { _, _ = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
				d, err := tg.client.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: out.ImportTableDescription.ImportArn})
				noErr(t, err, "DescribeImport")
				got := d.ImportTableDescription
				if got.ImportStatus != types.ImportStatusCompleted || got.ImportedItemCount != c.want.imported || got.ErrorCount != c.want.errors {
					t.Errorf("import %s: %d imported, %d errors (%s), want %d and %d", got.ImportStatus, got.ImportedItemCount, got.ErrorCount, aws.ToString(got.FailureMessage), c.want.imported, c.want.errors)
				}
			})
		}
		// The typed values: the sample item from DynamoDB JSON and from Ion.
		name := tableName(t)
		_, err := tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{InputFormat: types.InputFormatIon, InputCompressionType: types.InputCompressionTypeGzip,
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String("ion/")}, TableCreationParameters: creationParams(name, "Id", types.ScalarAttributeTypeN)})
		noErr(t, err, "ImportTable ION")
		ion := get(t, tg, name, item{"Id": n("103")})
		wantItem(t, ion, item{"Authors": ss("Author1", "Author2"), "Dimensions": s("8.5 x 11.0 x 0.5"), "ISBN": s("333-3333333333"), "Id": n("103"),
			"InPublication": boolv(false), "PageCount": n("600"), "Price": n("2000"), "ProductCategory": s("Book"), "Title": s("Book 103 Title"), "Cover": b([]byte("hello"))})
		csvName := tableName(t)
		_, err = tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv, ClientToken: aws.String("tok-1"),
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String("csv/")}, TableCreationParameters: creationParams(csvName, "Id", types.ScalarAttributeTypeN)})
		noErr(t, err, "ImportTable CSV")
		wantItem(t, get(t, tg, csvName, item{"Id": n("2")}), item{"Id": n("2"), "Title": s("Two, quoted")})
		wantItem(t, get(t, tg, csvName, item{"Id": n("1")}), item{"Id": n("1"), "Title": s("One"), "Price": s("10")})

		_, err = tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv, ClientToken: aws.String("tok-1"),
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String("csvgz/")}, TableCreationParameters: creationParams(csvName, "Id", types.ScalarAttributeTypeN)})
		wantErr(t, err, "ImportConflictException")
		_, err = tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv,
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket"), S3KeyPrefix: aws.String("csv/")}, TableCreationParameters: creationParams(csvName, "Id", types.ScalarAttributeTypeN)})
		wantErr(t, err, "ResourceInUseException")
		_, err = tg.client.ImportTable(ctx(t), &dynamodb.ImportTableInput{InputFormat: "XML",
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket")}, TableCreationParameters: creationParams(tableName(t), "Id", types.ScalarAttributeTypeN)})
		wantValidation(t, err, "inputFormat")
		_, err = tg.client.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/x/import/01700000000000-00000000")})
		wantErr(t, err, "ImportNotFoundException")
	})
}

func creationParams(name, key string, typ types.ScalarAttributeType) *types.TableCreationParameters {
	return &types.TableCreationParameters{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: typ}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	raw, err := os.ReadFile(p)
	noErr(t, err, "read "+p)
	noErr(t, json.Unmarshal(raw, v), "decode "+p)
}

func readLines(t *testing.T, p string) []string {
	t.Helper()
	raw, err := os.ReadFile(p)
	noErr(t, err, "read "+p)
	return strings.Split(strings.TrimSpace(string(raw)), "\n")
}

func gunzipLines(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	noErr(t, err, "open "+p)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	noErr(t, err, "gunzip "+p)
	var out []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func timeAgo(hours int) time.Time { return time.Now().Add(-time.Duration(hours) * time.Hour) }

// TestExportAtExportTime: an export with an ExportTime within the
// point-in-time recovery window holds the table as it was then.
func TestExportAtExportTime(t *testing.T) {
	doc(t, pageExport, `ExportTime: "Time in the past from which to export table data, counted in seconds from the start of the Unix epoch. The table export will be a snapshot of the table's state at this point in time"; it must lie within the point-in-time recovery window (InvalidExportTimeException)`)
	dir := t.TempDir()
	noErr(t, os.Mkdir(filepath.Join(dir, "bucket"), 0o755), "mkdir")
	clock := newFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option(), func(o *ddblocal.Options) { o.S3Dir = dir }}, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		enablePITR(t, tg, table)
		clock.Advance(time.Minute)
		put(t, tg, table, item{"pk": s("early"), "v": n("1")})
		clock.Advance(time.Minute)
		then := clock.Now()
		clock.Advance(time.Minute)
		put(t, tg, table, item{"pk": s("early"), "v": n("2")})
		put(t, tg, table, item{"pk": s("late")})
		clock.Advance(10 * time.Minute)
		arn := exportTableARN(t, tg, table)
		export := func(at *time.Time) []string {
			out, err := tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket"), ExportTime: at})
			noErr(t, err, "ExportTableToPointInTime")
			id := (*out.ExportDescription.ExportArn)[strings.LastIndex(*out.ExportDescription.ExportArn, "/")+1:]
			var lines []string
			for _, fl := range readLines(t, filepath.Join(dir, "bucket", "AWSDynamoDB", id, "manifest-files.json")) {
				var entry struct{ DataFileS3Key string }
				noErr(t, json.Unmarshal([]byte(fl), &entry), "manifest-files line")
				lines = append(lines, gunzipLines(t, filepath.Join(dir, "bucket", filepath.FromSlash(entry.DataFileS3Key)))...)
			}
			sortStrings(lines)
			return lines
		}
		if got, want := export(&then), []string{`{"Item":{"pk":{"S":"early"},"v":{"N":"1"}}}`}; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("export at %s = %q, want %q", then, got, want)
		}
		if got := export(nil); len(got) != 2 {
			t.Errorf("export of the current state = %q, want both items", got)
		}
		future := clock.Now().Add(time.Hour)
		_, err := tg.client.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bucket"), ExportTime: &future})
		wantErr(t, err, "InvalidExportTimeException")
	})
}
