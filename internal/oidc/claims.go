package oidc

import (
	"fmt"
	"strings"
	"unicode"

	"manent.dev/manent/deploy"
)

// SubjectPrefix is the kind of the identities OIDC tokens become.
const SubjectPrefix = "oidc:"

// Bounds of what a token may make of an identity: a user name or group
// longer than this is no one's, and a list of groups longer than this is
// a provider sending a directory, not a user's groups.
const (
	maxNameBytes = 256
	maxGroups    = 1000
)

// identity maps verified claims to an identity: the user claim becomes
// oidc:<user>, the groups claim the identity's groups (Casbin subjects
// group:<name>, as static tokens' groups are). A token whose provider left
// the groups out (an overage) is EGROUPSOVERAGE: taking it for a user
// without groups would sign in someone with fewer or, under a policy that
// denies by group, more rights than they hold.
func identity(c map[string]any, userClaim, groupsClaim string) (deploy.Identity, error) {
	if err := checkOverage(c, groupsClaim); err != nil {
		return deploy.Identity{}, err
	}
	raw, ok := c[userClaim]
	user, isString := raw.(string)
	if !ok || !isString {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: it has no %s claim of text, which names the user (auth.oidc.user_claim)", userClaim)
	}
	if msg := nameProblem(user, false); msg != "" {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its %s claim is not a usable user name: %s", userClaim, msg)
	}
	if userClaim == "email" {
		// An email is an identity only once the provider has checked the
		// mailbox is the user's: many let users type any address in their
		// profile. Only the boolean true counts, not "true" or its absence.
		if v, ok := c["email_verified"].(bool); !ok || !v {
			return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED,
				"token refused: its email is not verified by the identity provider (email_verified is not true), "+
					"so it names no one with user_claim: email")
		}
	}
	groups, err := groupsOf(c, groupsClaim)
	if err != nil {
		return deploy.Identity{}, err
	}
	return deploy.Identity{Subject: SubjectPrefix + user, Groups: groups}, nil
}

// checkOverage finds the markers a provider leaves instead of the groups
// when there are too many to fit in a token: Azure's _claim_names entry
// for the claim (its groups are to be read from Microsoft Graph, a
// "distributed claim") and, in the implicit flow, hasgroups.
func checkOverage(c map[string]any, groupsClaim string) error {
	overage := deploy.Errorf(deploy.EGROUPSOVERAGE,
		"token refused: the identity provider left out the %s claim (the user is in too many groups to fit in a token); "+
			"manent never takes that for a user without groups: have the provider send only the groups manent uses "+
			"(in Azure: \"groups assigned to the application\")", groupsClaim)
	if names, ok := c["_claim_names"]; ok {
		m, isMap := names.(map[string]any)
		if !isMap {
			return deploy.Errorf(deploy.EUNAUTHENTICATED, "token refused: its _claim_names claim is not an object")
		}
		if _, ok := m[groupsClaim]; ok {
			return overage
		}
	}
	if groupsClaim == "groups" {
		if v, ok := c["hasgroups"]; ok && v != false {
			return overage
		}
	}
	return nil
}

// groupsOf reads the groups claim: absent is no groups; anything but a list
// of usable names refuses the token (a single string, which some providers
// send for one group, included: manent does not guess).
func groupsOf(c map[string]any, groupsClaim string) ([]string, error) {
	raw, ok := c[groupsClaim]
	if !ok {
		return nil, nil
	}
	list, isList := raw.([]any)
	if !isList {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its %s claim must be a list of group names (auth.oidc.groups_claim)", groupsClaim)
	}
	if len(list) > maxGroups {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its %s claim lists %d groups, more than %d", groupsClaim, len(list), maxGroups)
	}
	groups := make([]string, 0, len(list))
	for i, v := range list {
		g, isString := v.(string)
		if !isString {
			return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
				"token refused: its %s claim must be a list of group names: entry %d is not text", groupsClaim, i)
		}
		if msg := nameProblem(g, true); msg != "" {
			return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
				"token refused: entry %d of its %s claim is not a usable group name: %s", i, groupsClaim, msg)
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// nameProblem says what makes a user or group name from a token unfit for
// an identity, "" when it is fit. Names reach Casbin's policy (CSV: a
// comma or a quote would split or join fields), the audit and terminals
// (no control or bidirectional characters). Groups may hold inner spaces
// ("Release Managers"); a user name holds none.
func nameProblem(s string, group bool) string {
	switch {
	case s == "":
		return "it is empty"
	case len(s) > maxNameBytes:
		return fmt.Sprintf("it is longer than %d bytes", maxNameBytes)
	case strings.TrimSpace(s) != s:
		return "it starts or ends with a space"
	}
	if msg := deploy.UnsafeText(s, ""); msg != "" {
		return "it holds " + msg
	}
	for i, r := range s {
		switch {
		case strings.ContainsRune(`,"'*`, r):
			return fmt.Sprintf("it holds %q at byte %d, which RBAC policies cannot name", r, i)
		case r == ' ' && group:
		case unicode.IsSpace(r):
			return fmt.Sprintf("it holds a space (U+%04X) at byte %d", r, i)
		}
	}
	return ""
}
