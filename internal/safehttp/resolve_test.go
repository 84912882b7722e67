package safehttp

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// dnsServer answers the A queries of a resolver on loopback with the
// addresses of names, and every other query with no answer: what a DNS
// server an attacker controls (or a name pointed at a metadata address)
// would say.
func dnsServer(t *testing.T, names map[string]netip.Addr) string {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			if answer := dnsAnswer(buf[:n], names); answer != nil {
				_, _ = conn.WriteTo(answer, from)
			}
		}
	}()
	return conn.LocalAddr().String()
}

// dnsAnswer is the answer to one query (RFC 1035 §4): its header and
// question, and an A record when the name has an IPv4 address.
func dnsAnswer(q []byte, names map[string]netip.Addr) []byte {
	if len(q) < 12 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	end := i + 5 // the root label, QTYPE and QCLASS
	if end > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	addr, known := names[strings.ToLower(strings.Join(labels, "."))]
	out := append([]byte{}, q[:end]...)
	binary.BigEndian.PutUint16(out[2:], 0x8180) // a response, recursion available
	binary.BigEndian.PutUint16(out[6:], 0)      // no answer yet
	binary.BigEndian.PutUint16(out[8:], 0)
	binary.BigEndian.PutUint16(out[10:], 0)
	if known && qtype == 1 && addr.Is4() {
		binary.BigEndian.PutUint16(out[6:], 1)
		rdata := addr.As4()
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
		out = append(out, rdata[:]...)
	}
	return out
}

// TestNamesResolvingToRefusedAddresses: the refusal is made where the
// connection is dialled, on the address the name resolved to, not on the
// URL's host: a name whose DNS answer is a metadata or link-local address
// is refused as its literal is, and a name resolving to an address manent
// may call is reached.
func TestNamesResolvingToRefusedAddresses(t *testing.T) {
	dns := dnsServer(t, map[string]netip.Addr{
		"metadata.manent.test": netip.MustParseAddr("169.254.169.254"),
		"alibaba.manent.test":  netip.MustParseAddr("100.100.100.200"),
		"oracle.manent.test":   netip.MustParseAddr("192.0.0.192"),
		"nothing.manent.test":  netip.MustParseAddr("0.0.0.0"),
		"loopback.manent.test": netip.MustParseAddr("127.0.0.1"),
	})
	saved := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	t.Cleanup(func() { net.DefaultResolver = saved })

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	c := New(Options{Timeout: 10 * time.Second})
	for _, tt := range []struct {
		host    string
		refused bool
	}{
		{"metadata.manent.test", true},
		{"alibaba.manent.test", true},
		{"oracle.manent.test", true},
		{"nothing.manent.test", true},
		{"loopback.manent.test", false},
	} {
		resp, err := Get(context.Background(), c, "http://"+tt.host+":"+port+"/", 1024)
		if resp != nil {
			_ = resp.Body.Close()
		}
		if got := errors.Is(err, ErrAddressRefused); got != tt.refused || !tt.refused && err != nil {
			t.Errorf("%s: %v, want refused=%v", tt.host, err, tt.refused)
		}
	}
}
