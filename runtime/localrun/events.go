package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// EventsPath lists the last events the runner delivered. It exists only
// locally: in AWS the events go to EventBridge.
const EventsPath = "/_local/events"

// EventSink stands in for EventBridge: it takes the outbox publisher's
// PutEvents, writes one log line per event and keeps the last ones.
type EventSink struct {
	mu   sync.Mutex
	out  io.Writer
	keep int
	last []json.RawMessage
	n    int
}

// NewEventSink returns a sink logging to out and keeping keep events.
func NewEventSink(out io.Writer, keep int) *EventSink {
	return &EventSink{out: out, keep: max(1, keep)}
}

type sinkLine struct {
	Msg        string          `json:"msg"`
	Bus        string          `json:"bus"`
	Source     string          `json:"source"`
	DetailType string          `json:"detailType"`
	Detail     json.RawMessage `json:"detail"`
}

// PutEvents accepts every entry.
func (s *EventSink) PutEvents(_ context.Context, in *eventbridge.PutEventsInput, _ ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &eventbridge.PutEventsOutput{}
	for _, e := range in.Entries {
		line, err := json.Marshal(sinkLine{Msg: "event", Bus: aws.ToString(e.EventBusName), Source: aws.ToString(e.Source),
			DetailType: aws.ToString(e.DetailType), Detail: json.RawMessage(aws.ToString(e.Detail))})
		if err != nil {
			return nil, fmt.Errorf("localrun: event detail is not JSON: %w", err)
		}
		fmt.Fprintf(s.out, "%s\n", line)
		s.n++
		s.last = append(s.last, json.RawMessage(aws.ToString(e.Detail)))
		if len(s.last) > s.keep {
			s.last = s.last[len(s.last)-s.keep:]
		}
		out.Entries = append(out.Entries, ebtypes.PutEventsResultEntry{EventId: aws.String("local-" + strconv.Itoa(s.n))})
	}
	return out, nil
}

// Events returns the kept events' details, oldest first: an empty list,
// never nil, before the first event (so it marshals as []).
func (s *EventSink) Events() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(make([]json.RawMessage, 0, len(s.last)), s.last...)
}

// ServeHTTP answers GET EventsPath with {"events": [...]}, and
// EventBridge's PutEvents (JSON 1.1 protocol) at EventBridgePath.
func (s *EventSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		s.servePutEvents(w, r)
		return
	}
	body, _ := json.Marshal(map[string]any{"events": s.Events()})
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(body, '\n'))
}

// EventBridgePath is an EventBridge endpoint of the runner (PutEvents
// only), for an SDK client whose BaseEndpoint is the API's URL and this
// path: what it puts joins the stream's events, so a tool that publishes
// events (make republish ENV=local) can be run against make run.
const EventBridgePath = "/_local/eventbridge"

// putEventsWire is PutEvents' request in the JSON 1.1 protocol.
type putEventsWire struct {
	Entries []struct {
		EventBusName, Source, DetailType, Detail string
	}
}

