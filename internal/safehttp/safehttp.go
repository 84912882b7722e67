package safehttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Options tunes a Client.
type Options struct {
	// Timeout bounds a whole request, body included (default 30s).
	Timeout time.Duration
	// ConnectTimeout bounds the connection and the TLS handshake (default
	// 10s, never above Timeout).
	ConnectTimeout time.Duration
	// AllowLinkLocal permits link-local and metadata addresses (development only).
	AllowLinkLocal bool
	// RootCAs, when set, are the only certificate authorities trusted
	// instead of the system's: a private CA, a test server's certificate.
	RootCAs *x509.CertPool
	// Resolver, when set, resolves host names instead of the system's
	// resolver (a private DNS server). Whoever resolves, every address is
	// checked as the connection to it is made.
	Resolver *net.Resolver
}

// ErrRedirect is returned for a 3xx answer: redirects are never followed.
var ErrRedirect = errors.New("redirect refused")

// RedirectError is the error of a 3xx answer: it is ErrRedirect (errors.Is)
// and keeps the status, which a check expecting a redirect compares.
type RedirectError struct {
	// URL is the request's, without its query and user info.
	URL    string
	Status int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%v: %s answered %d", ErrRedirect, e.URL, e.Status)
}

func (e *RedirectError) Unwrap() error { return ErrRedirect }

// ErrAddressRefused is returned when the destination is a refused address.
var ErrAddressRefused = errors.New("destination address refused")

// ErrTooLarge is returned when a body exceeds its limit.
var ErrTooLarge = errors.New("response too large")

// New returns an *http.Client with manent's outbound rules.
func New(o Options) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	connect := o.ConnectTimeout
	if connect <= 0 {
		connect = 10 * time.Second
	}
	connect = min(connect, o.Timeout)
	dialer := &net.Dialer{
		Timeout:  connect,
		Resolver: o.Resolver,
		Control: func(_, address string, _ syscall.RawConn) error {
			if o.AllowLinkLocal {
				return nil
			}
			return checkAddress(address)
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	if o.RootCAs != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// metadataAddresses are the cloud metadata and host endpoints outside the
// link-local ranges: link-local already holds AWS's, GCP's, Azure's IMDS,
// DigitalOcean's, IBM's and OpenStack's 169.254.169.254 and Tencent's
// 169.254.0.23.
var metadataAddresses = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS, IPv6 (unique-local)
	netip.MustParseAddr("fd20:ce::254"),    // GCP, IPv6 (unique-local, for IPv6-only VMs)
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud (shared address space)
	netip.MustParseAddr("168.63.129.16"),   // Azure's WireServer (public)
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud (IETF protocol assignments)
}

// embedsIPv4 are the IPv6 prefixes whose last 32 bits are an IPv4 address
// that the host, or a gateway of its network, reaches: the well-known NAT64
// prefix (RFC 6052), which an IPv6-only subnet's NAT64 gateway translates
// to the IPv4 address it ends with, and the deprecated IPv4-compatible
// addresses (RFC 4291). IPv4-mapped addresses are Unmap's.
var embedsIPv4 = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("::/96"),
}

// Refused reports whether manent never calls ip: a link-local address
// (which holds most clouds' metadata endpoint), an unspecified one, or a
// cloud metadata address of metadataAddresses. An IPv6 address that
// embeds an IPv4 address (IPv4-mapped, NAT64's well-known prefix,
// IPv4-compatible) is judged as that IPv4 address; a zone is ignored, as
// the kernel ignores it for addresses that are not link-local.
func Refused(ip netip.Addr) bool {
	ip = reached(ip)
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, m := range metadataAddresses {
		if ip == m {
			return true
		}
	}
	return false
}

// reached is the address a connection to ip reaches: ip without its zone,
// or the IPv4 address it embeds.
func reached(ip netip.Addr) netip.Addr {
	ip = ip.WithZone("").Unmap()
	if !ip.Is6() || ip == netip.IPv6Loopback() {
		return ip
	}
	for _, p := range embedsIPv4 {
		if p.Contains(ip) {
			b := ip.As16()
			return netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	return ip
}

// checkAddress refuses the addresses Refused names.
func checkAddress(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrAddressRefused, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrAddressRefused, address)
	}
	if Refused(ip) {
		return fmt.Errorf("%w: %s", ErrAddressRefused, host)
	}
	return nil
}

// Get performs a GET and returns the response with its body limited to
// maxBytes (reading past it fails with ErrTooLarge). A 3xx is a
// *RedirectError.
func Get(ctx context.Context, c *http.Client, url string, maxBytes int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return Do(c, req, maxBytes)
}

// Do sends req as Get does: a User-Agent unless req has one, its answer's
// body limited to maxBytes, a 3xx a *RedirectError (whatever c's own
// CheckRedirect says: the client's of a caller may follow them).
func Do(c *http.Client, req *http.Request, maxBytes int64) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "manent")
	}
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noRedirect.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		_ = resp.Body.Close() // unread, and the redirect is the error
		// Without the query and user info, which may carry a token.
		shown := *req.URL
		shown.User, shown.RawQuery, shown.ForceQuery, shown.Fragment, shown.RawFragment = nil, "", false, "", ""
		return nil, &RedirectError{URL: shown.String(), Status: resp.StatusCode}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxBytes}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.rc.Read(one[:]); n > 0 {
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }
