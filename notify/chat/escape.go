package chat

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// escaper applies Slack's escaping of mrkdwn text: with <, > and &
// escaped, deploy data can make no link, no <!channel>, no <@U…> mention.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// broadcast finds the words Slack turns into a mention of everyone when a
// message is posted with link_names (or by a client that parses them).
var broadcast = regexp.MustCompile(`(?i)@(channel|here|everyone|group)\b`)

// escape makes text from a deploy (names, versions, errors, identities)
// safe in mrkdwn: escaped as Slack asks, its broadcast words broken by a
// zero-width space so they notify no one, and cut to max runes.
func escape(s string, max int) string {
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max]) + "…"
	}
	s = escaper.Replace(s)
	return broadcast.ReplaceAllString(s, "@\u200b$1")
}

// unbreak folds what would end an inline code span early: a backtick, and
// a line break (a span does not cross lines).
var unbreak = strings.NewReplacer("`", "\u02cb", "\r\n", " ", "\n", " ", "\r", " ")

// literal is free text from a deploy (a version, an error, an identity, a
// group) as inline code: Slack makes a link of a bare https://… or
// example.com in mrkdwn text, never in code, so nothing a submitter writes
// becomes something to click. Escaped and cut as escape does; "" stays "".
func literal(s string, max int) string {
	if s == "" {
		return ""
	}
	return "`" + escape(unbreak.Replace(s), max) + "`"
}
