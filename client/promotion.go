package client

import "context"

// Promote submits the promotion of the deploy id to the environment to;
// newID names the new deploy ("" lets the server name it).
func (c *Client) Promote(ctx context.Context, id, to, newID string) (*DeploymentDetail, error) {
	resp, err := Promote(ctx, c.gql, id, to, newID)
	if err != nil {
		return nil, err
	}
	return &resp.Promote, nil
}

// Redeploy submits the descriptor of the ended deploy id again in its
// environment.
func (c *Client) Redeploy(ctx context.Context, id, newID string) (*DeploymentDetail, error) {
	resp, err := Redeploy(ctx, c.gql, id, newID)
	if err != nil {
		return nil, err
	}
	return &resp.Redeploy, nil
}
