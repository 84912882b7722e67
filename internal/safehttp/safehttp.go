package safehttp

import (
	"context"
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
	// AllowLinkLocal permits link-local and metadata addresses (development only).
	AllowLinkLocal bool
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
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
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
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
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
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud (shared address space)
	netip.MustParseAddr("168.63.129.16"),   // Azure's WireServer (public)
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud (IETF protocol assignments)
}

// Refused reports whether manent never calls ip: a link-local address
// (which holds most clouds' metadata endpoint), an unspecified one, or a
// cloud metadata address of metadataAddresses. An IPv4-mapped IPv6 address
// is judged as its IPv4 address.
func Refused(ip netip.Addr) bool {
	ip = ip.Unmap()
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

// Do sends req as Get does (its headers as given: a caller's credentials),
// with the same limits.
func Do(c *http.Client, req *http.Request, maxBytes int64) (*http.Response, error) {
	req.Header.Set("User-Agent", "manent")
	resp, err := c.Do(req)
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
