package frame

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// value is a frame's content as a user sees it through the accessors.
type value struct {
	Type       Type
	IDs        []uint32
	Usage      Usage
	CacheUsage CacheUsage
	Code       ErrorCode
	Block      uint16
	Reason     StopReason
	Kind       uint8  // delta kind, block op or event encoding
	Name       []byte // event name
	More       bool   // event continues
	Bytes      []byte // text, message, stop sequence, delta or event data, or raw payload
	Vocab      Vocab
}

func (v value) append(b []byte) []byte {
	switch v.Type {
	case TypeToken, TypeToken32:
		return AppendToken(b, v.IDs...)
	case TypeShortToken, TypeShortToken24:
		return AppendShortToken(b, v.IDs[0])
	case TypeUsage:
		return AppendUsage(b, v.Usage)
	case TypeCacheUsage:
		return AppendCacheUsage(b, v.CacheUsage)
	case TypeError:
		return AppendError(b, v.Code, string(v.Bytes))
	case TypeDone:
		return AppendDone(b, v.Reason, string(v.Bytes))
	case TypeText:
		return AppendText(b, v.Block, v.Bytes)
	case TypePad:
		return AppendPad(b, len(v.Bytes))
	case TypeDelta:
		return AppendDelta(b, v.Block, DeltaKind(v.Kind), v.Bytes)
	case TypeBlock:
		return AppendBlock(b, v.Block, BlockOp(v.Kind))
	case TypeEvent:
		return AppendEvent(b, v.Kind, v.Name, v.Bytes)
	case TypeVocab:
		return AppendVocab(b, v.Vocab)
	}
	return Frame{v.Type, v.Bytes}.Append(b)
}

func (v value) size() int {
	switch v.Type {
	case TypeToken, TypeToken32:
		return SizeToken(v.IDs...)
	case TypeShortToken, TypeShortToken24:
		return SizeShortToken(v.IDs[0])
	case TypeUsage:
		return SizeUsage
	case TypeCacheUsage:
		return SizeCacheUsage
	case TypeError:
		return SizeError(len(v.Bytes))
	case TypeDone:
		return SizeDone(v.Reason, len(v.Bytes))
	case TypeText:
		return SizeText(len(v.Bytes))
	case TypePad:
		return SizePad(len(v.Bytes))
	case TypeDelta:
		return SizeDelta(len(v.Bytes))
	case TypeBlock:
		return SizeBlock
	case TypeEvent:
		return HeaderSize + 2 + len(v.Name) + len(v.Bytes)
	case TypeVocab:
		return HeaderSize + SizeVocab(v.Vocab)
	}
	return HeaderSize + len(v.Bytes)
}

// decode reads a frame back into a value through the typed accessors.
func decode(t interface{ Fatalf(string, ...any) }, f Frame) value {
	v := value{Type: f.Type}
	var err error
	switch f.Type {
	case TypeToken, TypeToken32, TypeShortToken, TypeShortToken24:
		v.IDs, err = f.Tokens(nil)
	case TypeUsage:
		v.Usage, err = f.Usage()
	case TypeCacheUsage:
		v.CacheUsage, err = f.CacheUsage()
	case TypeError:
		v.Code, v.Bytes, err = f.ErrorMessage()
	case TypeDone:
		v.Reason, v.Bytes, err = f.Done()
	case TypeText:
		v.Block, v.Bytes, err = f.Text()
	case TypeDelta:
		var k DeltaKind
		v.Block, k, v.Bytes, err = f.Delta()
		v.Kind = uint8(k)
	case TypeBlock:
		var op BlockOp
		v.Block, op, err = f.Block()
		v.Kind = uint8(op)
	case TypeEvent:
		var e Event
		e, err = f.Event()
		v.Kind, v.Name, v.More, v.Bytes = e.Encoding, append([]byte{}, e.Name...), e.More, e.Data
	case TypeVocab:
		v.Vocab, err = f.Vocab()
		v.Vocab.Name = append([]byte{}, v.Vocab.Name...)
		if v.Vocab.Specials != nil {
			v.Vocab.Specials = append([]byte{}, v.Vocab.Specials...)
		}
	default:
		v.Bytes = f.Payload
	}
	if err != nil {
		t.Fatalf("accessor on a parsed %v frame: %v", f.Type, err)
	}
	v.Bytes = append([]byte{}, v.Bytes...)
	return v
}

