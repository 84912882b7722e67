package placeholder

import (
	"errors"
	"fmt"
	"strings"

	"manent.dev/manent/deploy"
)

// maxArg is the longest argument a command may get, in bytes: Linux refuses
// to start a program with a longer one (MAX_ARG_STRLEN, 128 KiB with its
// terminating NUL), and a clear error beats an E2BIG from the target.
const maxArg = 128<<10 - 1

// CheckCommand holds a command of manent.yml to the rules of the
// specification: at least one element, the first an absolute path written
// without placeholders, every other one a template in s. No element may
// hold a NUL, which no argument of a program can carry. A *PartError says
// which element is wrong.
func CheckCommand(argv []string, s Scope) error {
	if err := checkProgram(argv); err != nil {
		return err
	}
	for i, a := range argv[1:] {
		if err := checkArg(a, s); err != nil {
			return &PartError{Path: fmt.Sprintf("[%d]", i+1), Err: err}
		}
	}
	return nil
}

func checkProgram(argv []string) error {
	if len(argv) == 0 {
		return errors.New("a command needs at least the program to run")
	}
	prog := argv[0]
	var err error
	switch {
	case strings.Contains(prog, "{{"):
		err = errors.New("the program must be written without placeholders")
	case !strings.HasPrefix(prog, "/"):
		err = errors.New("the program must be an absolute path (/opt/tools/migrate): the command is never looked up in $PATH")
	default:
		if why := deploy.UnsafeText(prog, ""); why != "" {
			err = fmt.Errorf("the program holds %s", why)
		}
	}
	if err != nil {
		return &PartError{Path: "[0]", Err: err}
	}
	return nil
}

func checkArg(a string, s Scope) error {
	if strings.ContainsRune(a, 0) {
		return errors.New("an argument cannot hold a NUL")
	}
	return Check(a, s)
}

// Command is argv filled with v, one argument for each element written.
// A value may not hold a control character (C0, DEL, C1, the line and
// paragraph separators, the controls of bidirectional text) nor bytes that
// are not UTF-8, may not make an argument empty, and may not make one start
// with "-" when the written one does not: -oProxyCommand=... would be read
// as an option. A *PartError says which element is wrong.
func Command(argv []string, v Values) ([]string, error) {
	if err := checkProgram(argv); err != nil {
		return nil, err
	}
	out := make([]string, len(argv))
	out[0] = argv[0]
	for i, a := range argv[1:] {
		arg, err := renderArg(a, v)
		if err != nil {
			return nil, &PartError{Path: fmt.Sprintf("[%d]", i+1), Err: err}
		}
		out[i+1] = arg
	}
	return out, nil
}

func renderArg(a string, v Values) (string, error) {
	if strings.ContainsRune(a, 0) {
		return "", errors.New("an argument cannot hold a NUL")
	}
	t, err := parseTemplate(a)
	if err != nil {
		return "", err
	}
	arg, err := t.render(v, func(r *ref, val string) (string, error) {
		if why := deploy.UnsafeText(val, ""); why != "" {
			return "", refused("%s: the value holds %s", r.name, why)
		}
		return val, nil
	})
	switch {
	case err != nil:
		return "", err
	case arg == "" && a != "":
		return "", refused("the values make the argument empty")
	case strings.HasPrefix(arg, "-") && !strings.HasPrefix(a, "-"):
		return "", refused("a value makes the argument start with \"-\", which would be read as an option: write the option (--name={{ ... }}) in the command")
	case len(arg) > maxArg:
		return "", refused("the argument is %d bytes long, more than the %d a program can get", len(arg), maxArg)
	}
	return arg, nil
}
