package main

import (
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) releaseStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "status ID",
		Short:   "Show a release: its deploys with their states, rollback states and exports",
		Example: "  manent release status shop-2026-10 -o json",
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			c := a.client()
			r, err := c.Release(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			exports, err := c.ReleaseExports(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			v := newReleaseStatus(r, exports)
			return a.emit(v.view, func(w io.Writer) error { return writeReleaseStatus(w, v) })
		}),
	}
}

// releaseStatus is a release with the exports of each of its deploys, which
// the release itself does not carry: read from each deploy.
type releaseStatus struct {
	detail  *client.ReleaseDetail
	exports map[string][]client.Export
	view    releaseView
}

func newReleaseStatus(r *client.ReleaseDetail, exports map[string][]client.Export) releaseStatus {
	v := releaseStatus{detail: r, exports: exports, view: toReleaseView(r)}
	for i, d := range r.Deploys {
		es := exports[d.Name]
		if es == nil {
			es = []client.Export{}
		}
		v.view.Deploys[i].Exports = &es
	}
	return v
}

// writeReleaseStatus prints the release, then its exports when it has some.
func writeReleaseStatus(w io.Writer, v releaseStatus) error {
	if err := writeRelease(w, v.detail); err != nil {
		return err
	}
	found := false
	for _, es := range v.exports {
		found = found || len(es) > 0
	}
	if !found {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	tw := newTable(w)
	row(tw, "DEPLOY", "EXPORT", "FORMAT", "VALUE")
	for _, d := range v.detail.Deploys {
		for _, e := range v.exports[d.Name] {
			row(tw, d.Name, e.Name, e.Format, exportValue(e))
		}
	}
	return tw.Flush()
}
