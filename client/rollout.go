package client

import "context"

// PauseRollout asks a running rollout to pause after the batch in flight.
// Errors: NOT_FOUND, FORBIDDEN, UNPROCESSABLE (the reason), CONFLICT (not
// running, already paused, a request pending).
func (c *Client) PauseRollout(ctx context.Context, id, reason string) (*DeploymentDetail, error) {
	resp, err := PauseRollout(ctx, c.gql, id, reason)
	if err != nil {
		return nil, err
	}
	return &resp.PauseRollout, nil
}

// ResumeRollout resumes a paused rollout. Same errors (CONFLICT when it is
// not paused).
func (c *Client) ResumeRollout(ctx context.Context, id, comment string) (*DeploymentDetail, error) {
	resp, err := ResumeRollout(ctx, c.gql, id, comment)
	if err != nil {
		return nil, err
	}
	return &resp.ResumeRollout, nil
}

// AbortRollout aborts a rollout; the deploy fails and its rollback policy
// decides the rest. Same errors.
func (c *Client) AbortRollout(ctx context.Context, id, reason string) (*DeploymentDetail, error) {
	resp, err := AbortRollout(ctx, c.gql, id, reason)
	if err != nil {
		return nil, err
	}
	return &resp.AbortRollout, nil
}
