package slo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// maxFilterPattern is CloudWatch Logs' limit on a filter pattern.
const maxFilterPattern = 1024

// moneyRequests is the JSON filter pattern of the access log lines of the
// money routes' requests, versioned or not: each money route of routes is
// named by its method and the shortest ending of its path ("*/credits")
// that no other route of all (routes and their unversioned twins) with
// that method ends with.
func moneyRequests(routes, all []httpapi.RouteSpec) (string, error) {
	var methods []string
	endings := map[string][]string{}
	for _, r := range routes {
		if r.Flow == "" {
			continue
		}
		end, err := ending(r, all)
		if err != nil {
			return "", err
		}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
		if !slices.Contains(endings[r.Method], end) {
			endings[r.Method] = append(endings[r.Method], end)
		}
	}
	if len(methods) == 0 {
		return "", fmt.Errorf("slo: no money route")
	}
	var groups []string
	for _, m := range methods {
		var alts []string
		for _, e := range endings[m] {
			alts = append(alts, fmt.Sprintf("$.routeKey = %q", "*"+e))
		}
		groups = append(groups, fmt.Sprintf("($.method = %q && (%s))", m, strings.Join(alts, " || ")))
	}
	pattern := "{ " + strings.Join(groups, " || ") + " }"
	if len(pattern) > maxFilterPattern-64 {
		return "", fmt.Errorf("slo: the money routes' filter pattern is %d characters, CloudWatch Logs takes %d", len(pattern), maxFilterPattern)
	}
	return pattern, nil
}

// ending is the shortest ending of r's path, by whole segments, that no
// route of another flow and the same method ends with.
func ending(r httpapi.RouteSpec, routes []httpapi.RouteSpec) (string, error) {
	segs := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
	for k := 1; k < len(segs); k++ {
		end := "/" + strings.Join(segs[len(segs)-k:], "/")
		if !slices.ContainsFunc(routes, func(o httpapi.RouteSpec) bool {
			return o.Method == r.Method && o.Flow != r.Flow && strings.HasSuffix(o.Path, end)
		}) {
			return end, nil
		}
	}
	return "", fmt.Errorf("slo: route %s %s ends as another route of another flow does", r.Method, r.Path)
}
