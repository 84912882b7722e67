package config_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/yamltree"
)

func TestRetention(t *testing.T) {
	day := yamltree.Days(24 * time.Hour)
	for _, tc := range []struct {
		name string
		doc  string
		want config.Retention
		errs []string
	}{
		{name: "defaults", doc: "{}\n",
			want: config.Retention{Deployments: 90 * day, Logs: 30 * day, Audit: 400 * day, Dora: 730 * day}},
		{name: "days and Go durations", doc: "retention: {deployments: 365d, logs: 36h, audit: 30d}\n",
			want: config.Retention{Deployments: 365 * day, Logs: yamltree.Days(36 * time.Hour), Audit: 30 * day, Dora: 730 * day}},
		{name: "the facts of the DORA metrics", doc: "retention: {dora: 3650d}\n",
			want: config.Retention{Deployments: 90 * day, Logs: 30 * day, Audit: 400 * day, Dora: 3650 * day}},
		{name: "one key keeps the other defaults", doc: "retention: {logs: 7d}\n",
			want: config.Retention{Deployments: 90 * day, Logs: 7 * day, Audit: 400 * day, Dora: 730 * day}},
		{name: "below the floors", doc: "retention: {deployments: 1h, logs: 0d, audit: 29d, dora: 90d}\n", errs: []string{
			"retention.deployments: must be at least 1d",
			"retention.logs: must be at least 1d",
			"retention.audit: must be at least 30d",
			"retention.dora: must be at least 400d: the DORA metrics show up to 53 weeks",
		}},
		{name: "DORA facts go before their deploys", doc: "retention: {deployments: 800d}\n", errs: []string{
			"retention.dora: must not be shorter than retention.deployments: the metrics would forget deploys still listed",
		}},
		{name: "logs outlive their deploys", doc: "retention: {deployments: 10d, logs: 20d}\n", errs: []string{
			"retention.logs: must not be longer than retention.deployments: a deploy's log lines go with it",
		}},
		{name: "not durations", doc: "retention: {deployments: 90, logs: -3d, audit: +5d, bogus: 1d}\n", errs: []string{
			"retention.deployments: must be a duration such as 36h, 7d or 90d",
			"retention.logs: must be a duration such as 36h, 7d or 90d",
			"retention.audit: must be a duration such as 36h, 7d or 90d",
			"retention.bogus: unknown field (did you mean logs?)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.doc), t.TempDir())
			if tc.errs == nil {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if c.Retention != tc.want {
					t.Fatalf("retention = %+v, want %+v", c.Retention, tc.want)
				}
				return
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse error = %v, want a *config.Error", err)
			}
			var got []string
			for _, f := range ce.Fields {
				got = append(got, f.String())
			}
			for _, w := range tc.errs {
				if !slices.Contains(got, w) {
					t.Errorf("errors %q lack %q", got, w)
				}
			}
		})
	}
}
