// Package chat posts deploy messages to Slack-compatible incoming webhooks
// and answers the Approve and Reject buttons of those messages, signed by
// the Slack app, through the same approval rules as the API.
//
// It imports deploy, config, internal/safehttp and the standard library.
package chat
