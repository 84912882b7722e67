package deploy

// LoginSettingsPath is where a manent server tells the CLI how to sign in.
const LoginSettingsPath = "/api/v1/auth/oidc"

// LoginSettings are what a manent server publishes of its auth.oidc for
// manent login: nothing secret (the client is a public one).
type LoginSettings struct {
	// Issuer is the provider's issuer URL; the CLI reads its discovery
	// document itself, and the issuer in it must be this one exactly.
	Issuer string `json:"issuer"`
	// Name is what the server calls the provider.
	Name string `json:"name"`
	// ClientID is the public client of manent login at the provider.
	ClientID string `json:"client_id"`
	// Scopes are the scopes to ask for.
	Scopes []string `json:"scopes"`
	// Audiences are the aud values the server accepts in a bearer token:
	// they decide whether the CLI sends the access token or the ID token.
	Audiences []string `json:"audiences"`
	// DeviceAuthorization is true when the provider announced a device
	// authorization endpoint to the server.
	DeviceAuthorization bool `json:"device_authorization"`
}
