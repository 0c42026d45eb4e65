package tap

import (
	"encoding/binary"
	"errors"
)

// A protobuf reader for the few fields the tap reads — an object's name, namespace and
// resourceVersion, a list's resourceVersion, continue token and item count, a watch event's
// type, a Status' code, reason and message — walking the wire format without decoding the
// rest, so the tap costs the controller little (apimachinery's runtime/serializer/protobuf
// layout: the `k8s\x00` magic, a runtime.Unknown envelope, the message).

var errProto = errors.New("not a protobuf message")

var magic = []byte("k8s\x00")

// field calls fn for each field of msg: its number and, for a length-delimited field, its
// bytes, or for a varint its value. fn returns false to stop.
func fields(msg []byte, fn func(num int, data []byte, v uint64) bool) error {
	for len(msg) > 0 {
		tag, n := binary.Uvarint(msg)
		if n <= 0 {
			return errProto
		}
		msg = msg[n:]
		num, wire := int(tag>>3), tag&7
		var data []byte
		var v uint64
		switch wire {
		case 0:
			v, n = binary.Uvarint(msg)
			if n <= 0 {
				return errProto
			}
			msg = msg[n:]
		case 1:
			if len(msg) < 8 {
				return errProto
			}
			msg = msg[8:]
		case 2:
			size, n := binary.Uvarint(msg)
			if n <= 0 || uint64(len(msg)-n) < size {
				return errProto
			}
			data, msg = msg[n:n+int(size)], msg[n+int(size):]
		case 5:
			if len(msg) < 4 {
				return errProto
			}
			msg = msg[4:]
		default:
			return errProto
		}
		if !fn(num, data, v) {
			return nil
		}
	}
	return nil
}

// unenvelope is the message inside a `k8s\x00` runtime.Unknown (field 2, raw).
func unenvelope(body []byte) ([]byte, bool) {
	if len(body) < 4 || string(body[:4]) != string(magic) {
		return nil, false
	}
	var raw []byte
	ok := fields(body[4:], func(num int, data []byte, _ uint64) bool {
		if num == 2 {
			raw = data
		}
		return true
	}) == nil
	return raw, ok
}

// objMeta is what the tap reads of an object's metadata: slices of the frame it was read
// from, valid while that frame is.
type objMeta struct {
	name, namespace, rv []byte
	initialEventsEnd    bool
}

// objectMeta reads an object message's ObjectMeta (field 1 of every Kubernetes object).
func objectMeta(obj []byte) objMeta {
	var m objMeta
	fields(obj, func(num int, data []byte, _ uint64) bool {
		if num != 1 {
			return true
		}
		fields(data, func(num int, data []byte, _ uint64) bool {
			switch num {
			case 1:
				m.name = data
			case 3:
				m.namespace = data
			case 6:
				m.rv = data
			case 12: // annotations: map entries of key 1, value 2
				var k, v []byte
				fields(data, func(num int, data []byte, _ uint64) bool {
					if num == 1 {
						k = data
					} else if num == 2 {
						v = data
					}
					return true
				})
				if string(k) == initialEventsEnd && string(v) == "true" {
					m.initialEventsEnd = true
				}
			}
			return true
		})
		return false
	})
	return m
}

const initialEventsEnd = "k8s.io/initial-events-end"

// pbList reads a list body: its resourceVersion, continue token and how many items, each
// item's metadata given to keep when it is not nil.
func pbList(body []byte, keep func(objMeta)) (rv, cont string, items int, ok bool) {
	msg, ok := unenvelope(body)
	if !ok {
		return "", "", 0, false
	}
	err := fields(msg, func(num int, data []byte, _ uint64) bool {
		switch num {
		case 1:
			fields(data, func(num int, data []byte, _ uint64) bool {
				if num == 2 {
					rv = string(data)
				} else if num == 3 {
					cont = string(data)
				}
				return true
			})
		case 2:
			items++
			if keep != nil {
				keep(objectMeta(data))
			}
		}
		return true
	})
	return rv, cont, items, err == nil
}

// status is what the tap reads of a metav1.Status.
type status struct {
	code            int64
	reason, message string
}

// pbStatus reads a Status message (message 3, reason 4, code 6).
func pbStatus(msg []byte) status {
	var s status
	fields(msg, func(num int, data []byte, v uint64) bool {
		switch num {
		case 3:
			s.message = string(data)
		case 4:
			s.reason = string(data)
		case 6:
			s.code = int64(int32(v))
		}
		return true
	})
	return s
}

// pbEvent reads one watch frame (a metav1.WatchEvent: type 1, object 2 as a RawExtension
// whose raw 1 holds the enveloped object): its type, and the object's metadata or, for an
// ERROR, its Status.
func pbEvent(frame []byte) (typ []byte, m objMeta, st status, ok bool) {
	if raw, enveloped := unenvelope(frame); enveloped {
		frame = raw
	}
	var object []byte
	err := fields(frame, func(num int, data []byte, _ uint64) bool {
		switch num {
		case 1:
			typ = data
		case 2:
			fields(data, func(num int, data []byte, _ uint64) bool {
				if num == 1 {
					object = data
				}
				return true
			})
		}
		return true
	})
	if err != nil || len(typ) == 0 {
		return nil, m, st, false
	}
	inner, ok := unenvelope(object)
	if !ok {
		inner = object
	}
	if string(typ) == "ERROR" {
		return typ, m, pbStatus(inner), true
	}
	return typ, objectMeta(inner), st, true
}
