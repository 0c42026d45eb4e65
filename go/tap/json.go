package tap

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// A trace line being built: its time and its fields after `seq` and `ts`, which the writer
// adds in the order lines reach it.
type line struct {
	at    time.Time
	body  []byte
	t     *Tap
	final bool // the summary: the writer's last line
}

func (l *line) str(k, v string) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':')
	l.body = appendString(l.body, v)
	return l
}

func (l *line) num(k string, v int64) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':')
	l.body = strconv.AppendInt(l.body, v, 10)
	return l
}

func (l *line) float(k string, v float64) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':')
	l.body = strconv.AppendFloat(l.body, v, 'f', 3, 64)
	return l
}

func (l *line) flag(k string, v bool) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':')
	l.body = strconv.AppendBool(l.body, v)
	return l
}

// raw adds a field whose value is already JSON.
func (l *line) raw(k string, v []byte) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':')
	l.body = append(l.body, v...)
	return l
}

// optStr adds a string field only when it is not empty.
func (l *line) optStr(k, v string) *line {
	if v == "" {
		return l
	}
	return l.str(k, v)
}

func (l *line) send() { l.t.enqueue(l) }

const hex = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}

// appendTime appends t as RFC 3339 in UTC with microseconds, as kinformer's `ts`.
func appendTime(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}
