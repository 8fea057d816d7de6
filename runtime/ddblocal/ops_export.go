package ddblocal

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// ExportTableToPointInTime writes the table, as it is, in DynamoDB's export
// layout (Developer Guide, "DynamoDB table export output format"):
//
//	<prefix>/AWSDynamoDB/<ExportId>/_started
//	<prefix>/AWSDynamoDB/<ExportId>/manifest-summary.json (+ .checksum)
//	<prefix>/AWSDynamoDB/<ExportId>/manifest-files.json (+ .checksum)
//	<prefix>/AWSDynamoDB/<ExportId>/data/<name>.json.gz (or .ion.gz)
//
// each data file holding one item per line, {"Item":{…}} in DynamoDB JSON or
// $ion_1_0 {Item:{…}} in Amazon Ion text. Without ExportTime the table is
// exported as it is; with one, as it was then, from the point-in-time
// history (pitr.go), which must cover it.

// CodePointInTimeRecoveryUnavailable is the error of an export of a table
// without point-in-time recovery.
const (
	CodePointInTimeRecoveryUnavailable = "PointInTimeRecoveryUnavailableException"
	CodeTableNotFound                  = "TableNotFoundException"
	CodeExportNotFound                 = "ExportNotFoundException"
	CodeInvalidExportTime              = "InvalidExportTimeException"
	CodeImportConflict                 = "ImportConflictException"
	CodeImportNotFound                 = "ImportNotFoundException"
)

// itemsPerDataFile bounds a data file, so that large tables export to
// several files as DynamoDB's do.
const itemsPerDataFile = 10000

type exportInput struct {
	TableArn       string
	ExportTime     *float64
	ClientToken    *string
	S3Bucket       string
	S3BucketOwner  *string
	S3Prefix       *string
	S3SseAlgorithm *string
	S3SseKmsKeyId  *string
	ExportFormat   string
	ExportType     string
}

func (in *exportInput) tableNames() []string { return []string{tableOfARN(in.TableArn)} }

func (in *exportInput) validate(c *checker) {
	if in.TableArn == "" {
		c.add(showNull, "", "tableArn", "Member must not be null")
	}
	if in.S3Bucket == "" {
		c.add(showNull, "", "s3Bucket", "Member must not be null")
	}
	c.enum("exportFormat", in.ExportFormat, "DYNAMODB_JSON", "ION")
	c.enum("exportType", in.ExportType, "FULL_EXPORT", "INCREMENTAL_EXPORT")
	if a := in.S3SseAlgorithm; a != nil {
		c.enum("s3SseAlgorithm", *a, "AES256", "KMS")
	}
}

// exportJob is one export and its description.
type exportJob struct {
	arn, token string
	in         exportInput
	desc       map[string]any
}

