package descriptor_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

func TestParseCallbacks(t *testing.T) {
	head := "apiVersion: manent/v1\napplication: hello\nenvironment: staging\n" +
		"artifact: {type: application, name: hello, version: 1.0.0, source: file:a.tgz}\n"
	var eleven strings.Builder
	eleven.WriteString("callbacks:\n")
	for i := range 11 {
		fmt.Fprintf(&eleven, "  - url: https://hooks.example.com/%d\n", i)
	}
	tests := []struct {
		name string
		doc  string
		want []deploy.Callback
		errs []string
	}{
		{name: "none", doc: head},
		{
			name: "events default to all, or the ones named",
			doc:  head + "callbacks:\n  - url: https://hooks.example.com/a?x=1\n  - {url: http://127.0.0.1:9000/, events: [finished, started]}\n",
			want: []deploy.Callback{
				{URL: "https://hooks.example.com/a?x=1"},
				{URL: "http://127.0.0.1:9000/", Events: []deploy.NoticeType{deploy.NoticeFinished, deploy.NoticeStarted}},
			},
		},
		{
			name: "every problem on its path, at once",
			doc: head + "callbacks:\n" +
				"  - {url: 'https://user:pw@hooks.example.com/', events: [started, done, started]}\n" +
				"  - {url: ftp://hooks.example.com/}\n" +
				"  - {url: https://hooks.example.com/x}\n" +
				"  - {url: https://hooks.example.com/x}\n" +
				"  - {events: [step]}\n" +
				"  - {url: 'https:///nohost'}\n",
			errs: []string{
				"callbacks[0].url: must not contain credentials: the receiver checks the signature (docs/callbacks.md)",
				"callbacks[0].events[1]: must be one of started, step, finished",
				"callbacks[0].events[2]: is listed twice",
				"callbacks[1].url: must be an http:// or https:// URL",
				"callbacks[3].url: is the URL of callbacks[2] already: list each URL once, with all its events",
				"callbacks[4].url: is required",
				"callbacks[5].url: must name a host",
			},
		},
		{name: "too many", doc: head + eleven.String(), errs: []string{"callbacks: at most 10 callbacks are allowed, found 11"}},
		{name: "not a list", doc: head + "callbacks: https://hooks.example.com/\n", errs: []string{"callbacks: must be a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if tt.errs != nil {
				var de *deploy.Error
				if !errors.As(err, &de) || de.Code != deploy.EINVALID {
					t.Fatalf("error %v, expected EINVALID", err)
				}
				var got []string
				for _, f := range de.Fields {
					got = append(got, f.Path+": "+f.Message)
				}
				if !reflect.DeepEqual(got, tt.errs) {
					t.Fatalf("errors\n got      %q\n expected %q", got, tt.errs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Callbacks, tt.want) {
				t.Errorf("callbacks %+v, expected %+v", d.Callbacks, tt.want)
			}
		})
	}
}
