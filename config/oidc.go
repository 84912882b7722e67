package config

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"manent.dev/manent/internal/yamltree"
)

// OIDC is auth.oidc: sign-in through an OpenID Connect provider. Bearer
// JWTs the provider issued become the identity oidc:<user>, with the
// groups of GroupsClaim, exactly as static tokens' groups are.
type OIDC struct {
	// Issuer is the provider's issuer URL, as its tokens carry it in iss;
	// its discovery document is at <Issuer>/.well-known/openid-configuration.
	Issuer string `yaml:"issuer"`
	// Name is what the sign-in page calls the provider ("Sign in with
	// <Name>").
	Name     string `yaml:"name"`
	ClientID string `yaml:"client_id"`
	// ClientSecretRef is a secret reference (env:NAME or file:path, read
	// like pipeline.custom.spec_key_refs: out of reach of the environment
	// configurations); empty for a public client.
	ClientSecretRef string `yaml:"client_secret_ref"`
	// CLIClientID is the public client (no secret) manent login uses at
	// the provider: a CLI cannot keep a secret, so a confidential ClientID
	// needs one of its own. ClientID when empty.
	CLIClientID string   `yaml:"cli_client_id"`
	Scopes      []string `yaml:"scopes"`
	// UserClaim is the claim whose value is <user> in oidc:<user>.
	UserClaim   string `yaml:"user_claim"`
	GroupsClaim string `yaml:"groups_claim"`
	// HostedDomain, when set, is the hd claim every token must carry
	// (Google Workspace: the user's domain); empty checks nothing.
	HostedDomain string `yaml:"hosted_domain"`
	// Audiences are the aud values a bearer token may carry (at least one
	// of them); the client ID when empty.
	Audiences []string `yaml:"audiences"`
	// AllowedAlgorithms restricts the signature algorithms; empty, the
	// asymmetric ones the provider announces.
	AllowedAlgorithms []string `yaml:"allowed_algorithms"`
}

// OIDC defaults.
const (
	DefaultOIDCUserClaim   = "preferred_username"
	DefaultOIDCGroupsClaim = "groups"
	DefaultOIDCName        = "single sign-on"
)

// SetDefaults implements yamltree.Defaulter: the defaults of a section
// that is present.
func (o *OIDC) SetDefaults() {
	o.Name = DefaultOIDCName
	o.UserClaim = DefaultOIDCUserClaim
	o.GroupsClaim = DefaultOIDCGroupsClaim
}

// RequestedScopes are the scopes the sign-in flows ask for: Scopes, or
// openid, profile and email, with groups when the groups claim is the
// standard one (providers that send groups under another name do not
// know a groups scope, and some refuse an unknown one).
func (o *OIDC) RequestedScopes() []string {
	if len(o.Scopes) > 0 {
		return slices.Clone(o.Scopes)
	}
	s := []string{"openid", "profile", "email"}
	if o.GroupsClaim == DefaultOIDCGroupsClaim {
		s = append(s, "groups")
	}
	return s
}

// CLIClient is the client ID manent login uses: CLIClientID, or ClientID.
func (o *OIDC) CLIClient() string {
	if o.CLIClientID != "" {
		return o.CLIClientID
	}
	return o.ClientID
}

// AllowedAudiences are the aud values a bearer token may carry: Audiences,
// or the client IDs of the web sign-in and of manent login (whose ID tokens
// carry them).
func (o *OIDC) AllowedAudiences() []string {
	if len(o.Audiences) > 0 {
		return slices.Clone(o.Audiences)
	}
	if c := o.CLIClient(); c != o.ClientID {
		return []string{o.ClientID, c}
	}
	return []string{o.ClientID}
}

// SigningAlgorithms are the asymmetric JWS algorithms auth.oidc may allow:
// a symmetric one (HS256) would make the client secret a signing key, and
// none no signature at all.
var SigningAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

