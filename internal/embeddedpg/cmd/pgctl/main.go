package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"manent.dev/manent/internal/embeddedpg"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pgctl:", err)
		os.Exit(1)
	}
}

const usage = "usage: pgctl start|stop|remove --dir DIR [--port N] [--ephemeral] [--bin DIR] | pgctl remove-binaries [--bin DIR]"

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("pgctl "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "data directory of the cluster")
	port := fs.Int("port", 0, "TCP port on 127.0.0.1 (0: a free one)")
	ephemeral := fs.Bool("ephemeral", false, "fast, non-durable settings; stop removes the cluster")
	bin := fs.String("bin", "", "directory of initdb and postgres (default: node_modules found upward)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" && cmd != "remove-binaries" {
		return errors.New(usage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := embeddedpg.Options{
		DataDir: *dir, Port: *port, BinDir: *bin, Ephemeral: *ephemeral,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
	}
	switch cmd {
	case "start":
		opts.Detach = true
		inst, err := embeddedpg.Start(ctx, opts)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, inst.URL("postgres"))
		return err
	case "stop":
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		return embeddedpg.Shutdown(ctx, opts)
	case "remove":
		// The cluster goes, durable or not, wherever it lives: the
		// checkout's `make clean`.
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		return embeddedpg.Remove(ctx, opts)
	case "remove-binaries":
		removed, err := embeddedpg.RemoveBinaries(*bin)
		if err != nil || removed == "" {
			return err
		}
		_, err = fmt.Fprintln(stdout, "removed", removed)
		return err
	default:
		return errors.New(usage)
	}
}
