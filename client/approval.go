package client

import "context"

// Approve records the caller's approval of a deploy AWAITING_APPROVAL and
// returns the deploy as it is after it (ENQUEUED once enough identities
// approved). NOT_FOUND, FORBIDDEN (no deployment.approve, the requester, not
// in the required groups), CONFLICT (not awaiting approval).
func (c *Client) Approve(ctx context.Context, id, comment string) (*DeploymentDetail, error) {
	resp, err := ApproveDeployment(ctx, c.gql, id, comment)
	if err != nil {
		return nil, err
	}
	return &resp.ApproveDeployment, nil
}

// Reject refuses a deploy AWAITING_APPROVAL: it ends REJECTED. Same errors
// as Approve.
func (c *Client) Reject(ctx context.Context, id, comment string) (*DeploymentDetail, error) {
	resp, err := RejectDeployment(ctx, c.gql, id, comment)
	if err != nil {
		return nil, err
	}
	return &resp.RejectDeployment, nil
}

// PendingApprovals lists the deploys awaiting an approval the caller may give.
func (c *Client) PendingApprovals(ctx context.Context) ([]PendingApproval, error) {
	resp, err := GetPendingApprovals(ctx, c.gql)
	if err != nil {
		return nil, err
	}
	return resp.PendingApprovals, nil
}