var (
	// A claim name: the JSON keys providers use (preferred_username,
	// cognito:groups, https://example.com/groups).
	claimPattern = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,128}$`)
	scopePattern = regexp.MustCompile(`^[\x21\x23-\x5b\x5d-\x7e]{1,128}$`)
	// A DNS domain name (Google's hd claim).
	hostedDomainPattern = regexp.MustCompile(`^(?i:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.(?i:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))+$`)
)

func (c *Config) validateOIDC(errs *yamltree.Errors) {
	o := c.Auth.OIDC
	if o == nil {
		return
	}
	const p = "auth.oidc"
	if msg := issuerProblem(o.Issuer); msg != "" {
		errs.Add(p+".issuer", "%s", msg)
	}
	if o.Name == "" || len(o.Name) > 64 || strings.ContainsAny(o.Name, "\x00\r\n\t<>") {
		errs.Add(p+".name", "must be 1 to 64 characters on one line, without < or >")
	}
	if o.ClientID == "" {
		errs.Add(p+".client_id", "is required: the client ID registered for manent at the provider")
	} else if len(o.ClientID) > 256 || strings.ContainsAny(o.ClientID, " \t\r\n\x00") {
		errs.Add(p+".client_id", "must be at most 256 characters without spaces")
	}
	if o.CLIClientID != "" && (len(o.CLIClientID) > 256 || strings.ContainsAny(o.CLIClientID, " \t\r\n\x00")) {
		errs.Add(p+".cli_client_id", "must be at most 256 characters without spaces")
	}
	if o.ClientSecretRef != "" {
		if msg := c.keyRefProblem(o.ClientSecretRef); msg != "" {
			errs.Add(p+".client_secret_ref", "%s", msg)
		}
	}
	for i, s := range o.Scopes {
		if !scopePattern.MatchString(s) {
			errs.Add(yamltree.Index(p+".scopes", i), "must be a scope of printable characters without spaces, quotes or backslashes")
		}
	}
	if len(o.Scopes) > 0 && !slices.Contains(o.Scopes, "openid") {
		errs.Add(p+".scopes", "must hold openid: without it the provider issues no ID token")
	}
	if !claimPattern.MatchString(o.UserClaim) {
		errs.Add(p+".user_claim", "must be a claim name such as preferred_username or sub")
	}
	if !claimPattern.MatchString(o.GroupsClaim) {
		errs.Add(p+".groups_claim", "must be a claim name such as groups")
	}
	if o.HostedDomain != "" && !hostedDomainPattern.MatchString(o.HostedDomain) {
		errs.Add(p+".hosted_domain", "must be a domain name such as example.com")
	}
	for i, a := range o.Audiences {
		if a == "" || len(a) > 256 || strings.ContainsAny(a, " \t\r\n\x00") {
			errs.Add(yamltree.Index(p+".audiences", i), "must be 1 to 256 characters without spaces")
		}
	}
	for i, a := range o.AllowedAlgorithms {
		if !slices.Contains(SigningAlgorithms, a) {
			errs.Add(yamltree.Index(p+".allowed_algorithms", i), "must be one of %s (never a symmetric algorithm or none)",
				strings.Join(SigningAlgorithms, ", "))
		}
	}
}

// issuerProblem says what is wrong with an issuer URL: it must be https,
// but for a loopback host (a development provider), so that keys and
// tokens never cross a network in the clear.
func issuerProblem(issuer string) string {
	if issuer == "" {
		return "is required: the issuer URL of the provider, such as https://login.example.com/realms/main"
	}
	u, err := url.Parse(issuer)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "must be an absolute https:// URL"
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "must have no user, query or fragment"
	case u.Scheme == "https":
		return ""
	case u.Scheme == "http" && loopbackHost(u.Hostname()):
		return ""
	case u.Scheme == "http":
		return "must be https:// (http:// only on a loopback address such as 127.0.0.1)"
	}
	return "must be an absolute https:// URL"
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
