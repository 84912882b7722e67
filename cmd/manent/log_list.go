package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

// logPage is how many lines one query asks for.
const logPage = 1000

func (a *app) logListCmd() *cobra.Command {
	var (
		follow  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print the log of a deploy; -f follows it live until the deploy ends",
		Long: `Print the log of a deploy. With -f, keep printing new lines live (through a
subscription, not by polling) until the deploy ends, then exit like deploy does:
0 on SUCCESS, 1 otherwise, 124 when --timeout elapses.

Table format: one line per log line, "TIME LEVEL STEP: MESSAGE". With -o json each
line is a JSON object on its own line (JSON Lines); with -o yaml each line is an
item of a YAML sequence.`,
		Example: `  manent logs hello-20250102-1
  manent logs -f hello-20250102-1
  manent logs hello-20250102-1 -o json | jq -r .message`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if timeout > 0 {
				if !follow {
					return &usageError{err: errors.New("--timeout needs -f")}
				}
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			return a.printLogs(ctx, args[0], follow, timeout)
		}),
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "follow the log until the deploy ends")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "with -f, stop after this long and exit 124")
	return cmd
}

func (a *app) printLogs(ctx context.Context, id string, follow bool, timeout time.Duration) error {
	c := a.client()
	last, state, err := a.readLogs(ctx, c, id, 0)
	if err != nil || !follow {
		return err
	}
	var final *client.DeploymentDetail
	if !client.Terminal(state) {
		final, err = c.Follow(ctx, id, func(e client.Event) error {
			for _, l := range e.LogLines {
				if err := a.printLogLine(l); err != nil {
					return err
				}
				last = l.Seq
			}
			return nil
		}, client.LogsAfter(last), client.OnReconnect(func(attempt int, err error) {
			if attempt == 1 || attempt%10 == 0 {
				a.progressf("lost the connection to %s (%s); reconnecting (attempt %d)", c.Server(), reason(err), attempt)
			}
		}))
		if err != nil {
			return followOutcome(id, final, err, timeout)
		}
		state = final.State
		// A server that ends the subscription with the final state may have
		// lines written after it: read them once.
		if _, _, err := a.readLogs(ctx, c, id, last); err != nil {
			return err
		}
	}
	if state != client.DeploymentStateSuccess {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("deployment %s ended %s", id, state)}
	}
	return nil
}

// readLogs prints every line after seq, page by page, and returns the last
// sequence number and the deploy's state.
func (a *app) readLogs(ctx context.Context, c *client.Client, id string, seq int) (int, client.DeploymentState, error) {
	for {
		d, err := c.Logs(ctx, id, seq, logPage)
		if err != nil {
			return seq, "", err
		}
		advanced := false
		for _, l := range d.Logs.Lines {
			if l.Seq <= seq {
				continue
			}
			if err := a.printLogLine(l); err != nil {
				return seq, "", err
			}
			seq, advanced = l.Seq, true
		}
		if len(d.Logs.Lines) < logPage || !advanced {
			return seq, d.State, nil
		}
	}
}

// logLineView is a log line in JSON and YAML.
type logLineView struct {
	Seq     int    `json:"seq"`
	Time    string `json:"time"`
	Step    string `json:"step,omitempty"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

func (a *app) printLogLine(l client.LogLineDetail) error {
	v := logLineView{Seq: l.Seq, Time: l.Time.UTC().Format(time.RFC3339Nano), Step: l.Step, Level: l.Level, Message: l.Message}
	switch a.format {
	case formatJSON:
		// One object per line (JSON Lines), so a follow streams.
		return writeJSONLine(a.stdout, v)
	case formatYAML:
		// One item per line: the output read as a whole is one sequence.
		return writeYAML(a.stdout, []logLineView{v})
	}
	return writeLogText(a.stdout, l)
}

// writeLogText writes a log line as one line of text: what the server
// sent is escaped, so a message cannot print a line of its own.
func writeLogText(w io.Writer, l client.LogLineDetail) error {
	msg := l.Message
	if l.Step != "" {
		msg = l.Step + ": " + msg
	}
	_, err := fmt.Fprintf(w, "%s %-5s %s\n", l.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
		deploy.EscapeText(strings.ToUpper(l.Level)), deploy.EscapeText(msg))
	return err
}
