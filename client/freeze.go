package client

import (
	"context"
	"time"
)

// FreezeCalendar returns the freeze windows of an environment from now for
// days days (the server cuts the range to 90); an empty tenant is the
// server's default one. NOT_FOUND when the caller may not read the
// environment, UNPROCESSABLE when its governance cannot list the windows.
func (c *Client) FreezeCalendar(ctx context.Context, tenant, application, environment string, days int) (*FreezeCalendar, error) {
	var to *time.Time
	if days > 0 {
		t := time.Now().UTC().Add(time.Duration(days) * 24 * time.Hour)
		to = &t
	}
	resp, err := GetFreezeCalendar(ctx, c.gql, tenant, application, environment, nil, to)
	if err != nil {
		return nil, err
	}
	return &resp.FreezeCalendar, nil
}