// genValue makes any one-frame value, including unknown ignorable frames.
func genValue() *rapid.Generator[value] {
	small := rapid.SliceOfN(rapid.Byte(), 0, 40)
	return rapid.Custom(func(t *rapid.T) value {
		switch rapid.IntRange(0, 13).Draw(t, "kind") {
		case 0:
			ids := rapid.SliceOfN(rapid.Uint32Range(0, 0xFFFF), 1, 20).Draw(t, "ids")
			return value{Type: TypeToken, IDs: ids}
		case 1:
			ids := rapid.SliceOfN(rapid.Uint32(), 1, 20).Draw(t, "ids")
			ids = append(ids, rapid.Uint32Min(0x10000).Draw(t, "wide"))
			return value{Type: TypeToken32, IDs: ids}
		case 2:
			return value{Type: TypeUsage, Usage: Usage{
				rapid.Uint32().Draw(t, "in"), rapid.Uint32().Draw(t, "out"),
				rapid.Uint32Range(0, PPM).Draw(t, "ratio")}}
		case 3:
			return value{Type: TypeCacheUsage, CacheUsage: CacheUsage{rapid.Uint32().Draw(t, "read"), rapid.Uint32().Draw(t, "create")}}
		case 4:
			return value{Type: TypeError, Code: ErrorCode(rapid.Uint16().Draw(t, "code")), Bytes: small.Draw(t, "msg")}
		case 5:
			v := value{Type: TypeDone, Reason: StopReason(rapid.Uint8().Draw(t, "reason"))}
			if v.Reason != StopUnspecified { // a stop sequence needs a reason
				v.Bytes = small.Draw(t, "seq")
			}
			return v
		case 6:
			return value{Type: TypeText, Block: rapid.Uint16().Draw(t, "block"), Bytes: small.Draw(t, "text")}
		case 7:
			return value{Type: TypePad, Bytes: make([]byte, rapid.IntRange(1, 40).Draw(t, "pad"))}
		case 8:
			return value{Type: TypeDelta, Block: rapid.Uint16().Draw(t, "block"), Kind: uint8(rapid.IntRange(1, 4).Draw(t, "dk")), Bytes: small.Draw(t, "delta")}
		case 9:
			return value{Type: TypeBlock, Block: rapid.Uint16().Draw(t, "block"), Kind: uint8(rapid.IntRange(0, 2).Draw(t, "op"))}
		case 10:
			return value{Type: TypeEvent, Kind: uint8(rapid.IntRange(0, 1).Draw(t, "enc")), Name: rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "name"), Bytes: small.Draw(t, "data")}
		case 11:
			return value{Type: TypeVocab, Vocab: genVocab(t)}
		case 12:
			id := rapid.Uint32Range(0, 0xFFFFFF).Draw(t, "id")
			if id <= 0xFFFF {
				return value{Type: TypeShortToken, IDs: []uint32{id}}
			}
			return value{Type: TypeShortToken24, IDs: []uint32{id}}
		}
		typ := Type(rapid.IntRange(0x84, 0xFF).Draw(t, "type"))
		return value{Type: typ, Bytes: small.Draw(t, "raw")}
	})
}

// genVocab makes any valid VOCAB payload: a special table of up to 4
// entries by ascending ID, or its digest.
func genVocab(t *rapid.T) Vocab {
	v := Vocab{Flags: VocabFlags(rapid.IntRange(0, 3).Draw(t, "flags")), Kind: uint8(rapid.IntRange(0, 1).Draw(t, "vkind")),
		Hash: [SizeVocabHash]byte(rapid.SliceOfN(rapid.Byte(), SizeVocabHash, SizeVocabHash).Draw(t, "hash")),
		Name: rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "vname")}
	if v.Flags&VocabDigest != 0 {
		v.Digest = [SizeVocabDigest]byte(rapid.SliceOfN(rapid.Byte(), SizeVocabDigest, SizeVocabDigest).Draw(t, "digest"))
		return v
	}
	n := rapid.IntRange(0, 4).Draw(t, "specials")
	v.Specials = []byte{0, 0, 0, byte(n)}
	id := uint32(0)
	for range n {
		id += rapid.Uint32Range(1, 1000).Draw(t, "gap")
		name := rapid.SliceOfN(rapid.Byte(), 1, 12).Draw(t, "special")
		v.Specials = append(v.Specials, byte(id>>24), byte(id>>16), byte(id>>8), byte(id), 0, byte(len(name)))
		v.Specials = append(v.Specials, name...)
	}
	return v
}

