package ddblocal

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// ImportTable creates a table and fills it from the objects of a bucket
// under a key prefix (Developer Guide, "DynamoDB data import from Amazon
// S3: how it works"): DYNAMODB_JSON ({"Item":{…}} per line, as exports
// write), ION ($ion_1_0 {Item:{…}} per line) or CSV (a header line, or
// HeaderList; key attributes typed by AttributeDefinitions, every other
// value a string), each GZIP, ZSTD or not compressed. An item that cannot
// be imported (malformed, missing its key) is counted in ErrorCount and
// skipped, as DynamoDB logs it to CloudWatch; an object that cannot be read
// at all fails the import. The manifests and checksum files of an export
// are skipped, so the prefix may be an export's own.

type importInput struct {
	ClientToken          *string
	InputFormat          string
	InputCompressionType string
	InputFormatOptions   *struct {
		Csv *struct {
			Delimiter  *string
			HeaderList []string
		}
	}
	S3BucketSource *struct {
		S3Bucket      string
		S3BucketOwner *string
		S3KeyPrefix   *string
	}
	TableCreationParameters *createTableInput
}

func (in *importInput) tableNames() []string {
	if in.TableCreationParameters == nil {
		return nil
	}
	return []string{in.TableCreationParameters.TableName}
}

func (in *importInput) validate(c *checker) {
	if in.InputFormat == "" {
		c.add(showNull, "", "inputFormat", "Member must not be null")
	}
	c.enum("inputFormat", in.InputFormat, "DYNAMODB_JSON", "ION", "CSV")
	c.enum("inputCompressionType", in.InputCompressionType, "GZIP", "ZSTD", "NONE")
	if in.S3BucketSource == nil {
		c.add(showNull, "", "s3BucketSource", "Member must not be null")
	} else if in.S3BucketSource.S3Bucket == "" {
		c.add(showNull, "", "s3BucketSource.s3Bucket", "Member must not be null")
	}
	if in.TableCreationParameters == nil {
		c.add(showNull, "", "tableCreationParameters", "Member must not be null")
	}
	if o := in.InputFormatOptions; o != nil && o.Csv != nil && o.Csv.Delimiter != nil && len([]rune(*o.Csv.Delimiter)) != 1 {
		c.add(showValue, *o.Csv.Delimiter, "inputFormatOptions.csv.delimiter", "Member must have length less than or equal to 1")
	}
}

type importJob struct {
	arn, token string
	raw        []byte // the request, to compare a replayed ClientToken
	desc       map[string]any
}

func (e *Engine) importTable(ctx context.Context, in *importInput) (any, error) {
	if in.InputFormatOptions != nil && in.InputFormatOptions.Csv != nil && in.InputFormat != "CSV" {
		return nil, validationf("One or more parameter values were invalid: InputFormatOptions.Csv can only be specified with InputFormat CSV")
	}
	raw, _ := json.Marshal(in)
	if in.ClientToken != nil {
		if j := e.importByToken(*in.ClientToken); j != nil {
			if !bytes.Equal(j.raw, raw) {
				return nil, newError(CodeImportConflict, "There was a conflict when importing from the specified S3 source. This can occur when the current import conflicts with a previous import request that had the same client token.")
			}
			return map[string]any{"ImportTableDescription": j.desc}, nil
		}
	}
	tp := *in.TableCreationParameters
	created, err := e.createTable(ctx, &tp)
	if err != nil {
		return nil, err
	}
	desc := created.(map[string]any)["TableDescription"].(map[string]any)
	tableARN := desc["TableArn"].(string)
	now := e.now()
	j := &importJob{arn: tableARN + "/import/" + jobID(now), raw: raw}
	if in.ClientToken != nil {
		j.token = *in.ClientToken
	}
	compression := in.InputCompressionType
	if compression == "" {
		compression = "NONE"
	}
	d := map[string]any{
		"ImportArn":               j.arn,
		"ImportStatus":            "IN_PROGRESS",
		"TableArn":                tableARN,
		"TableId":                 desc["TableId"],
		"S3BucketSource":          in.S3BucketSource,
		"InputFormat":             in.InputFormat,
		"InputCompressionType":    compression,
		"TableCreationParameters": in.TableCreationParameters,
		"StartTime":               ms(now),
		"CloudWatchLogGroupArn":   fmt.Sprintf("arn:aws:logs:%s:%s:log-group:/aws-dynamodb/imports:*", e.region(ctx), e.opts.AccountID),
	}
	importStats{}.fill(d)
	if in.ClientToken != nil {
		d["ClientToken"] = *in.ClientToken
	}
	if in.InputFormatOptions != nil {
		d["InputFormatOptions"] = in.InputFormatOptions
	}
	answer := cloneDesc(d)
	e.runImport(ctx, in, tp.TableName, d)
	j.desc = d
	e.jobs.mu.Lock()
	e.jobs.imports = append(e.jobs.imports, j)
	e.jobs.mu.Unlock()
	return map[string]any{"ImportTableDescription": answer}, nil
}

