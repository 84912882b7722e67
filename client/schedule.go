package client

import "context"

// Schedules returns the recurring schedules the caller may read, by name.
func (c *Client) Schedules(ctx context.Context) ([]ScheduleDetail, error) {
	resp, err := ListSchedules(ctx, c.gql)
	if err != nil {
		return nil, err
	}
	return resp.Schedules, nil
}

// DeleteSchedule stops a recurring schedule; the deploys its ticks started
// go on. NOT_FOUND, FORBIDDEN (needs deployment.submit).
func (c *Client) DeleteSchedule(ctx context.Context, name string) error {
	_, err := DeleteSchedule(ctx, c.gql, name)
	return err
}
