package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

type viewerView struct {
	Subject string   `json:"subject"`
	Groups  []string `json:"groups"`
	Server  string   `json:"server"`
}

func (a *app) viewerGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show the identity the token stands for",
		Args:  noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			c := a.client()
			v, err := c.Viewer(cmd.Context())
			if err != nil {
				return err
			}
			view := viewerView{Subject: v.Subject, Groups: nonNilStrings(v.Groups), Server: c.Server()}
			return a.emit(view, func(w io.Writer) error {
				tw := newTable(w)
				row(tw, "Identity", view.Subject)
				row(tw, "Groups", strings.Join(view.Groups, ", "))
				row(tw, "Server", view.Server)
				if err := tw.Flush(); err != nil {
					return fmt.Errorf("write: %w", err)
				}
				return nil
			})
		}),
	}
}
