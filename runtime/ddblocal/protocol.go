package ddblocal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

const targetPrefix = "DynamoDB_20120810."

// maxRequestBytes bounds a request body as DynamoDB's endpoint does: its
// largest requests (BatchWriteItem) carry up to 16 MB, and a body over
// 16 MiB is refused with 413 whether Content-Length announces it or a
// chunked body runs past it.
const maxRequestBytes = 16 << 20

// op is one DynamoDB operation: it decodes its input and runs it.
type op struct {
	// write marks operations whose response "apply, then lose the
	// response" may drop.
	write bool
	run   func(ctx context.Context, e *Engine, opName string, body []byte) (out any, tables []string, err error)
}

// request is implemented by every operation input; it names the tables
// the request touches so that per-table faults apply.
type request interface{ tableNames() []string }

// handle adapts a typed operation to op.run: it decodes the JSON body into
// In, applies the faults of the tables involved, and runs f.
func handle[In any, PIn interface {
	*In
	request
}](kind faultKind, f func(e *Engine, ctx context.Context, in *In) (any, error)) func(context.Context, *Engine, string, []byte) (any, []string, error) {
	return func(ctx context.Context, e *Engine, opName string, body []byte) (any, []string, error) {
		in := new(In)
		if !decodeFast(body, in) {
			*in = *new(In)
			if err := decodeRequest(body, in); err != nil {
				return nil, nil, err
			}
		}
		if err := validateRequest(opName, body, in); err != nil {
			return nil, nil, err
		}
		tables := PIn(in).tableNames()
		if err := e.faults.before(ctx, kind, opName, tables); err != nil {
			return nil, tables, err
		}
		out, err := f(e, ctx, in)
		return out, tables, err
	}
}

func decodeRequest(body []byte, in any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, in); err != nil {
		var ve *attr.ValidationError
		if errors.As(err, &ve) {
			return validationf("%s", ve.Message)
		}
		var ue *json.UnmarshalTypeError
		if errors.As(err, &ue) {
			return newError(CodeSerialization, "Unexpected value type in payload")
		}
		return newError(CodeSerialization, "Start of structure or map found where not expected")
	}
	return nil
}

var operations map[string]op

