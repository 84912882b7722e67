package descriptor

import (
	"net/url"
	"slices"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// MaxCallbacks bounds a descriptor's callbacks: each event is delivered to
// every one of them, so a long list multiplies the server's outbound work.
const MaxCallbacks = 10

// MaxCallbackURL bounds a callback's URL.
const MaxCallbackURL = 2048

type rawCallback struct {
	URL    string   `yaml:"url"`
	Events []string `yaml:"events"`
}

// checkCallbacks checks the form of the callbacks; whether a URL may be
// called is manent.yml's callbacks policy, checked by the service.
func checkCallbacks(errs *yamltree.Errors, cbs []rawCallback) {
	if len(cbs) > MaxCallbacks {
		errs.Add("callbacks", "at most %d callbacks are allowed, found %d", MaxCallbacks, len(cbs))
		return
	}
	seen := map[string]int{}
	for i, c := range cbs {
		p := yamltree.Index("callbacks", i)
		if msg := CallbackURLProblem(c.URL); msg != "" {
			if !errs.Bad(p + ".url") {
				errs.Add(p+".url", "%s", msg)
			}
		} else if j, dup := seen[c.URL]; dup {
			errs.Add(p+".url", "is the URL of callbacks[%d] already: list each URL once, with all its events", j)
		} else {
			seen[c.URL] = i
		}
		for k, ev := range c.Events {
			switch {
			case !slices.Contains(deploy.CallbackNotices, deploy.NoticeType(ev)):
				errs.Add(yamltree.Index(p+".events", k), "must be one of started, step, finished")
			case slices.Index(c.Events, ev) < k:
				errs.Add(yamltree.Index(p+".events", k), "is listed twice")
			}
		}
	}
}

// CallbackURLProblem says what is wrong with the form of a callback URL,
// "" if nothing. Credentials are refused: the receiver authenticates
// manent by the signature, and a URL is shown in every status.
func CallbackURLProblem(raw string) string {
	switch {
	case raw == "":
		return msgRequired
	case len(raw) > MaxCallbackURL:
		return "must be at most 2048 bytes"
	case strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "must not contain spaces or control characters"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https"):
		return "must be an http:// or https:// URL"
	case u.Host == "" || u.Hostname() == "":
		return "must name a host"
	case u.User != nil:
		return "must not contain credentials: the receiver checks the signature (docs/callbacks.md)"
	case u.Fragment != "":
		return "must not have a fragment"
	}
	return ""
}

func callbacks(cbs []rawCallback) []deploy.Callback {
	if len(cbs) == 0 {
		return nil
	}
	out := make([]deploy.Callback, len(cbs))
	for i, c := range cbs {
		out[i] = deploy.Callback{URL: c.URL}
		for _, ev := range c.Events {
			out[i].Events = append(out[i].Events, deploy.NoticeType(ev))
		}
	}
	return out
}
