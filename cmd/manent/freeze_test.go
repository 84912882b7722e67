package main

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

func TestFreezes(t *testing.T) {
	sunday := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
	w := func(d int) client.FreezeWindowDetail {
		s := sunday.AddDate(0, 0, 7*d)
		return client.FreezeWindowDetail{Rule: "sunday", Start: s, End: s.Add(24 * time.Hour), Recurring: true, Cron: "0 0 * * SUN", TimeZone: "UTC"}
	}
	first, second := w(0), w(1)
	cal := client.FreezeCalendar{Next: &first, Windows: []client.FreezeWindowDetail{first, second},
		From: sunday.Add(-72 * time.Hour), To: sunday.AddDate(0, 0, 27)}
	srv := clienttest.New(t)
	var got clienttest.Request
	srv.Handle("GetFreezeCalendar", func(r clienttest.Request) (any, *clienttest.Error) {
		got = r
		return map[string]any{"freezeCalendar": cal}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "freezes", "hello", "prod")
	want := "Not frozen. Next freeze 2026-05-17T00:00:00Z, by sunday.\n\n" +
		"WINDOW  START                 END                   SCHEDULE\n" +
		"sunday  2026-05-17T00:00:00Z  2026-05-18T00:00:00Z  0 0 * * SUN (UTC)\n" +
		"sunday  2026-05-24T00:00:00Z  2026-05-25T00:00:00Z  0 0 * * SUN (UTC)\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	if v := got.Variables; v["application"] != "hello" || v["environment"] != "prod" || v["from"] != nil || v["to"] == nil {
		t.Errorf("variables = %v", v)
	}

	cal.FrozenNow, cal.Next = &first, &second
	r = runCLI(t, env, "", "freezes", "hello", "prod", "--days", "7", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"frozen_now": {`) || !strings.Contains(r.stdout, `"cron": "0 0 * * SUN"`) {
		t.Fatalf("json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, args := range [][]string{{"freezes", "hello"}, {"freezes", "hello", "prod", "--days", "91"}} {
		if r := runCLI(t, env, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, r.code, r.stderr)
		}
	}
}
