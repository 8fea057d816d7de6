package slo

import (
	"regexp"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// matches reads a pattern of moneyRequests as CloudWatch Logs would for an
// access log line with method and routeKey: a method's group matches when
// the route key ends with one of its endings ("*" + ending).
func matches(t *testing.T, pattern, method, routeKey string) bool {
	t.Helper()
	group := regexp.MustCompile(`\(\$\.method = "([A-Z]+)" && \(([^()]+)\)\)`)
	alt := regexp.MustCompile(`\$\.routeKey = "\*([^"]+)"`)
	groups := group.FindAllStringSubmatch(pattern, -1)
	if len(groups) == 0 {
		t.Fatalf("pattern %s has no method group", pattern)
	}
	for _, g := range groups {
		if g[1] != method {
			continue
		}
		for _, a := range alt.FindAllStringSubmatch(g[2], -1) {
			if strings.HasSuffix(routeKey, a[1]) {
				return true
			}
		}
	}
	return false
}

// TestMoneyRequestsPattern: the access log filter takes every money
// route, versioned or not, and no other route.
func TestMoneyRequestsPattern(t *testing.T) {
	routes := append(httpapi.Routes(), httpapi.LegacyRoutes()...)
	pattern, err := moneyRequests(httpapi.Routes(), routes)
	if err != nil {
		t.Fatal(err)
	}
	if len(pattern) > maxFilterPattern {
		t.Errorf("pattern of %d characters, CloudWatch Logs takes %d", len(pattern), maxFilterPattern)
	}
	money := 0
	for _, r := range routes {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			routeKey := r.Method + " " + r.Path
			if got, want := matches(t, pattern, r.Method, routeKey), r.Flow != ""; got != want {
				t.Errorf("pattern %s matches %q: %v, want %v (flow %q)", pattern, routeKey, got, want, r.Flow)
			}
		})
		if r.Flow != "" {
			money++
		}
	}
	if money < 20 {
		t.Errorf("%d money routes, versioned and legacy; want the 11 flows twice at least", money)
	}
}

func TestMoneyRequestsRefusesAmbiguousRoutes(t *testing.T) {
	for _, c := range []struct {
		name   string
		routes []httpapi.RouteSpec
	}{
		{"no money route", []httpapi.RouteSpec{{Method: "GET", Path: "/v1/users/{userId}"}}},
		{"a money route no ending tells apart", []httpapi.RouteSpec{
			{Method: "POST", Path: "/v1/a/{id}/pay", Flow: "pay"},
			{Method: "POST", Path: "/x/v1/a/{id}/pay"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if p, err := moneyRequests(c.routes, c.routes); err == nil {
				t.Errorf("moneyRequests = %s, want an error", p)
			}
		})
	}
}