func (e *Engine) importByToken(token string) *importJob {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	for _, j := range e.jobs.imports {
		if j.token == token {
			return j
		}
	}
	return nil
}

// exportMetadata are the objects of an export that hold no items.
func exportMetadata(key string) bool {
	base := path.Base(key)
	return base == "_started" || strings.HasSuffix(base, ".checksum") || base == "manifest-summary.json" || base == "manifest-files.json"
}

// runImport reads the objects and writes their items, completing d.
func (e *Engine) runImport(ctx context.Context, in *importInput, table string, d map[string]any) {
	fail := func(code, msg string) {
		d["ImportStatus"], d["FailureCode"], d["FailureMessage"], d["EndTime"] = "FAILED", code, msg, ms(e.now())
	}
	bucket := e.bucketDir(in.S3BucketSource.S3Bucket)
	if bucket == "" {
		fail("S3NoSuchBucket", "The specified bucket does not exist")
		return
	}
	prefix := ""
	if p := in.S3BucketSource.S3KeyPrefix; p != nil {
		prefix = *p
	}
	keys, err := listObjects(bucket, prefix)
	if err != nil {
		fail("S3AccessDenied", err.Error())
		return
	}
	st := importStats{}
	for _, key := range keys {
		if exportMetadata(key) {
			continue
		}
		if err := e.importObject(ctx, in, bucket, key, table, &st); err != nil {
			fail("ItemValidationError", fmt.Sprintf("Unable to read %s: %v", key, err))
			st.fill(d)
			return
		}
	}
	if len(keys) == 0 {
		fail("S3NoSuchKey", "No objects found under the specified prefix")
		return
	}
	st.fill(d)
	d["ImportStatus"], d["EndTime"] = "COMPLETED", ms(e.now())
}

type importStats struct{ processed, imported, errors, bytes int }

func (s importStats) fill(d map[string]any) {
	d["ProcessedItemCount"], d["ImportedItemCount"], d["ErrorCount"], d["ProcessedSizeBytes"] = s.processed, s.imported, s.errors, s.bytes
}

// importObject imports one object's items.
func (e *Engine) importObject(ctx context.Context, in *importInput, bucket, key, table string, st *importStats) error {
	p, err := objectPath(bucket, key)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		st.bytes += int(fi.Size())
	}
	var r io.Reader = f
	switch in.InputCompressionType {
	case "GZIP":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("not GZIP: %w", err)
		}
		defer zr.Close()
		r = zr
	case "ZSTD":
		zr, err := zstd.NewReader(f)
		if err != nil {
			return fmt.Errorf("not ZSTD: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	put := func(it attr.Item) {
		st.processed++
		if _, err := e.putItem(ctx, &putItemInput{Item: it, writeOptions: writeOptions{TableName: table}}); err != nil {
			st.errors++
			return
		}
		st.imported++
	}
	if in.InputFormat == "CSV" {
		return e.importCSV(r, in, table, put, st)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		it, err := parseImportLine(in.InputFormat, line)
		if err != nil {
			st.processed++
			st.errors++
			continue
		}
		put(it)
	}
	return sc.Err()
}

