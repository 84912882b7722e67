package client

import (
	"context"

	"github.com/Khan/genqlient/graphql"

	"manent.dev/manent/deploy"
)

// SubmitRelease submits a kind: Release document whose deploys' descriptors
// are inline (see InlineReleaseFiles in the CLI); resubmitting returns the
// existing release.
func (c *Client) SubmitRelease(ctx context.Context, doc []byte) (*ReleaseDetail, error) {
	resp, err := SubmitRelease(ctx, c.gql, string(doc))
	if err != nil {
		return nil, err
	}
	return &resp.SubmitRelease, nil
}

// releaseNotFound is what the server answers for a release it does not
// show, for the release query, which answers null.
func releaseNotFound(id string) error {
	return &APIError{Code: deploy.ENOTFOUND, Message: deploy.ReleaseNotFound(id).Message}
}

// Release returns a release; NOT_FOUND when it does not exist or is not
// fully readable.
func (c *Client) Release(ctx context.Context, id string) (*ReleaseDetail, error) {
	resp, err := GetRelease(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	if resp.Release == nil {
		return nil, releaseNotFound(id)
	}
	return resp.Release, nil
}

// ReleaseExports returns the exports of a release's deploys by deploy name;
// a deploy not queued yet, or without exports, has none. NOT_FOUND as Release.
func (c *Client) ReleaseExports(ctx context.Context, id string) (map[string][]Export, error) {
	resp, err := ReleaseExports(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	if resp.Release == nil {
		return nil, releaseNotFound(id)
	}
	out := make(map[string][]Export, len(resp.Release.Deploys))
	for _, d := range resp.Release.Deploys {
		if d.Deployment != nil && len(d.Deployment.Exports) > 0 {
			out[d.Name] = d.Deployment.Exports
		}
	}
	return out, nil
}

// releasePage is the most releases one ListReleases asks for: each counts
// its members (up to deploy.MaxReleaseDeploys) in the server's complexity
// limit.
const releasePage = 50

// Releases returns up to limit releases, newest first.
func (c *Client) Releases(ctx context.Context, limit int) ([]ReleaseDetail, error) {
	var out []ReleaseDetail
	after := ""
	for len(out) < limit {
		resp, err := ListReleases(ctx, c.gql, min(limit-len(out), releasePage), after)
		if err != nil {
			return nil, err
		}
		out = append(out, resp.Releases.Nodes...)
		if !resp.Releases.PageInfo.HasNextPage {
			break
		}
		after = resp.Releases.PageInfo.EndCursor
	}
	return out, nil
}

// CancelRelease stops a release and cancels its unfinished deploys.
func (c *Client) CancelRelease(ctx context.Context, id string) (*ReleaseDetail, error) {
	resp, err := CancelRelease(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	return &resp.CancelRelease, nil
}

// Rollback redeploys the previous release in service of an environment
// (or the deploy to) and returns the rollback deploy.
func (c *Client) Rollback(ctx context.Context, tenant, application, environment, to string) (*DeploymentDetail, error) {
	resp, err := Rollback(ctx, c.gql, application, environment, tenant, to)
	if err != nil {
		return nil, err
	}
	return &resp.Rollback, nil
}

// ReleaseTerminal reports whether a release has ended.
func ReleaseTerminal(s ReleaseState) bool { return s != "" && s != ReleaseStatePending }

// FollowRelease delivers the release at every change until it ends (or
// ctx ends, or onEvent fails), reconnecting like Follow, and returns the
// last state seen.
func (c *Client) FollowRelease(ctx context.Context, id string, onEvent func(ReleaseDetail) error, opts ...FollowOption) (*ReleaseDetail, error) {
	o := followOptions{}
	for _, f := range opts {
		f(&o)
	}
	var last *ReleaseDetail
	handle := func(m ReleaseEventsWsResponse) (bool, error) {
		if len(m.Errors) > 0 {
			return false, apiErrorFrom(m.Errors)
		}
		if m.Data == nil {
			return false, nil
		}
		r := m.Data.ReleaseEvents
		last = &r
		if err := onEvent(r); err != nil {
			return false, &handlerError{err}
		}
		return ReleaseTerminal(r.State), nil
	}
	err := c.reconnecting(ctx, o.onReconnect, func(ctx context.Context) (bool, bool, error) {
		return runSession(ctx, c, func(ctx context.Context, wsc graphql.WebSocketClient) (chan ReleaseEventsWsResponse, string, error) {
			return ReleaseEvents(ctx, wsc, id)
		}, handle)
	})
	return last, err
}
