package exports

import "encoding/binary"

// thriftWriter encodes Thrift's compact protocol, which Parquet uses for
// its page headers and its footer. It writes only what the Parquet writer
// needs: structs, lists, and fields of the types below; field ids are
// written as deltas from the previous field of the same struct, so fields
// must be written in increasing id order.
type thriftWriter struct {
	buf   []byte
	field int16   // the last field id written in the current struct
	outer []int16 // the last field ids of the enclosing structs
}

// Compact protocol type codes.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI32    = 5
	thriftI64    = 6
	thriftBinary = 8
	thriftList   = 9
	thriftStruct = 12
)

func (t *thriftWriter) reset() {
	t.buf, t.field, t.outer = t.buf[:0], 0, t.outer[:0]
}

func (t *thriftWriter) header(id int16, typ byte) {
	if d := id - t.field; d > 0 && d <= 15 {
		t.buf = append(t.buf, byte(d)<<4|typ)
	} else {
		t.buf = append(t.buf, typ)
		t.buf = binary.AppendVarint(t.buf, int64(id)) // zigzag, as the protocol wants
	}
	t.field = id
}

func (t *thriftWriter) i32(id int16, v int32) {
	t.header(id, thriftI32)
	t.buf = binary.AppendVarint(t.buf, int64(v))
}

func (t *thriftWriter) i64(id int16, v int64) {
	t.header(id, thriftI64)
	t.buf = binary.AppendVarint(t.buf, v)
}

func (t *thriftWriter) i8(id int16, v int8) {
	t.header(id, thriftByte)
	t.buf = append(t.buf, byte(v))
}

// boolean carries its value in the field header's type, as the compact
// protocol does.
func (t *thriftWriter) boolean(id int16, v bool) {
	if v {
		t.header(id, thriftTrue)
	} else {
		t.header(id, thriftFalse)
	}
}

func (t *thriftWriter) str(id int16, s string) {
	t.header(id, thriftBinary)
	t.strValue(s)
}

func (t *thriftWriter) strValue(s string) {
	t.buf = binary.AppendUvarint(t.buf, uint64(len(s)))
	t.buf = append(t.buf, s...)
}

// list starts a list field of n elements of type elem; the caller then
// writes the elements (i32Value, strValue, or structs begun by begin).
func (t *thriftWriter) list(id int16, elem byte, n int) {
	t.header(id, thriftList)
	if n < 15 {
		t.buf = append(t.buf, byte(n)<<4|elem)
	} else {
		t.buf = append(t.buf, 0xf0|elem)
		t.buf = binary.AppendUvarint(t.buf, uint64(n))
	}
}

func (t *thriftWriter) i32Value(v int32) { t.buf = binary.AppendVarint(t.buf, int64(v)) }

// structField starts a struct-valued field; end closes it.
func (t *thriftWriter) structField(id int16) {
	t.header(id, thriftStruct)
	t.begin()
}

// begin starts a struct that has no field header of its own: a list
// element, or the outermost struct.
func (t *thriftWriter) begin() {
	t.outer = append(t.outer, t.field)
	t.field = 0
}

// end writes the stop byte of the current struct.
func (t *thriftWriter) end() {
	t.buf = append(t.buf, 0)
	t.field = t.outer[len(t.outer)-1]
	t.outer = t.outer[:len(t.outer)-1]
}