func init() {
	operations = map[string]op{
		"CreateTable":                 {run: handle(faultControl, (*Engine).createTable)},
		"DescribeTable":               {run: handle(faultControl, (*Engine).describeTable)},
		"ListTables":                  {run: handle(faultControl, (*Engine).listTables)},
		"DeleteTable":                 {run: handle(faultControl, (*Engine).deleteTable)},
		"UpdateTable":                 {run: handle(faultControl, (*Engine).updateTable)},
		"UpdateTimeToLive":            {run: handle(faultControl, (*Engine).updateTimeToLive)},
		"DescribeTimeToLive":          {run: handle(faultControl, (*Engine).describeTimeToLive)},
		"UpdateContinuousBackups":     {run: handle(faultControl, (*Engine).updateContinuousBackups)},
		"DescribeContinuousBackups":   {run: handle(faultControl, (*Engine).describeContinuousBackups)},
		"CreateBackup":                {run: handle(faultControl, (*Engine).createBackup)},
		"DescribeBackup":              {run: handle(faultControl, (*Engine).describeBackup)},
		"ListBackups":                 {run: handle(faultControl, (*Engine).listBackups)},
		"DeleteBackup":                {run: handle(faultControl, (*Engine).deleteBackup)},
		"RestoreTableFromBackup":      {run: handle(faultControl, (*Engine).restoreTableFromBackup)},
		"RestoreTableToPointInTime":   {run: handle(faultControl, (*Engine).restoreTableToPointInTime)},
		"DescribeEndpoints":           {run: handle(faultControl, (*Engine).describeEndpoints)},
		"DescribeLimits":              {run: handle(faultControl, (*Engine).describeLimits)},
		"TagResource":                 {run: handle(faultControl, (*Engine).tagResource)},
		"UntagResource":               {run: handle(faultControl, (*Engine).untagResource)},
		"ListTagsOfResource":          {run: handle(faultControl, (*Engine).listTagsOfResource)},
		"PutResourcePolicy":           {run: handle(faultControl, (*Engine).putResourcePolicy)},
		"GetResourcePolicy":           {run: handle(faultControl, (*Engine).getResourcePolicy)},
		"DeleteResourcePolicy":        {run: handle(faultControl, (*Engine).deleteResourcePolicy)},
		"ExportTableToPointInTime":    {run: handle(faultControl, (*Engine).exportTable)},
		"DescribeExport":              {run: handle(faultControl, (*Engine).describeExport)},
		"ListExports":                 {run: handle(faultControl, (*Engine).listExports)},
		"ImportTable":                 {run: handle(faultControl, (*Engine).importTable)},
		"DescribeImport":              {run: handle(faultControl, (*Engine).describeImport)},
		"ListImports":                 {run: handle(faultControl, (*Engine).listImports)},
		"PutItem":                     {write: true, run: handle(faultWrite, (*Engine).putItem)},
		"GetItem":                     {run: handle(faultRead, (*Engine).getItem)},
		"UpdateItem":                  {write: true, run: handle(faultWrite, (*Engine).updateItem)},
		"DeleteItem":                  {write: true, run: handle(faultWrite, (*Engine).deleteItem)},
		"Query":                       {run: handle(faultRead, (*Engine).query)},
		"Scan":                        {run: handle(faultRead, (*Engine).scan)},
		"BatchGetItem":                {run: handle(faultBatch, (*Engine).batchGetItem)},
		"BatchWriteItem":              {write: true, run: handle(faultBatch, (*Engine).batchWriteItem)},
		"TransactWriteItems":          {write: true, run: handle(faultTransact, (*Engine).transactWriteItems)},
		"TransactGetItems":            {run: handle(faultTransactRead, (*Engine).transactGetItems)},
		"CreateGlobalTable":           {run: handle(faultControl, (*Engine).createGlobalTable)},
		"DescribeGlobalTable":         {run: handle(faultControl, (*Engine).describeGlobalTable)},
		"UpdateGlobalTable":           {run: handle(faultControl, (*Engine).describeGlobalTable)},
		"DescribeGlobalTableSettings": {run: handle(faultControl, (*Engine).describeGlobalTable)},
		"UpdateGlobalTableSettings":   {run: handle(faultControl, (*Engine).describeGlobalTable)},
		"ListGlobalTables":            {run: handle(faultControl, (*Engine).listGlobalTables)},
		"ExecuteStatement":            {write: true, run: runExecuteStatement},
		"BatchExecuteStatement":       {write: true, run: runBatchExecuteStatement},
		"ExecuteTransaction":          {write: true, run: runExecuteTransaction},
	}
}

// Handler returns the engine as an http.Handler speaking DynamoDB's JSON 1.0
// protocol. Serve it on a TCP address, or use Client for in-process access.
func (e *Engine) Handler() http.Handler { return http.HandlerFunc(e.serveHTTP) }

