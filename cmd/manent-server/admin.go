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
	admin.AddCommand(specsCommand(ctx, cfg))
	return admin
}

func specsCommand(ctx context.Context, cfg *server.Config) *cobra.Command {
	var hashes []string
	var all bool
	specs := &cobra.Command{
		Use:   "specs",
		Short: "list the deploys and schedules whose plans hold revoked custom step specifications (JSON)",
		Long: "Lists the workflows not concluded (queued, scheduled, waiting for approvals or dependencies,\n" +
			"running) and the schedules in force whose plan holds a custom step with a hash of\n" +
			"pipeline.custom.revoked_specs, or of --hash. --all lists every specification captured.\n" +
			"mismatch: true marks a plan whose specification does not hash to its recorded spec_hash.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			report, err := server.Specs(ctx, *cfg, hashes, all)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(report)
		},
	}
	specs.Flags().StringArrayVar(&hashes, "hash", nil, "spec_hash to look for instead of pipeline.custom.revoked_specs (repeatable)")
	specs.Flags().BoolVar(&all, "all", false, "list every specification captured in the plans")
	return specs
}
