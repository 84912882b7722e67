package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// answer is everything a client sees of a reply.
type answer struct {
	status      int
	contentType string
	body        string
}

func (a answer) String() string { return fmt.Sprintf("%d %s %s", a.status, a.contentType, a.body) }

func ask(t *testing.T, method, url, token, contentType, body string) answer {
	t.Helper()
	return askContext(t.Context(), t, method, url, token, contentType, body)
}

func askContext(ctx context.Context, t *testing.T, method, url, token, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(b)}
}

func askGraphQL(t *testing.T, srv *Server, token, query string, vars map[string]any) answer {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return ask(t, "POST", srv.URL()+"/graphql", token, "application/json", string(b))
}

func askGraphQLContext(ctx context.Context, t *testing.T, srv *Server, token, query string) answer {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	return askContext(ctx, t, "POST", srv.URL()+"/graphql", token, "application/json", string(b))
}

// askSubscription subscribes over the websocket and returns every message
// of the subscription until it completes or fails.
func askSubscription(t *testing.T, srv *Server, token, query string, vars map[string]any) answer {
	t.Helper()
	conn, err := dial(t, srv, nil, map[string]any{"token": token})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	var all []string
	for {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		_, raw, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v (so far %v)", err, all)
		}
		all = append(all, string(raw))
		var m wsMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message %s: %v", raw, err)
		}
		if m.Type == "complete" || m.Type == "error" {
			return answer{body: strings.Join(all, "\n")}
		}
	}
}

const oracleRelease = `apiVersion: manent/v1
kind: Release
id: oracle-release
deploys:
  - name: staging
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`

// TestUnreadableIsMissing asks, with an identity that may read nothing of
// hello, for a deploy, a release and a schedule of hello before they exist
// and again once they do: every answer must be the same, byte for byte, so
// that no answer tells another team's objects from missing ones.
func TestUnreadableIsMissing(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	outsider := demoTokens["outsider"]
	deployID := map[string]any{"id": "oracle-1"}
	releaseID := map[string]any{"id": "oracle-release"}
	rest := srv.URL() + "/api/v1/deployments/oracle-1"
	probes := []struct {
		name string
		ask  func(token string) answer
		// readable: a reader of hello gets another answer once the object
		// exists, which shows that the probe reaches it.
		readable bool
	}{
		{name: "GraphQL deployment", readable: true, ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `query($id: ID!) { deployment(id: $id) { id state } }`, deployID)
		}},
		{name: "GraphQL deployment logs", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `query($id: ID!) { deployment(id: $id) { logs { lastSeq } } }`, deployID)
		}},
		{name: "GraphQL cancel", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `mutation($id: ID!) { cancelDeployment(id: $id) { id state } }`, deployID)
		}},
		{name: "GraphQL approve", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `mutation($id: ID!) { approveDeployment(id: $id, comment: "ok") { id state } }`, deployID)
		}},
		{name: "GraphQL reject", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `mutation($id: ID!) { rejectDeployment(id: $id) { id state } }`, deployID)
		}},
		{name: "GraphQL deployment subscription", ask: func(tok string) answer {
			return askSubscription(t, srv, tok, `subscription($id: ID!) { deploymentEvents(id: $id) { kind } }`, deployID)
		}},
		{name: "GraphQL deployments", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `{ deployments { nodes { id } } }`, nil)
		}},
		{name: "REST status", readable: true, ask: func(tok string) answer {
			return ask(t, "GET", rest, tok, "", "")
		}},
		{name: "REST events", ask: func(tok string) answer {
			return ask(t, "GET", rest+"/events", tok, "", "")
		}},
		{name: "GraphQL release", readable: true, ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `query($id: ID!) { release(id: $id) { id state } }`, releaseID)
		}},
		{name: "GraphQL release cancel", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `mutation($id: ID!) { cancelRelease(id: $id) { id state } }`, releaseID)
		}},
		{name: "GraphQL release subscription", ask: func(tok string) answer {
			return askSubscription(t, srv, tok, `subscription($id: ID!) { releaseEvents(id: $id) { id state } }`, releaseID)
		}},
		{name: "GraphQL releases", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `{ releases { nodes { id } } }`, nil)
		}},
		{name: "GraphQL schedules", readable: true, ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `{ schedules { name } }`, nil)
		}},
		{name: "GraphQL schedule delete", ask: func(tok string) answer {
			return askGraphQL(t, srv, tok, `mutation { deleteSchedule(name: "hello-nightly") }`, nil)
		}},
	}
	missing := make([]answer, len(probes))
	for i, p := range probes {
		missing[i] = p.ask(outsider)
	}

	ci := demoTokens["ci"]
	if resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments", ci, fmt.Sprintf(helloDescriptor, "oracle-1")); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	if resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments", ci, fmt.Sprintf(nightlyDescriptor, "0 3 * * *")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("schedule: %d %s", resp.StatusCode, body)
	}
	if codes := graphQL(t, srv, ci, `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`, map[string]any{"d": oracleRelease}, nil); len(codes) > 0 {
		t.Fatalf("release: %v", codes)
	}

	for i, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			if got := p.ask(outsider); got != missing[i] {
				t.Errorf("unreadable answers\n%s\nmissing answers\n%s", got, missing[i])
			}
			if p.readable {
				if got := p.ask(ci); got == missing[i] {
					t.Errorf("a reader gets the missing answer too: the probe does not reach the object\n%s", got)
				}
			}
		})
	}
}
