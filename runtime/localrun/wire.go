package localrun

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// ProblemListener wraps ln so that the errors net/http answers itself,
// before any handler runs (a request line with a malformed percent-escape
// such as GET /users/%ZZ, oversized headers, an unsupported protocol), are
// problem+json like every other error of the API instead of plain text.
func ProblemListener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

type problemConn struct{ net.Conn }

// serverError is how net/http's server starts the whole response it writes,
// in one Write and before closing, to a request it could not parse. No
// handler of the API writes text/plain.
var serverError = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c problemConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return c.Conn.Write(p)
	}
	statusLine, rest, ok := bytes.Cut(p, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(append([]byte("\r\n"), rest...), serverError) {
		return c.Conn.Write(p)
	}
	code, _, _ := strings.Cut(strings.TrimPrefix(string(statusLine), "HTTP/1.1 "), " ")
	status, err := strconv.Atoi(code)
	if err != nil || http.StatusText(status) == "" {
		return c.Conn.Write(p)
	}
	// The body repeats the status line: "400 Bad Request: <detail>".
	body := string(rest[len(serverError)-2:])
	detail := strings.TrimPrefix(strings.TrimPrefix(body, code+" "+http.StatusText(status)), ": ")
	if _, err := c.Conn.Write(problemResponse(status, detail)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func problemResponse(status int, detail string) []byte {
	title := http.StatusText(status)
	if detail == "" || detail == title {
		// net/http names no cause for a request line it cannot parse.
		detail = "malformed request line: the method, the target (a percent-escape must be % and two hex digits, so /users/%ZZ is malformed) or the protocol"
	}
	slug := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
	body, _ := json.Marshal(httpapi.Problem{Type: httpapi.ProblemTypeBase + slug, Title: title, Status: status, Detail: detail})
	body = append(body, '\n')
	head := "HTTP/1.1 " + strconv.Itoa(status) + " " + title + "\r\nContent-Type: application/problem+json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n"
	return append([]byte(head), body...)
}
