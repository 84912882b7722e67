package server

import (
	"context"
	"errors"
	"fmt"
	"os"

	"manent.dev/manent/config"
	"manent.dev/manent/engine"
)

// Recover takes over the deploys of dead workers, as the workers do by
// themselves when engine.auto_recover is on: the executors named (every
// executor silent for engine.executor_timeout when none is), also live-looking
// ones when force. It runs no deploy itself: the workers pick them up.
func Recover(ctx context.Context, c Config, executorIDs []string, force bool) (_ []engine.Recovered, err error) {
	c = c.withDefaults()
	cfg, err := config.Load(c.ConfigPath)
	if err != nil {
		return nil, err
	}
	if force && len(executorIDs) == 0 {
		return nil, errors.New("--force needs --executor: name the executors you know to be dead")
	}
	host, _ := os.Hostname()
	// The fence records who took over: this admin command, not a worker.
	cfg.Server.ExecutorID = fmt.Sprintf("admin@%s:%d", host, os.Getpid())
	s := &Server{log: c.Logger}
	defer func() { err = errors.Join(err, s.Close()) }()
	db, err := s.openDatabase(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	plugins, err := s.plugins(cfg, c.Dev)
	if err != nil {
		return nil, err
	}
	// It runs no step: the keys that check specifications are the workers'.
	_, eng, err := newCore(ctx, cfg, db, s.databaseURL, plugins, nil, false, s.log)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, eng.Shutdown(engineShutdown)) }()
	return eng.RecoverExecutors(ctx, executorIDs, force)
}
