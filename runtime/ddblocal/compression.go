package ddblocal

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Compressed requests and responses, as DynamoDB's endpoint treats them.
// AWS documents request compression for its SDKs ("Request compression",
// SDKs and Tools Reference Guide, feature-compression), and what the
// endpoint answers was observed against it (ScyllaDB's Alternator suite,
// test_compressed_request.py and test_compressed_response.py, run on
// DynamoDB):
//   - a request body with Content-Encoding gzip (one member or several
//     concatenated) or deflate (zlib) is decoded before it is read;
//   - a body that does not decode, and a Content-Encoding the endpoint
//     does not know, get 500 InternalServerError, and nothing is written;
//   - a response body of at least 4,096 bytes is compressed when the
//     request's Accept-Encoding accepts gzip or deflate; smaller bodies,
//     and errors, are sent as they are.
//
// DynamoDB accepts trailing bytes after a complete gzip member; so does
// the engine. Where DynamoDB accepts a decoded body of any size, the
// engine stops at maxRequestBytes (413), so that a small compressed body
// cannot make it hold gigabytes.

// compressMin is the smallest response body DynamoDB compresses.
const compressMin = 4096

// errUnknownEncoding is a Content-Encoding the endpoint cannot decode.
var errUnknownEncoding = errors.New("unknown Content-Encoding")

// decodeBody returns body decoded by the request's Content-Encoding, which
// is one coding or a comma-separated list applied in order. tooLarge
// reports a decoded body over maxRequestBytes.
func decodeBody(body []byte, encoding string) (decoded []byte, tooLarge bool, err error) {
	codings := strings.Split(encoding, ",")
	cur := body
	for i := len(codings) - 1; i >= 0; i-- {
		var next bytes.Buffer
		c := strings.ToLower(strings.TrimSpace(codings[i]))
		switch c {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			tooLarge, err = gunzip(&next, cur)
		case "deflate":
			tooLarge, err = inflate(&next, cur)
		default:
			return nil, false, errUnknownEncoding
		}
		if tooLarge || err != nil {
			return nil, tooLarge, err
		}
		cur = next.Bytes()
	}
	return cur, false, nil
}

// gunzip decodes one or more concatenated gzip members; bytes after the
// last member that do not start another are ignored, as DynamoDB ignores
// them.
func gunzip(dst *bytes.Buffer, src []byte) (tooLarge bool, err error) {
	rd := bytes.NewReader(src)
	zr, err := gzip.NewReader(rd)
	if err != nil {
		return false, err
	}
	for {
		zr.Multistream(false)
		if tooLarge, err := copyBounded(dst, zr); tooLarge || err != nil {
			return tooLarge, err
		}
		rest := src[len(src)-rd.Len():]
		if len(rest) < 2 || rest[0] != 0x1f || rest[1] != 0x8b {
			return false, nil
		}
		if err := zr.Reset(rd); err != nil {
			return false, err
		}
	}
}

func inflate(dst *bytes.Buffer, src []byte) (tooLarge bool, err error) {
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return false, err
	}
	defer zr.Close()
	return copyBounded(dst, zr)
}

// copyBounded copies r to dst, refusing more than maxRequestBytes in all.
func copyBounded(dst *bytes.Buffer, r io.Reader) (tooLarge bool, err error) {
	if _, err := io.Copy(dst, io.LimitReader(r, maxRequestBytes-int64(dst.Len())+1)); err != nil {
		return false, err
	}
	return dst.Len() > maxRequestBytes, nil
}

// acceptedEncoding chooses the coding of a response from the request's
// Accept-Encoding (the last such header, as DynamoDB reads it): gzip or
// deflate, or "" for none. The coding of highest quality wins, a coding
// named before another of equal quality wins over it, a coding named wins
// over "*" of equal quality, and "*" stands for gzip, then deflate. A
// quality of 0 refuses a coding; one above 1 counts as 1; one that does
// not parse counts as 1 (DynamoDB's answers to the cases its suite sends).
func acceptedEncoding(h http.Header) string {
	vals := h["Accept-Encoding"]
	// The SDKs send identity on every request: answer it without parsing.
	if len(vals) == 0 || vals[len(vals)-1] == "identity" || vals[len(vals)-1] == "" {
		return ""
	}
	type choice struct {
		q     float64
		order int
	}
	named := map[string]choice{}
	star, starSet := 0.0, false
	for i, part := range strings.Split(vals[len(vals)-1], ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := quality(params)
		switch name {
		case "gzip", "deflate":
			if _, seen := named[name]; !seen || q > named[name].q {
				named[name] = choice{q: q, order: i}
			}
		case "*":
			if !starSet {
				star, starSet = q, true
			}
		}
	}
	best, bestQ, bestOrder := "", 0.0, 0
	consider := func(name string, q float64, order int) {
		if q > bestQ || (q == bestQ && q > 0 && order < bestOrder) {
			best, bestQ, bestOrder = name, q, order
		}
	}
	for _, name := range []string{"gzip", "deflate"} {
		if c, ok := named[name]; ok {
			consider(name, c.q, c.order)
		}
	}
	if starSet {
		for i, name := range []string{"gzip", "deflate"} {
			if _, ok := named[name]; !ok {
				// After every named coding of the same quality.
				consider(name, star, 1<<20+i)
			}
		}
	}
	return best
}

// quality is the q parameter of one Accept-Encoding element: the first
// q=, capped at 1; 1 when absent or unreadable.
func quality(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 1
		}
		return max(0, min(q, 1))
	}
	return 1
}

// largeBodyCoding is the coding of a response body: "" below compressMin,
// else the one req's Accept-Encoding chooses.
func largeBodyCoding(body []byte, req http.Header) string {
	if len(body) < compressMin {
		return ""
	}
	return acceptedEncoding(req)
}

// compressBody compresses body with coding (gzip or deflate).
func compressBody(body []byte, coding string) []byte {
	var buf bytes.Buffer
	var zw io.WriteCloser
	if coding == "gzip" {
		zw = gzip.NewWriter(&buf)
	} else {
		zw = zlib.NewWriter(&buf)
	}
	_, _ = zw.Write(body)
	_ = zw.Close()
	return buf.Bytes()
}
