package mask

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// benchOutput is about 1 MiB of a command's output: log lines of 60 to 200
// bytes, one in 16 showing one of the secrets, as written, in base64 or
// JSON-escaped, the rest ordinary text with the odd escape, %, and \.
func benchOutput(secrets []string) string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "2026-10-14T10:%02d:%02d.%03dZ migrate: applied step %d of %d on table_%d", i/60%60, i%60, i%1000, i, 1<<20, i%97)
		switch s := secrets[i%len(secrets)]; {
		case i%16 == 0:
			b.WriteString(" dsn=postgres://migrator:" + s + "@db:5432/shop")
		case i%16 == 5:
			b.WriteString(" auth=Basic " + base64.StdEncoding.EncodeToString([]byte("migrator:"+s)))
		case i%16 == 9:
			fmt.Fprintf(&b, ` {"password":%q}`, s)
		case i%4 == 1:
			b.WriteString(` path=C:\tools\migrate.exe rate=95% url=/a%20b?c=d%2Fe`)
		default:
			b.WriteString(strings.Repeat(" the quick brown fox", 1+i%6))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkMask is the cost of masking a run's whole output (1 MiB, three
// secrets) through a LineWriter, in chunks of 32 KiB as SSH delivers them.
func BenchmarkMask(b *testing.B) {
	secrets := []string{"s3cr3t-P@ss/w+rd=?&%", "eyJhbGciOiJIUzI1NiJ9.payload.sig", "naïve-ünï€-😀-ok"}
	m, err := New(map[string]string{"a": secrets[0], "b": secrets[1], "c": secrets[2]})
	if err != nil {
		b.Fatal(err)
	}
	out := []byte(benchOutput(secrets))
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		lines := 0
		w := m.Writer(func(string) { lines++ }, Limits{Total: 2 << 20})
		for chunk := out; len(chunk) > 0; {
			n := min(len(chunk), 32<<10)
			if _, err := w.Write(chunk[:n]); err != nil {
				b.Fatal(err)
			}
			chunk = chunk[n:]
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if lines < 1000 {
			b.Fatalf("%d lines", lines)
		}
	}
}
