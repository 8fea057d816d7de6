package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

// Version is the OpenAPI version of the document.
const Version = "3.1.0"

const description = `Payments on one DynamoDB table. Amounts are JSON integers of minor units plus an ISO 4217 currency.
Every error is an RFC 9457 problem+json body whose type is one of urn:oncetable:problem:*.
Every operation lists who may call it (security): with a JWT, the scopes of the roles it admits (any one suffices; the defaults are shown, an environment may name others in cdk.json); with SigV4 (IAM), the invoke policy of the role (ServiceInvoke or OperatorInvoke). A customer acts only on its own user and that user's orders: another user's are answered 404 not-found, exactly as if they did not exist.
The local runner (make run) takes the subject, which also scopes Idempotency-Keys, from X-Local-Caller (default "local") and the scopes from X-Local-Scopes; without X-Local-Scopes the caller is an operator.`

// Document returns the API's OpenAPI 3.1 document, indented, with a final
// newline. It is generated from httpapi.Operations, so it describes the
// routes, bodies, limits and problem types the handlers actually have.
func Document() []byte {
	s := schemas{}
	problem := s.ref(reflect.TypeFor[httpapi.Problem]())
	paths := obj{}
	for _, op := range httpapi.Operations() {
		item, _ := paths[op.Path].(obj)
		if item == nil {
			item = obj{}
			paths[op.Path] = item
		}
		item[strings.ToLower(op.Method)] = operation(s, op, problem)
	}
	doc := obj{
		"openapi": Version,
		"info": obj{"title": "oncetable payments API", "version": "1", "description": description,
			"license": obj{"name": "Apache-2.0", "identifier": "Apache-2.0"}},
		"servers":    []any{obj{"url": "http://127.0.0.1:8080", "description": "the local runner (make run)"}},
		"paths":      paths,
		"components": obj{"schemas": map[string]any(s), "securitySchemes": securitySchemes()},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("openapi: " + err.Error())
	}
	return append(b, '\n')
}

// securitySchemes are the authorizers of an environment (JWT or IAM) and
// the local runner's headers.
func securitySchemes() obj {
	return obj{
		"jwt": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
			"description": "a JWT from the environment's issuer; its scope claim grants the roles: " + roleScopes() +
				". A customer's userId is its subject (or the environment's userClaim)."},
		"sigv4": obj{"type": "apiKey", "in": "header", "name": "Authorization",
			"description":                  "an AWS Signature Version 4 signature of a principal with the route's execute-api:Invoke, granted by the managed policy ServiceInvoke or OperatorInvoke; an IAM principal is a service unless the environment lists it among its iamOperators",
			"x-amazon-apigateway-authtype": "awsSigv4"},
		"localScopes": obj{"type": "apiKey", "in": "header", "name": "X-Local-Scopes",
			"description": "the local runner only: the scopes of a JWT, space-separated, for the subject X-Local-Caller; without this header the caller is an operator"},
	}
}

func roleScopes() string {
	var out []string
	for _, r := range []httpapi.Role{httpapi.RoleCustomer, httpapi.RoleService, httpapi.RoleOperator} {
		out = append(out, httpapi.Auth{}.Scope(r)+" ("+string(r)+")")
	}
	return strings.Join(out, ", ")
}

// security lists the scopes (JWT, local runner) and the IAM invoke
// policies that admit a caller to op: any one of them suffices.
func security(op httpapi.Operation) []any {
	scopes := httpapi.Auth{}.Scopes(op.Roles)
	var policies []string
	for _, r := range op.Roles {
		if r != httpapi.RoleCustomer {
			policies = append(policies, iamPolicy(r))
		}
	}
	return []any{obj{"jwt": scopes}, obj{"sigv4": policies}, obj{"localScopes": scopes}}
}

// iamPolicy names the managed policy that grants a role's routes.
func iamPolicy(r httpapi.Role) string {
	return map[httpapi.Role]string{httpapi.RoleService: "ServiceInvoke", httpapi.RoleOperator: "OperatorInvoke"}[r]
}