func (e *Engine) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if e.global != nil {
		to, down, ae := e.global.route(e, r)
		switch {
		case ae != nil:
			w.Header()["X-Amzn-Requestid"] = []string{e.requestID()}
			writeError(w, ae)
			return
		case down:
			resetConnection(w)
			return
		}
		e = to
	}
	// Keys are written in canonical form (what Header.Set would store)
	// to skip the canonicalisation per request.
	w.Header()["X-Amzn-Requestid"] = []string{e.requestID()}
	if len(r.Header["Origin"]) > 0 && allowOrigin(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			e.writeHealth(w, r)
			return
		}
		writeError(w, newError(CodeSerialization, "only POST is supported"))
		return
	}
	if r.ContentLength > maxRequestBytes {
		writeTooLarge(w)
		return
	}
	o, name, known := lookupOperation(r.Header.Get("X-Amz-Target"))
	if !known {
		writeError(w, newError(CodeUnknownOperation, "An unknown operation was requested."))
		return
	}
	bp := bodyPool.Get().(*bytes.Buffer)
	defer putBody(bp)
	bp.Reset()
	if _, err := bp.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBytes)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeTooLarge(w)
			return
		}
		writeError(w, newError(CodeSerialization, "cannot read request body: %v", err))
		return
	}
	if ce := r.Header["Content-Encoding"]; len(ce) > 0 {
		decoded, tooLarge, err := decodeBody(bp.Bytes(), strings.Join(ce, ","))
		switch {
		case tooLarge:
			writeTooLarge(w)
			return
		case err != nil:
			// DynamoDB's answer to a body it cannot decode (compression.go).
			writeError(w, newError(CodeInternalServerError, "Internal server error"))
			return
		}
		if len(ce) > 1 || ce[0] != "" {
			bp.Reset()
			bp.Write(decoded)
		}
	}
	if ae := checkBodyIsObject(bp.Bytes()); ae != nil {
		writeError(w, ae)
		return
	}
	// The decoders copy what they keep, so the buffer is reused.
	out, tables, err := e.runOp(e.withRequestRegion(r.Context(), r), o, name, bp.Bytes())
	if err != nil {
		var ae *APIError
		if !errors.As(err, &ae) {
			ae = newError(CodeInternalServerError, "%v", err)
		}
		writeError(w, ae)
		return
	}
	if o.write {
		switch e.faults.loseResponse(name, tables) {
		case loseAs500:
			writeError(w, newError(CodeInternalServerError, "Internal server error"))
			return
		case loseAsReset:
			resetConnection(w)
			return
		}
	}
	if _, empty := out.(noOutput); empty {
		writeBody(w, http.StatusOK, nil)
		return
	}
	writeJSON(w, http.StatusOK, out, r.Header)
	if o, ok := out.(*readOutput); ok {
		o.release()
	}
}

// lookupOperation finds the operation an X-Amz-Target names, of DynamoDB
// or of DynamoDB Streams.
func lookupOperation(target string) (op, string, bool) {
	if name, ok := strings.CutPrefix(target, targetPrefix); ok {
		o, known := operations[name]
		return o, name, known
	}
	if name, ok := strings.CutPrefix(target, streamsTargetPrefix); ok {
		o, known := streamOperations[name]
		return o, name, known
	}
	return op{}, "", false
}

// bodyPool holds request and response buffers; buffers that grew past
// maxPooled are dropped so one large batch does not pin its memory.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// respPool holds response buffers.
var respPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooled = 64 << 10

func putBody(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		bodyPool.Put(b)
	}
}

// runOp runs an operation, turning a panic into an InternalServerError so
// one bad request cannot take the engine down.
func (e *Engine) runOp(ctx context.Context, o op, name string, body []byte) (out any, tables []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			if _, released := p.(errReleasedItem); released {
				panic(p) // poison mode: a bug of the engine, which ends the test
			}
			err = newError(CodeInternalServerError, "internal error: %v", p)
		}
	}()
	return o.run(ctx, e, name, body)
}

// requestID is "DDBLOCAL", the sequence number in 16 hex digits and the
// CRC-32 of its decimal form in 8, built without fmt: it runs per request.
func (e *Engine) requestID() string {
	n := atomic.AddUint64(&e.reqSeq, 1)
	var dec [20]byte
	sum := crc32.ChecksumIEEE(strconv.AppendUint(dec[:0], n, 10))
	var id [8 + 16 + 8]byte
	copy(id[:], "DDBLOCAL")
	for i := 0; i < 16; i++ {
		id[8+15-i] = upperHex[(n>>(4*i))&0xF]
	}
	for i := 0; i < 8; i++ {
		id[24+7-i] = upperHex[(sum>>(4*i))&0xF]
	}
	return string(id[:])
}

