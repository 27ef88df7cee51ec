// A stand-in for gomoji with the one function go-trafilatura calls, put in
// its place by the host's go.mod (replace): see gomoji.go.
module github.com/forPelevin/gomoji

go 1.22
