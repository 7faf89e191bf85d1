package sasl

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// AuthToLocalProperty is the system property holding the rules that map
// Kerberos principals to short names, in Hadoop's auth_to_local syntax.
const AuthToLocalProperty = "zookeeper.security.auth_to_local"

// KerberosNameRules are auth_to_local rules with the default realm they
// compare against, as ZooKeeper's KerberosName applies them:
//
//	DEFAULT                                   a principal of the default realm maps to its first component
//	RULE:[n:format](match)s/from/to/[g]       a principal of n components (format's $0 is the realm,
//	                                          $1... the components) whose formatted name fully matches
//	                                          match, with from replaced by to (all matches with g)
//
// Rules are tried in order; the first that applies gives the short name,
// which must not contain '/' or '@'.
type KerberosNameRules struct {
	rules        []nameRule
	defaultRealm string
}

type nameRule struct {
	text       string
	isDefault  bool
	components int
	format     string
	match      *regexp.Regexp // nil: any
	from       *regexp.Regexp // nil: no substitution
	to         string         // in regexp.Expand's syntax
	global     bool
}

var ruleSyntax = regexp.MustCompile(`^\s*((DEFAULT)|(RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?))`)

// ParseKerberosNameRules parses spec ("" means "DEFAULT", as Java's
// default for the property).
func ParseKerberosNameRules(spec, defaultRealm string) (*KerberosNameRules, error) {
	r := &KerberosNameRules{defaultRealm: defaultRealm}
	rest := strings.TrimSpace(spec)
	if rest == "" {
		rest = "DEFAULT"
	}
	for rest != "" {
		m := ruleSyntax.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("%s: invalid rule: %s", AuthToLocalProperty, rest)
		}
		rest = strings.TrimSpace(rest[len(m[0]):])
		if m[2] != "" {
			r.rules = append(r.rules, nameRule{text: "DEFAULT", isDefault: true})
			continue
		}
		n, err := strconv.Atoi(m[4])
		if err != nil {
			return nil, fmt.Errorf("%s: rule %s: %q is not a component count", AuthToLocalProperty, strings.TrimSpace(m[1]), m[4])
		}
		rule := nameRule{text: strings.TrimSpace(m[1]), components: n, format: m[5], global: m[11] == "g"}
		if m[6] != "" {
			if rule.match, err = regexp.Compile(`^(?:` + m[7] + `)$`); err != nil {
				return nil, fmt.Errorf("%s: rule %s: %v", AuthToLocalProperty, rule.text, err)
			}
		}
		if m[8] != "" {
			if rule.from, err = regexp.Compile(m[9]); err != nil {
				return nil, fmt.Errorf("%s: rule %s: %v", AuthToLocalProperty, rule.text, err)
			}
			rule.to = javaReplacement(m[10])
		}
		r.rules = append(r.rules, rule)
	}
	return r, nil
}

// javaReplacement turns a java.util.regex replacement ($1, \x) into
// regexp.Expand's template (${1}, $$).
func javaReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == i+1 {
				b.WriteString("$$")
				continue
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// errNoRule says no rule gave a short name; Java's NoMatchingRule.
var errNoRule = errors.New("no auth_to_local rule applies")

// defaultRules is DEFAULT with no default realm, what Java has without a
// krb5.conf.
var defaultRules = &KerberosNameRules{rules: []nameRule{{text: "DEFAULT", isDefault: true}}}

// ShortName maps n to its short name. A bare name (no host, no realm) is
// its own short name. Nil rules are DEFAULT with no default realm.
func (r *KerberosNameRules) ShortName(n KerberosName) (string, error) {
	if n.Host == "" && n.Realm == "" {
		return n.Service, nil
	}
	if r == nil {
		r = defaultRules
	}
	params := []string{n.Realm, n.Service}
	if n.Host != "" {
		params = append(params, n.Host)
	}
	for _, rule := range r.rules {
		out, ok, err := rule.apply(params, r.defaultRealm)
		if err != nil {
			return "", err
		}
		if ok {
			return out, nil
		}
	}
	return "", fmt.Errorf("%w to %s", errNoRule, n)
}

func (rule nameRule) apply(params []string, defaultRealm string) (string, bool, error) {
	var out string
	var ok bool
	if rule.isDefault {
		out, ok = params[1], params[0] == defaultRealm
	} else if len(params)-1 == rule.components {
		base, err := formatRuleName(rule.format, params)
		if err != nil {
			return "", false, fmt.Errorf("%s: rule %s: %v", AuthToLocalProperty, rule.text, err)
		}
		if rule.match == nil || rule.match.MatchString(base) {
			out, ok = base, true
			if rule.from != nil {
				out = rule.substitute(base)
			}
		}
	}
	if ok && strings.ContainsAny(out, "/@") {
		return "", false, fmt.Errorf("%w: non-simple name %s after rule %s", errNoRule, out, rule.text)
	}
	return out, ok, nil
}

func (rule nameRule) substitute(base string) string {
	if rule.global {
		return rule.from.ReplaceAllString(base, rule.to)
	}
	loc := rule.from.FindStringSubmatchIndex(base)
	if loc == nil {
		return base
	}
	out := rule.from.ExpandString(nil, rule.to, base, loc)
	return base[:loc[0]] + string(out) + base[loc[1]:]
}

// formatRuleName replaces $0 (the realm) and $1... (the components) in
// format; a '$' without a number, or a number beyond the components, is
// an error as in Java.
func formatRuleName(format string, params []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		num, err := strconv.Atoi(format[i+1 : j])
		if err != nil {
			return "", fmt.Errorf("bad format %q", format)
		}
		if num >= len(params) {
			return "", fmt.Errorf("index %d in %q is outside 0 to %d", num, format, len(params)-1)
		}
		b.WriteString(params[num])
		i = j - 1
	}
	return b.String(), nil
}