// readers wraps a stream in the ways a network delivers it.
var readers = map[string]func(io.Reader) io.Reader{
	"whole":    func(r io.Reader) io.Reader { return r },
	"one-byte": iotest.OneByteReader,
	"half":     iotest.HalfReader,
	"data-err": iotest.DataErrReader,
}

func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := rapid.SliceOfN(genValue(), 0, 30).Draw(t, "frames")
		stream := AppendMagic(nil)
		for _, v := range vs {
			before := len(stream)
			stream = v.append(stream)
			if got := len(stream) - before; got != v.size() {
				t.Fatalf("%v: appended %d bytes, size function says %d", v.Type, got, v.size())
			}
		}

		// Slice layer: Parse frame by frame.
		var parsed []value
		for b := stream[len(Magic):]; len(b) > 0; {
			f, n, err := Parse(b)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			parsed = append(parsed, decode(t, f))
			b = b[n:]
		}
		if d := cmp.Diff(vs, parsed, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("Parse (-want +got):\n%s", d)
		}

		// Streaming layer, however the bytes arrive. Unknown ignorable
		// frames reach OnSkip instead of Next, in order.
		for name, wrap := range readers {
			var got []value
			r := NewReader(wrap(bytes.NewReader(stream)), ReaderOptions{RawFrames: true, OnSkip: func(f Frame) { got = append(got, decode(t, f)) }})
			for f, err := range r.All() {
				if err != nil {
					t.Fatalf("%s reader: %v", name, err)
				}
				got = append(got, decode(t, f))
			}
			if d := cmp.Diff(vs, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("%s reader (-want +got):\n%s", name, d)
			}
		}
	})
}

// TestWriterMatchesAppend: what a Writer writes is the magic and what the
// Append functions make, in call order.
func TestWriterMatchesAppend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := rapid.SliceOfN(genValue(), 0, 20).Draw(t, "frames")
		var out bytes.Buffer
		w := NewWriter(&out, WriterOptions{})
		want := AppendMagic(nil)
		var packed TokenEncoder
		for _, v := range vs {
			var err error
			switch v.Type {
			case TypeToken, TypeToken32, TypeShortToken, TypeShortToken24:
				err = w.WriteToken(v.IDs...)
			case TypeUsage:
				err = w.WriteUsage(v.Usage)
			case TypeCacheUsage:
				err = w.WriteCacheUsage(v.CacheUsage)
			case TypeError:
				err = w.WriteError(v.Code, string(v.Bytes))
			case TypeDone:
				err = w.WriteDone(v.Reason, string(v.Bytes))
			case TypeText:
				err = w.WriteText(v.Block, v.Bytes)
			case TypePad:
				err = w.WritePad(len(v.Bytes))
			case TypeDelta:
				err = w.WriteDelta(v.Block, DeltaKind(v.Kind), v.Bytes)
			case TypeBlock:
				err = w.WriteBlock(v.Block, BlockOp(v.Kind))
			case TypeEvent:
				err = w.WriteEvent(v.Kind, v.Name, v.Bytes)
			case TypeVocab:
				err = w.WriteVocab(v.Vocab)
			default:
				err = w.WriteFrame(Frame{v.Type, v.Bytes})
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Type.IsToken() {
				// WriteToken writes one ID in a short frame, and several
				// in a PACKED_TOKEN frame.
				if len(v.IDs) == 1 {
					want = AppendShortToken(want, v.IDs[0])
				} else {
					want = packed.AppendPackedToken(want, v.IDs...)
				}
				continue
			}
			want = v.append(want)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("writer wrote\n% X\nappend made\n% X", out.Bytes(), want)
		}
	})
}

// TestTruncation cuts a stream of every valid frame vector at every offset:
// a cut on a frame boundary is a clean end with the frames before it, any
// other cut is ErrTruncated at the cut, from Parse and from Reader.
func TestTruncation(t *testing.T) {
	stream := AppendMagic(nil)
	boundaries := map[int]int{len(Magic): 0} // offset → frames before it
	for _, v := range readSpecVectors(t) {
		if v.kind != "" || bytes.HasPrefix(v.bytes, []byte(Magic)) {
			continue
		}
		stream = append(stream, v.bytes...)
		boundaries[len(stream)] = len(boundaries)
	}
	for cut := 0; cut < len(stream); cut++ {
		frames, err := readAll(NewReader(bytes.NewReader(stream[:cut]), ReaderOptions{RawFrames: true}))
		if n, ok := boundaries[cut]; ok {
			if err != nil || len(frames) != n {
				t.Fatalf("cut at boundary %d: %d frames, %v; want %d frames, no error", cut, len(frames), err, n)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrTruncated) || e.Offset != int64(cut) {
			t.Fatalf("cut at %d: %v; want ErrTruncated at %d", cut, err, cut)
		}
	}
	for _, v := range readSpecVectors(t) {
		if v.kind != "" || len(v.bytes) == 0 || v.bytes[0] == 'A' {
			continue
		}
		for cut := range len(v.bytes) {
			_, n, err := Parse(v.bytes[:cut])
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrTruncated) || e.Offset != int64(cut) || n != 0 {
				t.Fatalf("%s cut at %d: n=%d, %v; want ErrTruncated at %d", v.name, cut, n, err, cut)
			}
		}
	}
}

