package admin

import (
	"encoding/json"
	"strconv"
	"strings"
)

// writeJSON writes v as Jackson's default pretty printer does, which is
// what Java's AdminServer answers with: objects one key per line indented
// by two spaces with " : " between key and value, arrays on one line
// ("[ 1, 2 ]", "[ ]"), objects inside arrays opened on the same line
// ("[ {" ... "}, {" ... "} ]"), no final newline.
func writeJSON(b *strings.Builder, v any, indent int) {
	switch x := v.(type) {
	case obj:
		if len(x) == 0 {
			b.WriteString("{ }")
			return
		}
		b.WriteString("{\n")
		for i, e := range x {
			b.WriteString(strings.Repeat("  ", indent+1))
			writeString(b, e.key)
			b.WriteString(" : ")
			writeJSON(b, e.value, indent+1)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("  ", indent))
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[ ]")
			return
		}
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e, indent)
		}
		b.WriteString(" ]")
	case string:
		writeString(b, x)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case float64:
		b.WriteString(javaDouble(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		b.WriteString("null")
	}
}

func writeString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s)
	// Jackson does not escape <, > and & as encoding/json does.
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(enc))
	b.WriteString(out)
}