func (e *Engine) exportTable(_ context.Context, in *exportInput) (any, error) {
	if in.ExportType == "INCREMENTAL_EXPORT" {
		return nil, validationf("One or more parameter values were invalid: incremental exports are not supported by this engine, which keeps no change history")
	}
	name := tableOfARN(in.TableArn)
	t, err := e.table(name)
	if err != nil || t.arn != in.TableArn {
		return nil, newError(CodeTableNotFound, "Table not found: %s", in.TableArn)
	}
	now := e.now()
	if in.ClientToken != nil {
		if j := e.exportByToken(*in.ClientToken); j != nil {
			if !sameExport(j.in, *in) {
				return nil, newError(CodeImportConflict, "There was a conflict when attempting to export. Another export with the same client token %s but different parameters exists", *in.ClientToken)
			}
			return map[string]any{"ExportDescription": j.desc}, nil
		}
	}
	// The rows as they were at the export time (now by default), from the
	// point-in-time history; copied under the write lock, which a
	// point-in-time clone needs.
	exportTime := now
	var rows [][]byte
	var failure error
	_ = t.locked(func() error {
		if !t.pitr {
			failure = newError(CodePointInTimeRecoveryUnavailable, "Point in time recovery is not enabled for table '%s'", name)
			return nil
		}
		items := t.items
		if in.ExportTime != nil {
			exportTime = time.UnixMilli(int64(math.Round(*in.ExportTime * 1000)))
			earliest, latest := e.restorableWindow(t, now)
			if exportTime.Before(earliest) || exportTime.After(latest) {
				failure = newError(CodeInvalidExportTime, "Export time must be within the point in time recovery window: %s to %s",
					earliest.UTC().Format(time.RFC3339), latest.UTC().Format(time.RFC3339))
				return nil
			}
			items = t.itemsAt(exportTime, false)
		}
		items.Ascend(func(en entry) bool {
			rows = append(rows, bytes.Clone(en.val()))
			return true
		})
		return nil
	})
	if failure != nil {
		return nil, failure
	}
	id := jobID(now)
	j := &exportJob{arn: t.arn + "/export/" + id, in: *in}
	format := in.ExportFormat
	if format == "" {
		format = "DYNAMODB_JSON"
	}
	desc := map[string]any{
		"ExportArn": j.arn, "ExportStatus": "IN_PROGRESS", "StartTime": ms(now), "ExportTime": ms(exportTime),
		"TableArn": t.arn, "TableId": t.id, "S3Bucket": in.S3Bucket, "ExportFormat": format, "ExportType": "FULL_EXPORT",
		"S3SseAlgorithm": "AES256",
	}
	for k, v := range map[string]*string{"ClientToken": in.ClientToken, "S3BucketOwner": in.S3BucketOwner, "S3Prefix": in.S3Prefix, "S3SseAlgorithm": in.S3SseAlgorithm, "S3SseKmsKeyId": in.S3SseKmsKeyId} {
		if v != nil {
			desc[k] = *v
		}
	}
	if in.ClientToken != nil {
		j.token = *in.ClientToken
	}
	// DynamoDB answers IN_PROGRESS and runs the export; the engine runs it
	// now, so DescribeExport already tells the outcome.
	answer := cloneDesc(desc)
	e.runExport(t, id, format, exportTime, rows, desc)
	j.desc = desc
	e.jobs.mu.Lock()
	e.jobs.exports = append(e.jobs.exports, j)
	e.jobs.mu.Unlock()
	return map[string]any{"ExportDescription": answer}, nil
}

