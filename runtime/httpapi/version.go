package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIVersion is the version segment every route's path starts with
// ("/v1/users/{userId}"). A change that breaks clients gets a new version,
// served beside this one through a migration window.
const APIVersion = "v1"

// The migration window of the unversioned routes ("/users/{userId}"): they
// answer as their /v1 routes do, with a Deprecation header (RFC 9745) from
// LegacyDeprecated and a Sunset header (RFC 8594) for LegacySunset, after
// which a release may remove them.
var (
	LegacyDeprecated = time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	LegacySunset     = time.Date(2027, 6, 30, 23, 59, 59, 0, time.UTC)
)

// DeprecationPolicyURL documents the versions and the migration window; a
// deprecated route links it with rel="deprecation" (RFC 9745 section 3).
const DeprecationPolicyURL = "https://github.com/oncetable/oncetable/blob/main/docs/runtime.md#versions-and-deprecation"

// versioned strips the version segment from a path's segments, reporting
// whether it was there.
func versioned(segs []string) ([]string, bool) {
	if len(segs) > 0 && segs[0] == APIVersion {
		return segs[1:], true
	}
	return segs, false
}

// deprecationHeaders are the headers of an answer on an unversioned route
// whose successor is path.
func deprecationHeaders(h map[string]string, successor string) {
	h["Deprecation"] = "@" + strconv.FormatInt(LegacyDeprecated.Unix(), 10)
	h["Sunset"] = LegacySunset.Format(http.TimeFormat)
	h["Link"] = "<" + successor + `>; rel="successor-version", <` + DeprecationPolicyURL + `>; rel="deprecation"`
}

// versionPath is path under the current version.
func versionPath(path string) string { return "/" + APIVersion + "/" + strings.TrimPrefix(path, "/") }