// parseImportLine reads one DYNAMODB_JSON or ION line: the item under Item.
func parseImportLine(format string, line []byte) (attr.Item, error) {
	if format == "ION" {
		return parseIonLine(string(line))
	}
	var wrapper struct{ Item attr.Item }
	if err := json.Unmarshal(line, &wrapper); err != nil {
		return nil, err
	}
	if wrapper.Item == nil {
		return nil, fmt.Errorf("no Item")
	}
	return wrapper.Item, nil
}

// importCSV reads a CSV object: the header (first line, or HeaderList)
// names the attributes; key attributes take their defined types, others
// are strings, and empty cells are left out.
func (e *Engine) importCSV(r io.Reader, in *importInput, table string, put func(attr.Item), st *importStats) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var header []string
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		if o.Csv.Delimiter != nil {
			cr.Comma = []rune(*o.Csv.Delimiter)[0]
		}
		header = o.Csv.HeaderList
	}
	types := map[string]string{}
	for _, d := range in.TableCreationParameters.AttributeDefinitions {
		types[d.AttributeName] = d.AttributeType
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if _, ok := err.(*csv.ParseError); ok {
				st.processed++
				st.errors++
				continue
			}
			return err
		}
		if header == nil {
			header = rec
			continue
		}
		it := attr.Item{}
		bad := false
		for i, cell := range rec {
			if i >= len(header) || cell == "" {
				continue
			}
			v, err := csvValue(types[header[i]], cell)
			if err != nil {
				bad = true
				break
			}
			it[header[i]] = v
		}
		if bad || len(rec) > len(header) {
			st.processed++
			st.errors++
			continue
		}
		put(it)
	}
}

// csvValue types a CSV cell: N and B key attributes as defined, everything
// else a string.
func csvValue(typ, cell string) (attr.Value, error) {
	var v attr.Value
	switch typ {
	case "N":
		err := json.Unmarshal([]byte(`{"N":`+jsonString(cell)+`}`), &v)
		return v, err
	case "B":
		err := json.Unmarshal([]byte(`{"B":`+jsonString(cell)+`}`), &v)
		return v, err
	}
	return attr.Str(cell), nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type describeImportInput struct{ ImportArn string }

func (in *describeImportInput) tableNames() []string { return []string{tableOfARN(in.ImportArn)} }

func (e *Engine) describeImport(_ context.Context, in *describeImportInput) (any, error) {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	for _, j := range e.jobs.imports {
		if j.arn == in.ImportArn {
			return map[string]any{"ImportTableDescription": j.desc}, nil
		}
	}
	return nil, newError(CodeImportNotFound, "Import not found: %s", in.ImportArn)
}

type listImportsInput struct {
	TableArn  *string
	PageSize  *int
	NextToken *string
}

func (in *listImportsInput) tableNames() []string { return nil }

func (in *listImportsInput) validate(c *checker) {
	c.minValue("pageSize", in.PageSize, 1, showValue)
	c.maxValue("pageSize", in.PageSize, 25)
}

func (e *Engine) listImports(_ context.Context, in *listImportsInput) (any, error) {
	e.jobs.mu.Lock()
	var list []*importJob
	for _, j := range e.jobs.imports {
		if in.TableArn == nil || j.desc["TableArn"] == *in.TableArn {
			list = append(list, j)
		}
	}
	e.jobs.mu.Unlock()
	n := 25
	if in.PageSize != nil {
		n = *in.PageSize
	}
	got, next := pageAfter(list, func(j *importJob) string { return j.arn }, in.NextToken, n)
	sums := []map[string]any{}
	for _, j := range got {
		s := map[string]any{}
		for _, k := range []string{"ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "CloudWatchLogGroupArn", "InputFormat", "StartTime", "EndTime"} {
			if v, ok := j.desc[k]; ok {
				s[k] = v
			}
		}
		sums = append(sums, s)
	}
	out := map[string]any{"ImportSummaryList": sums}
	if next != nil {
		out["NextToken"] = *next
	}
	return out, nil
}