func (s *EventSink) servePutEvents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	var in putEventsWire
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if target := r.Header.Get("X-Amz-Target"); target != "AWSEvents.PutEvents" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"UnknownOperationException","message":%q}`, "the local runner serves AWSEvents.PutEvents only, not "+target)
		return
	}
	if err != nil || len(in.Entries) == 0 || len(in.Entries) > outbox.MaxEntries {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"ValidationException","message":%q}`, fmt.Sprintf("1 to %d entries of JSON, got %d (%v)", outbox.MaxEntries, len(in.Entries), err))
		return
	}
	put := &eventbridge.PutEventsInput{}
	for _, e := range in.Entries {
		put.Entries = append(put.Entries, ebtypes.PutEventsRequestEntry{EventBusName: aws.String(e.EventBusName), Source: aws.String(e.Source),
			DetailType: aws.String(e.DetailType), Detail: aws.String(e.Detail)})
	}
	out, err := s.PutEvents(r.Context(), put)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"ValidationException","message":%q}`, err.Error())
		return
	}
	ids := make([]map[string]string, len(out.Entries))
	for i, e := range out.Entries {
		ids[i] = map[string]string{"EventId": aws.ToString(e.EventId)}
	}
	resp, _ := json.Marshal(map[string]any{"FailedEntryCount": 0, "Entries": ids})
	w.Write(resp)
}

// withEvents serves GET EventsPath and EventBridgePath beside the API's routes, to operators
// only: the events carry every user's money movements, which in AWS only
// the bus's own consumers see. The caller is read as the API reads it
// (X-Local-Caller, X-Local-Scopes, auth), and refused as the API refuses a
// back-office route.
func withEvents(sink *EventSink, auth httpapi.Auth, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local := (r.URL.Path == EventsPath && r.Method == http.MethodGet) ||
			(strings.TrimSuffix(r.URL.Path, "/") == EventBridgePath && r.Method == http.MethodPost)
		if !local {
			api.ServeHTTP(w, r)
			return
		}
		caller, err := Caller(r)
		if err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad request", err.Error())
			return
		}
		if _, _, err := Scopes(r); err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad request", err.Error())
			return
		}
		ev := Event(r, nil, caller, time.Now())
		if p := auth.Principal(&ev); !slices.Contains(p.Roles, httpapi.RoleOperator) {
			f := httpapi.ProblemOf(httpapi.ErrForbidden)
			writeProblem(w, f.Status, strings.TrimPrefix(f.Type, httpapi.ProblemTypeBase), f.Title,
				"forbidden: "+EventsPath+" is for operators (every user's money events); send it without "+ScopesHeader+", or with the operator scope "+auth.Scope(httpapi.RoleOperator))
			return
		}
		sink.ServeHTTP(w, r)
	})
}

// CheckpointsFile is the file in the data directory that keeps the events
// poller's position in the stream, so a restarted runner resumes after
// the last batch it published instead of publishing the stream again.
const CheckpointsFile = "events-checkpoints.json"

// TotalsCheckpointsFile keeps the platform totaller's position in the
// stream, apart from the events poller's.
const TotalsCheckpointsFile = "totals-checkpoints.json"

// startEvents enables the table's stream and drives the production events
// handler (outbox.Publisher) from it, as the event source mapping does in
// AWS, into sink, checkpointing in dataDir when there is one. The returned
// stop waits for the poller to end.
func startEvents(ctx context.Context, eng *ddblocal.Engine, db *dynamodb.Client, table, dataDir string, sink *EventSink) (stop func(), err error) {
	arn, err := ensureStream(ctx, db, table)
	if err != nil {
		return nil, err
	}
	pub := outbox.NewPublisher(sink, func(o *outbox.Options) { o.BusName = "local" })
	poller := streampoll.New(eng.StreamsClient(), arn, pub.Handle, func(o *streampoll.Options) {
		if dataDir != "" {
			o.Checkpoints = streampoll.NewFileCheckpoints(filepath.Join(dataDir, CheckpointsFile))
		}
		o.OnFailure = func(recs []events.DynamoDBEventRecord, reason error) {
			fmt.Fprintf(sink.out, "{\"msg\":\"events given up\",\"records\":%d,\"reason\":%q}\n", len(recs), reason)
		}
	})
	// The platform totaller reads the same stream with a position of its
	// own, as its own event source mapping does in AWS.
	tot := platform.New(db, func(o *platform.Options) {
		o.Table = table
		o.Logger = slog.New(slog.NewJSONHandler(sink.out, nil))
	})
	totals := streampoll.New(eng.StreamsClient(), arn, tot.Handle, func(o *streampoll.Options) {
		if dataDir != "" {
			o.Checkpoints = streampoll.NewFileCheckpoints(filepath.Join(dataDir, TotalsCheckpointsFile))
		}
		o.OnFailure = func(recs []events.DynamoDBEventRecord, reason error) {
			fmt.Fprintf(sink.out, "{\"msg\":\"platform totals given up\",\"records\":%d,\"reason\":%q}\n", len(recs), reason)
		}
	})
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	for _, p := range []*streampoll.Poller{poller, totals} {
		wg.Go(func() { _ = p.Run(pctx) })
	}
	return func() { cancel(); wg.Wait() }, nil
}

// ensureStream enables a NEW_AND_OLD_IMAGES stream on the table unless it
// has one, and returns its ARN.
func ensureStream(ctx context.Context, db *dynamodb.Client, table string) (string, error) {
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return "", fmt.Errorf("localrun: describe %s: %w", table, err)
	}
	if spec := desc.Table.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		return aws.ToString(desc.Table.LatestStreamArn), nil
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		return "", fmt.Errorf("localrun: enable the stream of %s: %w", table, err)
	}
	return aws.ToString(out.TableDescription.LatestStreamArn), nil
}
