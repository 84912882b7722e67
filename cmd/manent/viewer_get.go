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
	// Credentials say where the token came from: --token, MANENT_TOKEN,
	// the stored login of manent login, or none.
	Credentials string `json:"credentials"`
}

// Where the token of a command comes from.
const (
	credentialsFlag  = "--token"
	credentialsEnv   = envToken
	credentialsLogin = "manent login"
	credentialsNone  = "none"
)

func (a *app) credentials(cmd *cobra.Command) string {
	switch {
	case a.fromLogin:
		return credentialsLogin
	case a.token == "":
		return credentialsNone
	case cmd.Flags().Changed("token"):
		return credentialsFlag
	}
	return credentialsEnv
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
			view := viewerView{Subject: v.Subject, Groups: nonNilStrings(v.Groups), Server: c.Server(), Credentials: a.credentials(cmd)}
			return a.emit(view, func(w io.Writer) error {
				tw := newTable(w)
				row(tw, "Identity", view.Subject)
				row(tw, "Groups", strings.Join(view.Groups, ", "))
				row(tw, "Server", view.Server)
				row(tw, "Credentials", view.Credentials)
				if err := tw.Flush(); err != nil {
					return fmt.Errorf("write: %w", err)
				}
				return nil
			})
		}),
	}
}