// TestSplitLongValues checks SPEC.md §4: values longer than a frame continue
// in frames of the same type, and joining them gives the value back.
func TestSplitLongValues(t *testing.T) {
	long := bytes.Repeat([]byte("0123456789abcdef"), 9000) // 144,000 bytes
	ids := make([]uint32, 70_000)                          // 16-bit IDs: TOKEN frames of 32,767
	for i := range ids {
		ids[i] = uint32(i*3) & 0xFFFF
	}
	cases := []struct {
		name  string
		b     []byte
		typ   Type
		count int
		join  func(Frame) []byte
		want  []byte
	}{
		{"text", AppendText(nil, 9, long), TypeText, 3, func(f Frame) []byte { _, b, _ := f.Text(); return b }, long},
		{"error", AppendError(nil, CodeAPI, string(long)), TypeError, 3, func(f Frame) []byte { _, b, _ := f.ErrorMessage(); return b }, long},
		{"done", AppendDone(nil, StopSequence, string(long)), TypeDone, 3, func(f Frame) []byte { _, b, _ := f.Done(); return b }, long},
		{"pad", AppendPad(nil, len(long)), TypePad, 3, func(f Frame) []byte { return f.Payload }, make([]byte, len(long))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var joined []byte
			frames := 0
			for b := c.b; len(b) > 0; frames++ {
				f, n, err := Parse(b)
				if err != nil || f.Type != c.typ {
					t.Fatalf("frame %d: %v %v", frames, f.Type, err)
				}
				joined = append(joined, c.join(f)...)
				b = b[n:]
			}
			if frames != c.count || !bytes.Equal(joined, c.want) {
				t.Fatalf("%d frames joining to %d bytes; want %d frames, %d bytes", frames, len(joined), c.count, len(long))
			}
		})
	}
	t.Run("tokens", func(t *testing.T) {
		for _, wide := range []bool{false, true} {
			in := ids
			if wide {
				in = append([]uint32{1 << 20}, ids...)
			}
			b := AppendToken(nil, in...)
			if len(b) != SizeToken(in...) {
				t.Fatalf("wide=%v: %d bytes, SizeToken %d", wide, len(b), SizeToken(in...))
			}
			want, per := TypeToken, maxToken16PerFrame
			if wide {
				want, per = TypeToken32, maxToken32PerFrame
			}
			var got []uint32
			frames := 0
			for ; len(b) > 0; frames++ {
				f, n, err := Parse(b)
				if err != nil || f.Type != want {
					t.Fatalf("wide=%v: frame %d is %v, %v; want %v", wide, frames, f.Type, err, want)
				}
				got, _ = f.Tokens(got)
				b = b[n:]
			}
			if !cmp.Equal(got, in) || frames != (len(in)+per-1)/per {
				t.Fatalf("wide=%v: %d frames, tokens equal %v", wide, frames, cmp.Equal(got, in))
			}
		}
	})
}

