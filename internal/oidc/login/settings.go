package login

import "manent.dev/manent/deploy"

// SettingsPath is where a manent server tells the CLI how to sign in.
const SettingsPath = deploy.LoginSettingsPath

// Settings are what a manent server publishes of its auth.oidc for manent
// login (deploy holds the type, which the client reads too).
type Settings = deploy.LoginSettings