func operation(s schemas, op httpapi.Operation, problem obj) obj {
	o := obj{"operationId": op.Name, "summary": op.Summary, "tags": []string{strings.Split(strings.TrimPrefix(op.Path, "/"+httpapi.APIVersion+"/"), "/")[0]},
		"security": security(op)}
	if op.Owner != httpapi.OwnerNone {
		o["x-oncetable-owner"] = "a customer may call it only for its own " + map[httpapi.Owner]string{
			httpapi.OwnerUser: "userId", httpapi.OwnerOrder: "orders"}[op.Owner] + "; another user's is 404 not-found, as if it did not exist"
	}
	if op.Flow != "" {
		o["description"] = "An idempotent money flow: a retry with the same Idempotency-Key and body replays the first response with Idempotent-Replayed: true."
	}
	if params := parameters(op); len(params) > 0 {
		o["parameters"] = params
	}
	if op.Body != nil {
		o["requestBody"] = obj{"required": !op.BodyOptional,
			"content": obj{"application/json": obj{"schema": s.ref(reflect.TypeOf(op.Body))}}}
	}
	success := obj{"description": http.StatusText(op.Status),
		"content": obj{"application/json": obj{"schema": s.ref(reflect.TypeOf(op.Response))}}}
	if op.Key != httpapi.KeyNone {
		success["headers"] = obj{"Idempotent-Replayed": obj{"description": "true when this is the stored response of an earlier request with the same key",
			"schema": obj{"type": "string", "enum": []string{"true"}}}}
	}
	headers, _ := success["headers"].(obj)
	if headers == nil {
		headers = obj{}
	}
	headers["X-Request-Id"] = requestIDHeader()
	success["headers"] = headers
	responses := obj{strconv.Itoa(op.Status): success,
		"429": obj{"description": "Too Many Requests: API Gateway's throttle (the stage's rate and burst, or the money route's own), answered before the handler runs (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html). The body is API Gateway's, not problem+json. Nothing ran: retry after a backoff with the same Idempotency-Key.",
			"content": obj{"application/json": obj{"schema": obj{"type": "object", "properties": obj{"message": obj{"type": "string"}}}}}}}
	for status, types := range problemTypes(op) {
		responses[strconv.Itoa(status)] = obj{
			"description": strings.Join(types.titles, "; "),
			"content": obj{"application/problem+json": obj{"schema": obj{"allOf": []any{problem,
				obj{"properties": obj{"type": obj{"enum": types.uris}, "code": obj{"enum": types.codes}, "status": obj{"const": status}}}}}}},
		}
	}
	o["responses"] = responses
	return o
}

func parameters(op httpapi.Operation) []any {
	var out []any
	for _, seg := range strings.Split(op.Path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			out = append(out, obj{"name": strings.TrimSuffix(name, "}"), "in": "path", "required": true, "schema": paramSchema(name)})
		}
	}
	for _, p := range op.Query {
		sch := obj{"type": "string"}
		switch {
		case len(p.Enum) > 0:
			sch["enum"] = p.Enum
		case p.Max > 0:
			sch = obj{"type": "integer", "minimum": p.Min, "maximum": p.Max}
		case p.MaxBytes > 0:
			sch["maxLength"] = p.MaxBytes
		}
		q := obj{"name": p.Name, "in": "query", "required": p.Required, "schema": sch}
		if p.Description != "" {
			q["description"] = p.Description
		}
		out = append(out, q)
	}
	out = append(out, obj{"name": "X-Request-Id", "in": "header", "required": false,
		"description": "the client's id of this request, echoed in the response's X-Request-Id and logged; without it the response carries API Gateway's request id",
		"schema":      requestIDSchema()})
	if op.Key != httpapi.KeyNone {
		desc := "one key per logical request, scoped to the caller and the operation; exactly one such header"
		if op.Key == httpapi.KeyOptional {
			desc = "optional: with it, a retry of this request replays the first answer instead of answering 409 already-exists; one key per logical request, scoped to the caller and the operation"
		}
		out = append(out, obj{"name": "Idempotency-Key", "in": "header", "required": op.Key == httpapi.KeyRequired,
			"description": desc,
			"schema":      obj{"type": "string", "minLength": 1, "maxLength": idemhttp.MaxKeyLength, "pattern": `^[\u0020-\u007e]+$`}})
	}
	return out
}

func requestIDSchema() obj {
	return obj{"type": "string", "minLength": 1, "maxLength": httpapi.MaxRequestIDLength, "pattern": `^[A-Za-z0-9._:/+=-]+$`}
}

func requestIDHeader() obj {
	return obj{"description": "the request's id: the client's X-Request-Id, or API Gateway's", "schema": requestIDSchema()}
}

type statusTypes struct{ uris, codes, titles []string }

// problemTypes groups the route's problem types (its own and the common
// ones) by status.
func problemTypes(op httpapi.Operation) map[int]statusTypes {
	out := map[int]statusTypes{}
	for _, err := range append(slices.Clone(op.Errors), httpapi.CommonErrors...) {
		p := httpapi.ProblemOf(err)
		st := out[p.Status]
		if slices.Contains(st.uris, p.Type) {
			continue
		}
		st.uris = append(st.uris, p.Type)
		st.codes = append(st.codes, p.Code)
		st.titles = append(st.titles, fmt.Sprintf("%s (%s)", p.Title, strings.TrimPrefix(p.Type, httpapi.ProblemTypeBase)))
		out[p.Status] = st
	}
	for status, st := range out {
		slices.Sort(st.uris)
		slices.Sort(st.codes)
		slices.Sort(st.titles)
		out[status] = st
	}
	return out
}

// paramSchema is the schema of a path parameter ("productId}" as cut from
// its pattern segment).
func paramSchema(name string) obj {
	if strings.TrimSuffix(name, "}") == "productId" {
		return productIDSchema()
	}
	return idSchema()
}
