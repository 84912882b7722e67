package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

// TestTokenSource: with WithTokenSource, every request and every
// websocket connection asks the source for its token (a login refreshed
// during a long follow), and an error of the source is the caller's own,
// never a server out of reach, and is not retried.
func TestTokenSource(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetViewer", func(r clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"viewer": map[string]any{"subject": "oidc:" + r.Authorization, "groups": []string{}}}, nil
	})
	var mu sync.Mutex
	tokens := []string{"first", "second"}
	var failure error
	source := func(context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if failure != nil {
			return "", failure
		}
		tok := tokens[0]
		if len(tokens) > 1 {
			tokens = tokens[1:]
		}
		return tok, nil
	}
	c := client.New(srv.URL, "stale", client.WithTokenSource(source))
	for _, want := range []string{"oidc:Bearer first", "oidc:Bearer second"} {
		v, err := c.Viewer(context.Background())
		if err != nil || v.Subject != want {
			t.Fatalf("viewer = %+v, %v; want %s", v, err, want)
		}
	}

	// The websocket's connection_init carries the source's token too: the
	// server takes only it.
	srv.Token = "second"
	srv.HandleSubscription("DeploymentEvents", func(_ context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		return s.Next(event("deployment", detail("d1", client.DeploymentStateSuccess)))
	})
	d, err := c.Follow(context.Background(), "d1", func(client.Event) error { return nil })
	if err != nil || d.State != client.DeploymentStateSuccess {
		t.Fatalf("follow: %+v %v", d, err)
	}

	mu.Lock()
	failure = errors.New("the stored sign-in has expired")
	mu.Unlock()
	_, err = c.Viewer(context.Background())
	var unreachable *client.UnreachableError
	if !errors.Is(err, failure) || errors.As(err, &unreachable) {
		t.Fatalf("viewer with a failing source: %v", err)
	}
	if _, err := c.Follow(context.Background(), "d1", func(client.Event) error { return nil }); !errors.Is(err, failure) {
		t.Fatalf("follow with a failing source: %v", err)
	}
}
