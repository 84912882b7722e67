package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"manent.dev/manent/server"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3"
// (manent_build_info shows it; without it, the module's version).
var version string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := server.Config{Logger: log, Role: server.RoleAll, EmbeddedPostgres: true, DataDir: ".manent", Version: version}
	root := &cobra.Command{Use: "manent-server", Short: "manent's API and deploy workers", SilenceUsage: true}
	root.PersistentFlags().StringVarP(&cfg.ConfigPath, "config", "c", "manent.yml", "manent.yml to load")
	serve := &cobra.Command{Use: "serve", Short: "serve the APIs and run deploys", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return run(ctx, cfg, false) }}
	serve.Flags().StringVar(&cfg.Role, "role", server.RoleAll, "all, api or worker")
	serve.Flags().StringVar(&cfg.Listen, "listen", "", "listen address (overrides server.listen)")
	var demoCDN, devOIDC string
	dev := &cobra.Command{Use: "dev", Short: "serve the demo configuration and print its tokens", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("config") {
				cfg.ConfigPath = "examples/manent.yml"
			}
			cfg.DemoCDN, cfg.DevOIDC = demoCDN, devOIDC
			// The demo's environments deploy under .manent/targets.
			cfg.DemoTargets = filepath.Join(cfg.DataDir, "targets")
			cfg.Dev = true
			return run(ctx, cfg, true)
		}}
	dev.Flags().StringVar(&cfg.Listen, "listen", "", "listen address (overrides server.listen)")
	// Not cfg.DemoCDN itself: the flag's default would reach serve.
	dev.Flags().StringVar(&demoCDN, "demo-cdn-listen", "127.0.0.1:8443",
		"loopback address of the demo CDN, which the demo's cdn-purge step calls over TLS (empty: none)")
	dev.Flags().StringVar(&devOIDC, "oidc-listen", "127.0.0.1:0",
		"loopback address of the development OIDC provider, with the demo users alice, bob and carol (empty: none)")
	migrate := &cobra.Command{Use: "migrate", Short: "migrate the database and exit", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return server.Migrate(ctx, cfg) }}
	root.AddCommand(serve, dev, migrate, adminCommand(ctx, &cfg))
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg server.Config, demo bool) error {
	srv, err := server.Main(ctx, cfg)
	if err != nil {
		return err
	}
	if demo {
		fmt.Printf("manent is serving on %s\n\n  export MANENT_SERVER=%s\n\n", srv.URL(), srv.URL())
		fmt.Println("  demo tokens: demo-admin (everything), demo-ci (submit, read, cancel the demo), demo-viewer (read only)")
		if p := srv.DevOIDC(); p != nil {
			fmt.Printf("\n  development OIDC provider: %s (issuer; made for this run, gone when it stops)\n", p.Issuer())
			for _, u := range p.Users() {
				fmt.Printf("    %-6s password %s  %s\n", u.Name, u.Password, u.Role)
			}
		}
	}
	// SIGHUP puts manent.yml's rbac in force again (a permission removed
	// stops the next event of every subscription that needed it).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer func() { signal.Stop(hup); close(hup) }()
	go func() {
		for range hup {
			if err := srv.ReloadRBAC(); err != nil {
				cfg.Logger.Error("rbac not reloaded: the policy in force stays", "error", err)
			}
		}
	}()
	err = srv.Run(ctx)
	return errors.Join(err, srv.Close())
}
