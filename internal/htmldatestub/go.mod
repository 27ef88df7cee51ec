// A stand-in for go-htmldate that finds no dates, put in its place by the
// host's go.mod (replace): see doc.go.
module github.com/markusmobius/go-htmldate

go 1.22

require golang.org/x/net v0.30.0
