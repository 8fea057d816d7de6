module github.com/oncetable/oncetable/test/eventrules

go 1.26.0

require quamina.net/go/quamina/v2 v2.0.2

// The Go module proxy does not serve quamina: third_party/README.md.
replace quamina.net/go/quamina/v2 => ./third_party/quamina
