package frame

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestFastPathAgrees: whatever parseFast accepts, parse accepts the same
// way, for every type and every short length; and parse accepts every
// complete frame of a type with no payload check that parseFast should
// have taken.
func TestFastPathAgrees(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, b []byte) {
		f, n, ok := parseFast(b)
		g, m, e := parse(b, 0)
		if ok && (e != nil || g.Type != f.Type || m != n || !bytes.Equal(g.Payload, f.Payload)) {
			t.Fatalf("% X: fast path %v %d, general path %v %d %v", b, f.Type, n, g.Type, m, e)
		}
		if !ok && e == nil && types[g.Type].fast {
			t.Fatalf("% X: the fast path refused a %v frame the general path accepts", b, g.Type)
		}
		// parseShort likewise, for the short token frames.
		f, n, ok = parseShort(b)
		if ok && (e != nil || g.Type != f.Type || m != n || !bytes.Equal(g.Payload, f.Payload)) {
			t.Fatalf("% X: short path %v %d, general path %v %d %v", b, f.Type, n, g.Type, m, e)
		}
		if !ok && e == nil && types[g.Type].short > 0 {
			t.Fatalf("% X: the short path refused a %v frame the general path accepts", b, g.Type)
		}
	}
	for typ := range 256 {
		for n := range 20 {
			b := appendHeader(nil, Type(typ), n)
			for i := range n {
				b = append(b, byte(i*37+typ))
			}
			for cut := range len(b) + 1 {
				check(t, b[:cut])
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes"))
	})
}

// TestTypeTable: the table's rules say the same as SPEC.md §3 for lengths.
func TestTypeTable(t *testing.T) {
	for typ := range 256 {
		ti := types[typ]
		if ti.known != (ti.name != "") || (ti.known && (ti.max > MaxPayload || ti.min > ti.max)) {
			t.Errorf("type 0x%02X: inconsistent entry %+v", typ, ti)
		}
		if fast := ti.known && ti.check == nil && ti.max == MaxPayload; ti.fast != fast {
			t.Errorf("type 0x%02X: fast is %v, want %v", typ, ti.fast, fast)
		}
		// SPEC.md §2: a type without a length field fixes its payload's
		// size and is must-understand (a reader that does not know it
		// could not skip it).
		if ti.short > 0 && (ti.min != ti.short || ti.max != ti.short || ti.hdr != 1 || ti.check != nil || Type(typ).Ignorable()) {
			t.Errorf("type 0x%02X: inconsistent short entry %+v", typ, ti)
		}
		if ti.short == 0 && ti.hdr != HeaderSize {
			t.Errorf("type 0x%02X: a length-field type with header %d", typ, ti.hdr)
		}
		if ti.known && ti.min != ti.max && ti.min > 0 && ti.want == "" {
			t.Errorf("type 0x%02X: no description of its lengths", typ)
		}
	}
}