const upperHex = "0123456789ABCDEF"

// writeJSON encodes v and writes it, compressed when it is large enough
// (compressMin) and the request's header accepts gzip or deflate; the
// header is read only for such a body.
func writeJSON(w http.ResponseWriter, status int, v any, req http.Header) {
	bp := respPool.Get().(*[]byte)
	body, err := encodeResponse((*bp)[:0], v)
	if err != nil {
		writeBody(w, http.StatusInternalServerError, errorBody(newError(CodeInternalServerError, "cannot encode response: %v", err)))
	} else if coding := largeBodyCoding(body, req); coding != "" {
		w.Header()["Content-Encoding"] = []string{coding}
		writeBody(w, status, compressBody(body, coding))
	} else if rec, ok := w.(*recorder); ok {
		// In process: the client reads the buffer itself, and gives it
		// back when it closes the body.
		setBodyHeaders(rec.header, body)
		if rec.adopt(status, body, bp) {
			return
		}
		rec.WriteHeader(status)
		_, _ = rec.Write(body)
	} else {
		writeBody(w, status, body)
	}
	// Writers copy what they are given (io.Writer must not retain it).
	if cap(body) <= maxPooled {
		*bp = body[:0]
		respPool.Put(bp)
	}
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	setBodyHeaders(w.Header(), body)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// setBodyHeaders sets the headers DynamoDB sends with a body: its type,
// CRC32 and length.
func setBodyHeaders(h http.Header, body []byte) {
	// One allocation for the three value slices and one for both numbers.
	var digits [32]byte
	num := strconv.AppendUint(digits[:0], uint64(crc32.ChecksumIEEE(body)), 10)
	crcLen := len(num)
	nums := string(strconv.AppendInt(num, int64(len(body)), 10))
	vals := make([]string, 3)
	vals[0], vals[1], vals[2] = "application/x-amz-json-1.0", nums[:crcLen], nums[crcLen:]
	h["Content-Type"] = vals[0:1:1]
	h["X-Amz-Crc32"] = vals[1:2:2]
	h["Content-Length"] = vals[2:3:3]
}

// errorBody encodes ae as DynamoDB does: __type, the message under the key
// messageKey chooses, and the error's other members.
func errorBody(ae *APIError) []byte {
	m := map[string]any{
		"__type":       errorTypePrefix + ae.Code,
		messageKey(ae): ae.Message,
	}
	for k, v := range ae.Extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"__type": errorTypePrefix + CodeInternalServerError, "message": err.Error()})
	}
	return b
}

// capitalMessage are the errors whose API model names their message member
// "Message"; every other error's member is "message".
var capitalMessage = map[string]bool{
	CodeTransactionCanceled:         true,
	CodeIdempotentParameterMismatch: true,
	CodeTransactionInProgress:       true,
}

// messageKey is the key of ae's message in its error body. DynamoDB writes
// the message member as its API model names it ("Message" for the errors of
// capitalMessage), and writes "Message" for any error that carries members
// of its own (a ConditionalCheckFailedException with Item, a
// ProvisionedThroughputExceededException with ThrottlingReasons), which it
// serializes as the whole structure.
func messageKey(ae *APIError) string {
	if capitalMessage[ae.Code] || len(ae.Extra) > 0 {
		return "Message"
	}
	return "message"
}

func writeError(w http.ResponseWriter, ae *APIError) {
	status := ae.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	writeBody(w, status, errorBody(ae))
}

// resetConnection drops the connection without a response: over TCP by
// hijacking and closing it, in process by telling the round tripper.
func resetConnection(w http.ResponseWriter) {
	if d, ok := w.(dropper); ok {
		d.drop()
		return
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

type dropper interface{ drop() }
