package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

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
	_, eng, err := newCore(ctx, cfg, db, s.databaseURL, plugins, nil, nil, false, nil, s.log)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, eng.Shutdown(engineShutdown)) }()
	return eng.RecoverExecutors(ctx, executorIDs, force)
}

// SpecsReport is what `manent-server admin specs` prints: the hashes it
// looked for and where they are still to run.
type SpecsReport struct {
	Hashes []string  `json:"hashes"`
	Uses   []SpecUse `json:"uses"`
}

// SpecUse is one custom step of a plan still to run (see engine.SpecUse).
type SpecUse struct {
	Kind        string `json:"kind"`
	ID          string `json:"id"`
	Workflow    string `json:"workflow,omitempty"`
	Status      string `json:"status"`
	Application string `json:"application"`
	Environment string `json:"environment"`
	Step        string `json:"step"`
	SpecHash    string `json:"spec_hash"`
	// Mismatch: the captured specification does not hash to spec_hash.
	Mismatch bool `json:"mismatch,omitempty"`
}

// Specs lists the workflows not concluded and the schedules in force whose
// plans hold a custom step with one of the hashes: those given, else the
// configuration's pipeline.custom.revoked_specs; with all, every
// specification captured in them, and Hashes lists the hashes found. A use
// whose recorded hash is not its specification's is listed, marked
// Mismatch, when either hash is looked for (always with all).
func Specs(ctx context.Context, c Config, hashes []string, all bool) (_ SpecsReport, err error) {
	c = c.withDefaults()
	cfg, err := config.Load(c.ConfigPath)
	if err != nil {
		return SpecsReport{}, err
	}
	if all && len(hashes) > 0 {
		return SpecsReport{}, errors.New("--all lists every specification: give it without --hash")
	}
	for _, h := range hashes {
		if !specHashPattern.MatchString(h) {
			return SpecsReport{}, fmt.Errorf("--hash %q: a spec_hash is 64 lowercase hexadecimal digits", h)
		}
	}
	if len(hashes) == 0 && !all {
		hashes = cfg.Pipeline.Custom.RevokedSpecs
	}
	s := &Server{log: c.Logger}
	defer func() { err = errors.Join(err, s.Close()) }()
	db, err := s.openDatabase(ctx, c, cfg)
	if err != nil {
		return SpecsReport{}, err
	}
	plugins, err := s.plugins(cfg, c.Dev)
	if err != nil {
		return SpecsReport{}, err
	}
	_, eng, err := newCore(ctx, cfg, db, s.databaseURL, plugins, nil, nil, false, nil, s.log)
	if err != nil {
		return SpecsReport{}, err
	}
	defer func() { err = errors.Join(err, eng.Shutdown(engineShutdown)) }()
	wanted := map[string]bool{}
	for _, h := range hashes {
		wanted[h] = true
	}
	var match func(string) bool
	if !all {
		match = func(h string) bool { return wanted[h] }
	}
	uses, err := eng.SpecUses(ctx, match)
	if err != nil {
		return SpecsReport{}, err
	}
	out := SpecsReport{Hashes: slices.Clone(hashes), Uses: make([]SpecUse, len(uses))}
	for i, u := range uses {
		out.Uses[i] = SpecUse{Kind: u.Kind, ID: u.ID, Workflow: u.Workflow, Status: u.Status, Application: u.Application,
			Environment: u.Environment, Step: u.Step, SpecHash: u.SpecHash, Mismatch: u.Mismatch}
		if all && !slices.Contains(out.Hashes, u.SpecHash) {
			out.Hashes = append(out.Hashes, u.SpecHash)
		}
	}
	if out.Hashes == nil {
		out.Hashes = []string{}
	}
	slices.Sort(out.Hashes)
	return out, nil
}

var specHashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
