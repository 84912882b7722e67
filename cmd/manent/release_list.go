package main

import (
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) releaseListCmd() *cobra.Command {
	limit := 50
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the releases whose every deploy you may read, newest first",
		Args:  noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			rs, err := a.client().Releases(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if rs == nil {
				rs = []client.ReleaseDetail{}
			}
			return a.emit(toReleaseViews(rs), func(w io.Writer) error {
				tw := newTable(w)
				row(tw, "ID", "STATE", "ON FAILURE", "DEPLOYS", "CREATED", "REQUESTER")
				for _, r := range rs {
					row(tw, r.Id, string(r.State), r.OnFailure, strconv.Itoa(len(r.Deploys)), timestamp(r.CreatedAt), r.Requester)
				}
				return tw.Flush()
			})
		}),
	}
	cmd.Flags().IntVar(&limit, "limit", limit, "how many releases to list")
	return cmd
}
