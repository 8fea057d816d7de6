module quamina.net/go/quamina/v2

go 1.22.0
