package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"manent.dev/manent/server"
)

func adminCommand(ctx context.Context, cfg *server.Config) *cobra.Command {
	admin := &cobra.Command{Use: "admin", Short: "operations on a running installation"}
	var executors []string
	var force bool
	recover := &cobra.Command{
		Use:   "recover",
		Short: "take over the deploys of dead workers (prints what was taken over as JSON)",
		Long: "Fences each executor silent for engine.executor_timeout (or those named with --executor)\n" +
			"and puts its running deploys back on their queues, where live workers resume them from\n" +
			"their last completed step. A fenced process that wakes up stops at its next step.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			got, err := server.Recover(ctx, *cfg, executors, force)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"recovered": got})
		},
	}
	recover.Flags().StringArrayVar(&executors, "executor", nil, "executor ID to take over (repeatable; default: every silent one)")
	recover.Flags().BoolVar(&force, "force", false, "take over the named executors even if their heartbeat is recent")
	admin.AddCommand(recover)
	return admin
}
