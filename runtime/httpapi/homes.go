package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/home"
)

// ForwardedFromHeader marks a request one Region's API forwarded to a
// cell's home Region, with the forwarding Region as its value. A request
// that carries it is never forwarded again: a home that moved meanwhile
// answers 421 naming the new one.
const ForwardedFromHeader = "Oncetable-Forwarded-From"

// HomeRegionHeader names the Region that served a forwarded request.
const HomeRegionHeader = "Oncetable-Home-Region"

// Homes makes the API one of several Regions' APIs over a global table in
// which every cell of users has a home Region (runtime/home,
// docs/multi-region.md). Money flows carry the home fence; a request for
// a user homed in another Region is forwarded to that Region's API, so
// the client sees one answer and pays one round trip between Regions.
// When the home does not answer, the request is refused with 503 and
// Retry-After naming the home (the freeze mode of an unplanned failover:
// nothing is written until the home returns or an operator moves the
// cell). A Region without a peer URL for the home, or a request that was
// forwarded already, is answered 421 naming the home.
type Homes struct {
	// Fencer fences this Region's money transactions. Required.
	Fencer *home.Fencer
	// Peers maps Regions to the base URL of their API (scheme, host and,
	// for a named API Gateway stage, the stage: https://api.eu.example.com
	// or http://127.0.0.1:8081). Default: none, every misdirected request
	// is answered 421.
	Peers map[string]string
	// Client sends forwarded requests. Default: an http.Client with a 10s
	// timeout.
	Client *http.Client
	// RetryAfter is the Retry-After of a 503 when the home does not
	// answer, or when the cell is between two homes during a failover.
	// Default: 10s, the lease TTL.
	RetryAfter time.Duration
}

// HomesOf is the Homes of h (config.LoadHomes) over table, with the lease
// table reached through leaseDB, a client of h.LeaseRegion; local, a
// client of this Region's replica of table, assigns a cell its first
// home (h.Assign) on first use.
func HomesOf(h config.Homes, table string, leaseDB, local home.DB) *Homes {
	leases := home.NewLeases(leaseDB, h.LeaseTable)
	fencer := home.NewFencer(h.Region, table, h.Cells, leases, func(o *home.FencerOptions) {
		if len(h.Assign) > 0 {
			o.FirstHome, o.Local = h.FirstHome, local
		}
	})
	return &Homes{Fencer: fencer, Peers: h.Peers, RetryAfter: leases.TTL()}
}

func (h *Homes) withDefaults() *Homes {
	c := *h
	if c.Client == nil {
		c.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = 10 * time.Second
	}
	return &c
}

// ErrWrongRegion is the sentinel of *WrongRegionError.
var ErrWrongRegion = errors.New("the user's money is homed in another Region")

// WrongRegionError is a money request that reached a Region that is not
// its cell's home and was not forwarded: the client sends it to Home.
type WrongRegionError struct {
	Cell, Region, Home string
}

func (e *WrongRegionError) Error() string {
	return fmt.Sprintf("cell %s is homed in %s, not %s: send the request to %s's API with the same Idempotency-Key", e.Cell, e.Home, e.Region, e.Home)
}

func (e *WrongRegionError) Is(target error) bool { return target == ErrWrongRegion }

// redirect answers a flow that the fence refused: forwarded to the home,
// or the error to answer with; handled is false when err is no refusal.
func (h *Homes) redirect(ctx context.Context, c *call, err error) (events.APIGatewayV2HTTPResponse, bool, error) {
	var no *home.NotOwnerError
	if errors.As(err, &no) {
		to := no.Owner.Region
		switch {
		case to == "" || to == "-":
			// Stopped for a failover, or not yet claimed: a few seconds.
			return events.APIGatewayV2HTTPResponse{}, true, &home.FrozenError{Cell: no.Cell, Home: to, RetryAfter: h.RetryAfter}
		case h.Peers[to] == "" || header(c.req, ForwardedFromHeader) != "":
			return events.APIGatewayV2HTTPResponse{}, true, &WrongRegionError{Cell: no.Cell, Region: no.Region, Home: to}
		}
		resp, ferr := h.forward(ctx, c, to)
		if ferr != nil {
			return events.APIGatewayV2HTTPResponse{}, true, &home.FrozenError{Cell: no.Cell, Home: to, RetryAfter: h.RetryAfter}
		}
		return resp, true, nil
	}
	if errors.Is(err, home.ErrLeaseExpired) {
		return events.APIGatewayV2HTTPResponse{}, true, &home.FrozenError{Home: h.Fencer.Region(), RetryAfter: h.RetryAfter}
	}
	return events.APIGatewayV2HTTPResponse{}, false, err
}

// maxForwardedBody bounds a forwarded answer (API Gateway's payload
// limit).
const maxForwardedBody = 6 << 20

// forward sends the request to the API of Region to and returns its
// answer as this API's. An error means the home did not answer.
func (h *Homes) forward(ctx context.Context, c *call, to string) (events.APIGatewayV2HTTPResponse, error) {
	body := []byte(c.req.Body)
	if c.req.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(c.req.Body); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
	}
	path := c.req.RawPath
	if path == "" {
		path = c.req.RequestContext.HTTP.Path
	}
	if st := c.req.RequestContext.Stage; st != "" && st != "$default" {
		path = strings.TrimPrefix(path, "/"+st)
	}
	url := strings.TrimSuffix(h.Peers[to], "/") + path
	if c.req.RawQueryString != "" {
		url += "?" + c.req.RawQueryString
	}
	req, err := http.NewRequestWithContext(ctx, c.req.RequestContext.HTTP.Method, url, bytes.NewReader(body))
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	for k, v := range c.req.Headers {
		switch strings.ToLower(k) {
		case "host", "content-length", "connection":
			continue
		}
		req.Header.Set(k, v)
	}
	req.Header.Set(ForwardedFromHeader, h.Fencer.Region())
	resp, err := h.Client.Do(req)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("home %s answered %s", to, resp.Status)
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxForwardedBody))
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	headers := map[string]string{}
	for k := range resp.Header {
		headers[k] = resp.Header.Get(k)
	}
	headers[HomeRegionHeader] = to
	return events.APIGatewayV2HTTPResponse{StatusCode: resp.StatusCode, Headers: headers, Body: string(out)}, nil
}
