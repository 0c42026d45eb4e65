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

// bytes adds a string field given as bytes.
func (l *line) bytes(k string, v []byte) *line {
	l.body = append(l.body, ',', '"')
	l.body = append(l.body, k...)
	l.body = append(l.body, '"', ':', '"')
	l.body = appendRaw(l.body, v)
	l.body = append(l.body, '"')
	return l
}

// key adds `key`: namespace/name, or name.
func key[T string | []byte](l *line, namespace, name T) *line {
	l.body = append(l.body, `,"key":"`...)
	if len(namespace) > 0 {
		l.body = appendRaw(l.body, namespace)
		l.body = append(l.body, '/')
	}
	l.body = appendRaw(l.body, name)
	l.body = append(l.body, '"')
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
	b = appendRaw(b, s)
	return append(b, '"')
}

// appendRaw appends s escaped as inside a JSON string.
func appendRaw[T string | []byte](b []byte, text T) []byte {
	if plain(text) {
		return append(b, text...)
	}
	s := string(text)
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
	return b
}

// plain says s needs no escaping (the common case: names, keys, versions).
func plain[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendTime appends t as RFC 3339 in UTC with microseconds, as kinformer's `ts`
// (2006-01-02T15:04:05.000000Z), without time.Format's generality.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, second := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, second, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/1000, 6)
	return append(b, 'Z')
}

// appendDigits appends n with exactly width digits.
func appendDigits(b []byte, n, width int) []byte {
	var digits [9]byte
	for i := width - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, digits[:width]...)
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
