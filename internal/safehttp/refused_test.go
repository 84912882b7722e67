package safehttp

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestRefusedMetadataAddressesOverIPv6: GCP's IPv6 metadata server, and the
// IPv4 metadata addresses reached through the well-known NAT64 prefix (which
// an IPv6-only subnet's gateway translates) or written IPv4-compatible, are
// refused as the IPv4 address they embed; a zone changes nothing.
func TestRefusedMetadataAddressesOverIPv6(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool
	}{
		{"fd20:ce::254", true},          // GCP, IPv6
		{"64:ff9b::a9fe:a9fe", true},    // 169.254.169.254 through NAT64
		{"64:ff9b::169.254.0.23", true}, // Tencent through NAT64
		{"64:ff9b::6464:64c8", true},    // 100.100.100.200 through NAT64
		{"64:ff9b::a83f:8110", true},    // 168.63.129.16 through NAT64
		{"64:ff9b::", true},             // 0.0.0.0 through NAT64
		{"::a9fe:a9fe", true},           // IPv4-compatible 169.254.169.254
		{"::c000:c0", true},             // IPv4-compatible 192.0.0.192
		{"fd00:ec2::254%eth0", true},    // a zone the kernel ignores
		{"fd20:ce::254%1", true},
		{"::ffff:a9fe:a9fe%eth0", true},
		{"64:ff9b::a00:1", false},   // 10.0.0.1 through NAT64
		{"64:ff9b::808:808", false}, // a public address through NAT64
		{"64:ff9b:0:0:1::a9fe:a9fe", false},
		{"fd20:ce::253", false},
		{"::1", false},
		{"2001:db8::a9fe:a9fe", false},
	}
	for _, tt := range tests {
		if got := Refused(netip.MustParseAddr(tt.addr)); got != tt.refused {
			t.Errorf("Refused(%s) = %v, want %v", tt.addr, got, tt.refused)
		}
	}
}

// TestDialRefusesANameThatResolvesToARefusedAddress: the check is made on
// the address a name resolves to, as the connection is made, not on the
// URL's text: a name that a DNS server answers with a metadata address is
// refused, and one it answers with the test server's address reaches it.
func TestDialRefusesANameThatResolvesToARefusedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "reached")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	dns := &testDNS{answers: map[string][]netip.Addr{
		"metadata.manent.test.": {netip.MustParseAddr("169.254.169.254")},
		"alibaba.manent.test.":  {netip.MustParseAddr("100.100.100.200")},
		"nat64.manent.test.":    {netip.MustParseAddr("64:ff9b::a9fe:a9fe")},
		"gcp6.manent.test.":     {netip.MustParseAddr("fd20:ce::254")},
		"api.manent.test.":      {netip.MustParseAddr("127.0.0.1")},
	}}
	c := New(Options{Resolver: dns.resolver()})
	tests := []struct {
		host    string
		refused string // the address named in the error, "" when the request must reach the server
		ipv6    bool
	}{
		{host: "metadata.manent.test", refused: "169.254.169.254"},
		{host: "alibaba.manent.test", refused: "100.100.100.200"},
		{host: "nat64.manent.test", refused: "64:ff9b::a9fe:a9fe", ipv6: true},
		{host: "gcp6.manent.test", refused: "fd20:ce::254", ipv6: true},
		{host: "api.manent.test"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			// Without IPv6 sockets the dial fails before the address is
			// judged: the request must still never reach anything.
			noIPv6 := tt.ipv6 && !canOpenIPv6()
			target := "http://" + net.JoinHostPort(tt.host, strconv.Itoa(port)) + "/"
			resp, err := Get(context.Background(), c, target, 100)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("GET %s: %v", target, err)
				}
				b, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if string(b) != "reached" {
					t.Fatalf("GET %s answered %q", target, b)
				}
				return
			}
			if err == nil {
				_ = resp.Body.Close()
				t.Fatalf("GET %s: reached %s", target, tt.refused)
			}
			if noIPv6 {
				t.Logf("GET %s without IPv6 sockets: %v", target, err)
				return
			}
			if !errors.Is(err, ErrAddressRefused) || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("GET %s: got %v, want %v naming %s", target, err, ErrAddressRefused, tt.refused)
			}
			if !dns.asked(tt.host + ".") {
				t.Fatalf("the DNS server was never asked for %s: the refusal did not come from the resolved address", tt.host)
			}
		})
	}
}

func canOpenIPv6() bool {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// testDNS is a DNS server in the test's process, reached through
// net.Resolver's Dial: it answers A and AAAA questions for the names it
// holds, and NXDOMAIN for the others.
type testDNS struct {
	answers map[string][]netip.Addr
	mu      sync.Mutex
	names   map[string]bool
}

func (d *testDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go d.serve(server)
		return client, nil
	}}
}

func (d *testDNS) asked(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.names[strings.ToLower(name)]
}

// serve answers the messages of one connection, framed as over TCP (a
// net.Pipe is not a PacketConn, so the resolver frames them so).
func (d *testDNS) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	for {
		var size [2]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		query := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, query); err != nil {
			return
		}
		answer, ok := d.answer(query)
		if !ok {
			return
		}
		framed := binary.BigEndian.AppendUint16(nil, uint16(len(answer)))
		if _, err := c.Write(append(framed, answer...)); err != nil {
			return
		}
	}
}

// answer is the response to query, with its one question.
func (d *testDNS) answer(query []byte) ([]byte, bool) {
	const header = 12
	if len(query) < header {
		return nil, false
	}
	var name strings.Builder
	i := header
	for {
		if i >= len(query) {
			return nil, false
		}
		n := int(query[i])
		i++
		if n == 0 {
			break
		}
		if i+n > len(query) {
			return nil, false
		}
		name.WriteString(string(query[i:i+n]) + ".")
		i += n
	}
	if i+4 > len(query) {
		return nil, false
	}
	question := query[header : i+4]
	qtype := binary.BigEndian.Uint16(query[i:])
	key := strings.ToLower(name.String())
	d.mu.Lock()
	if d.names == nil {
		d.names = map[string]bool{}
	}
	d.names[key] = true
	d.mu.Unlock()
	addrs, known := d.answers[key]
	var records [][]byte
	for _, a := range addrs {
		var rtype uint16
		var data []byte
		switch {
		case qtype == 1 && a.Is4():
			rtype, data = 1, a.AsSlice()
		case qtype == 28 && a.Is6():
			rtype, data = 28, a.AsSlice()
		default:
			continue
		}
		r := []byte{0xc0, header} // the question's name
		r = binary.BigEndian.AppendUint16(r, rtype)
		r = binary.BigEndian.AppendUint16(r, 1)  // IN
		r = binary.BigEndian.AppendUint32(r, 60) // TTL
		r = binary.BigEndian.AppendUint16(r, uint16(len(data)))
		records = append(records, append(r, data...))
	}
	flags := uint16(0x8180) // a response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	out := append([]byte{}, query[0:2]...)
	out = binary.BigEndian.AppendUint16(out, flags)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, uint16(len(records)))
	out = binary.BigEndian.AppendUint16(out, 0)
	out = binary.BigEndian.AppendUint16(out, 0)
	out = append(out, question...)
	for _, r := range records {
		out = append(out, r...)
	}
	return out, true
}
