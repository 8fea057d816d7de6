package eventrules

import "testing"

// TestPatternLanguage checks Pattern against the examples of the
// EventBridge User Guide: "Creating event patterns" (fields are ANDed,
// values in an array ORed, event arrays match on any element), "Content
// filtering in Amazon EventBridge event patterns" and "Comparison
// operators for use in event patterns".
func TestPatternLanguage(t *testing.T) {
	const ev = `{"source":"aws.backup","detail-type":"Restore Job State Change","time":"2017-10-02T18:43:48Z",
		"resources":["arn:aws:backup:eu-west-1:1:vault/a","arn:aws:dynamodb:eu-west-1:1:table/t"],
		"detail":{"status":"FAILED","state":null,"c-count":5,"d-count":0.5,"x-limit":123,"FileName":"dir/lib/photo.PNG",
		"source-ip":"10.0.0.7","empty":"","service":"EventBridge","items":[{"kind":"a"},{"kind":"b"}]}}`
	for _, c := range []struct {
		name, pattern string
		want          bool
	}{
		{"exact and", `{"source":["aws.backup"],"detail-type":["Restore Job State Change"]}`, true},
		{"one field wrong", `{"source":["aws.backup"],"detail-type":["Backup Job State Change"]}`, false},
		{"values are ORed", `{"detail":{"status":["COMPLETED","FAILED"]}}`, true},
		{"absent field", `{"detail":{"nothing":["x"]}}`, false},
		{"event array, one element", `{"resources":["arn:aws:dynamodb:eu-west-1:1:table/t"]}`, true},
		{"array of objects", `{"detail":{"items":{"kind":["b"]}}}`, true},
		{"case sensitive", `{"detail":{"status":["failed"]}}`, false},
		{"null", `{"detail":{"state":[null]}}`, true},
		{"empty string", `{"detail":{"empty":[""]}}`, true},
		{"number equality as numbers", `{"detail":{"x-limit":[123.0]}}`, true},
		{"a number never equals a string", `{"detail":{"x-limit":["123"]}}`, false},
		{"prefix", `{"time":[{"prefix":"2017-10-02"}]}`, true},
		{"prefix ignore case", `{"detail":{"service":[{"prefix":{"equals-ignore-case":"eventb"}}]}}`, true},
		{"suffix", `{"detail":{"FileName":[{"suffix":".png"}]}}`, false},
		{"suffix ignore case", `{"detail":{"FileName":[{"suffix":{"equals-ignore-case":".png"}}]}}`, true},
		{"equals-ignore-case", `{"detail":{"status":[{"equals-ignore-case":"failed"}]}}`, true},
		{"wildcard", `{"detail":{"FileName":[{"wildcard":"*/lib/*"}]}}`, true},
		{"wildcard miss", `{"detail":{"FileName":[{"wildcard":"*/bin/*"}]}}`, false},
		{"anything-but string", `{"detail":{"status":[{"anything-but":"COMPLETED"}]}}`, true},
		{"anything-but list", `{"detail":{"status":[{"anything-but":["COMPLETED","FAILED"]}]}}`, false},
		{"anything-but number", `{"detail":{"x-limit":[{"anything-but":123}]}}`, false},
		{"anything-but prefix", `{"detail":{"status":[{"anything-but":{"prefix":"FAIL"}}]}}`, false},
		{"anything-but on an absent field", `{"detail":{"nothing":[{"anything-but":"x"}]}}`, false},
		{"numeric range", `{"detail":{"c-count":[{"numeric":[">",0,"<=",5]}]}}`, true},
		{"numeric out of range", `{"detail":{"d-count":[{"numeric":["<",0.25]}]}}`, false},
		{"numeric on a string", `{"detail":{"status":[{"numeric":[">",0]}]}}`, false},
		{"exists", `{"detail":{"status":[{"exists":true}]}}`, true},
		{"exists false", `{"detail":{"nothing":[{"exists":false}]}}`, true},
		{"exists false on a present field", `{"detail":{"status":[{"exists":false}]}}`, false},
		{"cidr", `{"detail":{"source-ip":[{"cidr":"10.0.0.0/24"}]}}`, true},
		{"$or", `{"detail":{"$or":[{"c-count":[{"numeric":[">",10]}]},{"status":["FAILED"]}]}}`, true},
		{"$or none", `{"detail":{"$or":[{"c-count":[{"numeric":[">",10]}]},{"status":["COMPLETED"]}]}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Compile([]byte(c.pattern))
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Match([]byte(ev))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("pattern %s matched %v, want %v", c.pattern, got, c.want)
			}
		})
	}
}

// TestPatternRefusesWhatItDoesNotKnow: an operator or shape outside the
// documented language is an error, so a rule can never pass by accident.
func TestPatternRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, p := range []string{
		`[]`,
		`{"source":"aws.backup"}`,
		`{"source":[]}`,
		`{"source":[{"contains":"x"}]}`,
		`{"source":[{"prefix":"a","suffix":"b"}]}`,
		`{"n":[{"numeric":["~",1]}]}`,
		`{"n":[{"exists":"yes"}]}`,
		`{"ip":[{"cidr":"not a cidr"}]}`,
		`{"$or":[{"a":["x"]}]}`,
	} {
		if _, err := Compile([]byte(p)); err == nil {
			t.Errorf("Compile(%s) = nil error, want a refusal", p)
		}
	}
}
