package tray

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"pathgrant/grants"
	"pathgrant/wire"
)

// refusedReason is how the daemon words a refusal in the audit log:
// "refused (outside_policy): read /tmp/x is outside the workspace", with
// a count between the rule and the colon when it recurs.
var refusedReason = regexp.MustCompile(`^refused \(([a-z_]+)\)(.*?): (.*)$`)

// ruleWords are the guard's rules as the person reads them.
var ruleWords = map[wire.Rule]string{
	wire.RuleDevice:       "a standard device file",
	wire.RuleProtected:    "a protected path, never allowed",
	wire.RuleBlockedWrite: "a path the session may not write",
	wire.RuleWorkspace:    "inside the workspace",
	wire.RuleReadOnly:     "inside a read-only folder of the session",
	wire.RuleGrant:        "allowed by a grant",
	wire.RuleOutside:      "outside the workspace",
	wire.RuleUnproven:     "what it touches cannot be proven",
	wire.RuleUnmapped:     "a tool pathgrant cannot map to files",
	wire.RuleUnknownMCP:   "another MCP server's tool",
}

// gerunds are the operations as the start of a sentence about one.
var gerunds = map[wire.Op]string{
	wire.OpRead: "reading", wire.OpWrite: "writing", wire.OpMove: "moving", wire.OpDelete: "deleting",
	wire.OpExecute: "running", wire.OpConnect: "connecting to",
}

// reasonText is an audit record's reason in words, without the daemon's
// internal codes: "Refused: reading ~/x is outside the workspace".
func reasonText(r grants.Record, home string) string {
	reason := tildeIn(r.Reason, home)
	m := refusedReason.FindStringSubmatch(reason)
	if m == nil {
		return capitalise(reason)
	}
	return "Refused" + m[2] + ": " + forThePerson(actionSentence(m[3]))
}

// modelClauses are the parts of the guard's reasons that tell the model
// what to say and whether to retry: the person reading the audit needs
// neither (and has the Allow… beside it).
var modelClauses = []string{"; the person can ", "; do not retry"}

// forThePerson is a refusal's reason without what it tells the model.
func forThePerson(reason string) string {
	for _, c := range modelClauses {
		if i := strings.Index(reason, c); i >= 0 {
			reason = reason[:i]
		}
	}
	return reason
}

// recordRule is the rule a refused record names, "" for any other.
func recordRule(r grants.Record) wire.Rule {
	if m := refusedReason.FindStringSubmatch(r.Reason); m != nil {
		return wire.Rule(m[1])
	}
	return ""
}

// actionSentence turns the guard's "read /tmp/x is …" into "reading
// /tmp/x is …".
func actionSentence(s string) string {
	op, rest, ok := strings.Cut(s, " ")
	if g, known := gerunds[wire.Op(op)]; ok && known {
		return g + " " + rest
	}
	return s
}

// tildeIn writes home as "~" where a path under it starts in text.
func tildeIn(text, home string) string {
	if home == "" || home == "/" {
		return text
	}
	text = strings.ReplaceAll(text, " "+home+"/", " ~/")
	if strings.HasPrefix(text, home+"/") {
		text = "~/" + strings.TrimPrefix(text, home+"/")
	}
	return text
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