func cloneDesc(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sameExport(a, b exportInput) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (e *Engine) exportByToken(token string) *exportJob {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	for _, j := range e.jobs.exports {
		if j.token == token {
			return j
		}
	}
	return nil
}

// runExport writes the export and completes desc (COMPLETED, or FAILED
// with DynamoDB's failure code).
func (e *Engine) runExport(t *table, id, format string, exportTime time.Time, rows [][]byte, desc map[string]any) {
	fail := func(code, msg string) {
		desc["ExportStatus"], desc["FailureCode"], desc["FailureMessage"], desc["EndTime"] = "FAILED", code, msg, ms(e.now())
	}
	bucket := e.bucketDir(desc["S3Bucket"].(string))
	if bucket == "" {
		fail("S3NoSuchBucket", "The specified bucket does not exist")
		return
	}
	prefix, _ := desc["S3Prefix"].(string)
	root := path.Join(prefix, "AWSDynamoDB", id)
	w := exportWriter{bucket: bucket, root: root, format: format}
	if err := w.write("_started", nil); err != nil {
		fail("S3AccessDenied", err.Error())
		return
	}
	billed := 0
	for start := 0; start == 0 || start < len(rows); start += itemsPerDataFile {
		chunk := rows[start:min(start+itemsPerDataFile, len(rows))]
		n, err := w.dataFile(chunk)
		if err != nil {
			fail("UnknownError", err.Error())
			return
		}
		billed += n
	}
	summary := map[string]any{
		"version": "2020-06-30", "exportArn": desc["ExportArn"], "startTime": rfc3339(desc["StartTime"]),
		"endTime": e.now().UTC().Format("2006-01-02T15:04:05.000Z"), "tableArn": t.arn, "tableId": t.id,
		"exportTime": exportTime.UTC().Format("2006-01-02T15:04:05.000Z"), "s3Bucket": desc["S3Bucket"], "s3Prefix": nilIfEmpty(prefix),
		"s3SseAlgorithm": desc["S3SseAlgorithm"], "s3SseKmsKeyId": desc["S3SseKmsKeyId"], "manifestFilesS3Key": path.Join(root, "manifest-files.json"),
		"billedSizeBytes": billed, "itemCount": len(rows), "outputFormat": format, "exportType": "FULL_EXPORT",
	}
	if err := w.manifest("manifest-files", w.files.Bytes()); err != nil {
		fail("UnknownError", err.Error())
		return
	}
	raw, _ := json.Marshal(summary)
	if err := w.manifest("manifest-summary", raw); err != nil {
		fail("UnknownError", err.Error())
		return
	}
	desc["ExportStatus"], desc["EndTime"] = "COMPLETED", ms(e.now())
	desc["ExportManifest"] = path.Join(root, "manifest-summary.json")
	desc["ItemCount"], desc["BilledSizeBytes"] = len(rows), billed
}

func rfc3339(secs any) string {
	f, _ := secs.(float64)
	return time.UnixMilli(int64(f * 1000)).UTC().Format("2006-01-02T15:04:05.000Z")
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// exportWriter writes one export's objects.
type exportWriter struct {
	bucket, root, format string
	files                bytes.Buffer // manifest-files.json, one line per data file
}

func (w *exportWriter) write(name string, data []byte) error {
	p, err := objectPath(w.bucket, path.Join(w.root, name))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// manifest writes name.json and name.checksum, the MD5 of the manifest in
// hex.
func (w *exportWriter) manifest(name string, data []byte) error {
	if err := w.write(name+".json", data); err != nil {
		return err
	}
	sum := md5.Sum(data)
	return w.write(name+".checksum", []byte(hex.EncodeToString(sum[:])))
}

// dataFile writes rows (encoded items) as one gzipped data file and lists
// it in manifest-files.json; it returns the bytes of the items.
func (w *exportWriter) dataFile(rows [][]byte) (int, error) {
	var plain bytes.Buffer
	size := 0
	for _, raw := range rows {
		it, err := attr.DecodeItem(raw)
		if err != nil {
			return 0, err
		}
		size += attr.ItemSize(it)
		if w.format == "ION" {
			plain.WriteString("$ion_1_0 {Item:")
			writeIonItem(&plain, it)
			plain.WriteString("}\n")
			continue
		}
		line, err := json.Marshal(map[string]attr.Item{"Item": it})
		if err != nil {
			return 0, err
		}
		plain.Write(line)
		plain.WriteByte('\n')
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(plain.Bytes())
	if err := zw.Close(); err != nil {
		return 0, err
	}
	ext := ".json.gz"
	if w.format == "ION" {
		ext = ".ion.gz"
	}
	var rnd [13]byte
	_, _ = rand.Read(rnd[:])
	name := path.Join("data", hex.EncodeToString(rnd[:])+ext)
	if err := w.write(name, gz.Bytes()); err != nil {
		return 0, err
	}
	sum := md5.Sum(gz.Bytes())
	line, _ := json.Marshal(map[string]any{
		"itemCount": len(rows), "md5Checksum": base64.StdEncoding.EncodeToString(sum[:]),
		"etag": hex.EncodeToString(sum[:]), "dataFileS3Key": path.Join(w.root, name),
	})
	w.files.Write(line)
	w.files.WriteByte('\n')
	return size, nil
}

type describeExportInput struct{ ExportArn string }

func (in *describeExportInput) tableNames() []string { return []string{tableOfARN(in.ExportArn)} }

func (e *Engine) describeExport(_ context.Context, in *describeExportInput) (any, error) {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	for _, j := range e.jobs.exports {
		if j.arn == in.ExportArn {
			return map[string]any{"ExportDescription": j.desc}, nil
		}
	}
	return nil, newError(CodeExportNotFound, "Export not found: %s", in.ExportArn)
}

type listExportsInput struct {
	TableArn   *string
	MaxResults *int
	NextToken  *string
}

func (in *listExportsInput) tableNames() []string { return nil }

func (in *listExportsInput) validate(c *checker) {
	c.minValue("maxResults", in.MaxResults, 1, showValue)
	c.maxValue("maxResults", in.MaxResults, 25)
}

func (e *Engine) listExports(_ context.Context, in *listExportsInput) (any, error) {
	e.jobs.mu.Lock()
	var list []*exportJob
	for _, j := range e.jobs.exports {
		if in.TableArn == nil || j.desc["TableArn"] == *in.TableArn {
			list = append(list, j)
		}
	}
	e.jobs.mu.Unlock()
	n := 25
	if in.MaxResults != nil {
		n = *in.MaxResults
	}
	got, next := pageAfter(list, func(j *exportJob) string { return j.arn }, in.NextToken, n)
	sums := []map[string]any{}
	for _, j := range got {
		sums = append(sums, map[string]any{"ExportArn": j.arn, "ExportStatus": j.desc["ExportStatus"], "ExportType": j.desc["ExportType"]})
	}
	out := map[string]any{"ExportSummaries": sums}
	if next != nil {
		out["NextToken"] = *next
	}
	return out, nil
}
