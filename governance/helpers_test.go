package governance_test

import (
	"encoding/json"

	"manent.dev/manent/deploy"
)

func show(d deploy.Decision) string {
	b, _ := json.Marshal(d)
	return string(b)
}