// TestSplitBoundaries holds each value that continues in further frames
// (SPEC.md §4) to its frame count, its Size function and its joined bytes
// at the lengths around one and two full frames.
func TestSplitBoundaries(t *testing.T) {
	name := bytes.Repeat([]byte("n"), MaxEventName)
	data := func(n int) []byte { return bytes.Repeat([]byte("d"), n) }
	eventData := func(f Frame) []byte { e, _ := f.Event(); return e.Data }
	for _, c := range []struct {
		name   string
		typ    Type
		per    int  // value bytes a full frame holds
		after  bool // a full frame is always followed by one more (DONE, ERROR)
		append func(n int) []byte
		size   func(n int) int
		join   func(Frame) []byte
	}{
		{"text", TypeText, maxTextPerFrame, false,
			func(n int) []byte { return AppendText(nil, 7, data(n)) }, SizeText,
			func(f Frame) []byte { _, b, _ := f.Text(); return b }},
		{"delta", TypeDelta, maxDeltaPerFrame, false,
			func(n int) []byte { return AppendDelta(nil, 7, DeltaThinking, data(n)) }, SizeDelta,
			func(f Frame) []byte { _, _, b, _ := f.Delta(); return b }},
		{"event", TypeEvent, MaxPayload - 2, false,
			func(n int) []byte { return AppendEvent(nil, EventDeflate, nil, data(n)) },
			func(n int) int { return SizeEvent(0, n) }, eventData},
		{"event, long name", TypeEvent, MaxPayload - 2 - MaxEventName, false,
			func(n int) []byte { return AppendEvent(nil, EventJSON, name, data(n)) },
			func(n int) int { return SizeEvent(MaxEventName, n) }, eventData},
		{"error", TypeError, maxMessagePerFrame, true,
			func(n int) []byte { return AppendError(nil, CodeAPI, string(data(n))) }, SizeError,
			func(f Frame) []byte { _, b, _ := f.ErrorMessage(); return b }},
		{"done", TypeDone, maxStopSequencePerFrame, true,
			func(n int) []byte { return AppendDone(nil, StopSequence, string(data(n))) },
			func(n int) int { return SizeDone(StopSequence, n) },
			func(f Frame) []byte { _, b, _ := f.Done(); return b }},
		{"pad", TypePad, MaxPayload, false,
			func(n int) []byte { return AppendPad(nil, n) }, SizePad,
			func(f Frame) []byte { return bytes.ReplaceAll(f.Payload, []byte{0}, []byte("d")) }},
	} {
		for _, n := range []int{0, 1, c.per - 1, c.per, c.per + 1, 2 * c.per, 2*c.per + 1} {
			b := c.append(n)
			if len(b) != c.size(n) {
				t.Errorf("%s of %d bytes: %d bytes, Size says %d", c.name, n, len(b), c.size(n))
			}
			want := (n + c.per - 1) / c.per // frames
			switch {
			case c.after:
				want = n/c.per + 1
			case n == 0 && c.typ != TypePad:
				want = 1 // an empty value is a frame; no padding is none
			}
			var joined []byte
			frames := 0
			for ; len(b) > 0; frames++ {
				f, k, err := Parse(b)
				if err != nil || f.Type != c.typ {
					t.Fatalf("%s of %d bytes: frame %d: %v, %v", c.name, n, frames, f.Type, err)
				}
				if e, err := f.Event(); err == nil {
					// Every frame carries the name; all but the last say More.
					if e.More != (k < len(b)) || !bytes.Equal(e.Name, name[:MaxPayload-2-c.per]) {
						t.Fatalf("%s of %d bytes: frame %d: More %v, name of %d bytes", c.name, n, frames, e.More, len(e.Name))
					}
				}
				joined = append(joined, c.join(f)...)
				b = b[k:]
			}
			if frames != want || !bytes.Equal(joined, data(n)) {
				t.Errorf("%s of %d bytes: %d frames joining to %d bytes, want %d frames", c.name, n, frames, len(joined), want)
			}
		}
	}
	for _, c := range []struct {
		typ Type
		per int
		id  uint32
	}{{TypeToken, maxToken16PerFrame, 0xFFFF}, {TypeToken32, maxToken32PerFrame, 0x10000}} {
		for _, n := range []int{1, c.per - 1, c.per, c.per + 1, 2 * c.per, 2*c.per + 1} {
			ids := slices.Repeat([]uint32{c.id}, n)
			b := AppendToken(nil, ids...)
			if len(b) != SizeToken(ids...) {
				t.Errorf("%d %v IDs: %d bytes, SizeToken says %d", n, c.typ, len(b), SizeToken(ids...))
			}
			var got []uint32
			frames := 0
			for ; len(b) > 0; frames++ {
				f, k, err := Parse(b)
				if err != nil || f.Type != c.typ {
					t.Fatalf("%d %v IDs: frame %d: %v, %v", n, c.typ, frames, f.Type, err)
				}
				got, _ = f.Tokens(got)
				b = b[k:]
			}
			if want := (n + c.per - 1) / c.per; frames != want || !slices.Equal(got, ids) {
				t.Errorf("%d %v IDs: %d frames, %d IDs back; want %d frames", n, c.typ, frames, len(got), want)
			}
		}
	}
}
