//go:build tools

package client

// Pins the generator in go.mod so `go generate ./client` uses the version the
// committed generated.go was made with.
import _ "github.com/Khan/genqlient"
