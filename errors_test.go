package anth_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// TestErrorKinds walks an error path of every kind each package reports for
// the kinds the module shares, and checks that errors.Is holds against every
// package's name for that kind (issue 21: one error value per kind, as
// snappy.ErrCorrupt is s2.ErrCorrupt), and that the error says where.
// Before, messages.ErrMalformed, deflate.ErrMalformed and kvdelta.ErrMalformed
// were values of their own: errors.Is(err, messages.ErrMalformed) was false for
// malformed ANTH given to messages.Encoder.Write and to request.AppendJSON.
func TestErrorKinds(t *testing.T) {
	kinds := map[string][]error{
		"ErrMalformed": {frame.ErrMalformed, messages.ErrMalformed, deflate.ErrMalformed, kvdelta.ErrMalformed},
		"ErrTruncated": {frame.ErrTruncated, messages.ErrTruncated, deflate.ErrTruncated, kvdelta.ErrTruncated, io.ErrUnexpectedEOF},
		"ErrTooLarge":  {frame.ErrTooLarge, messages.ErrTooLarge, kvdelta.ErrTooLarge},
	}
	stream := frame.AppendText(frame.AppendMagic(nil), 0, []byte("Hi"))
	badFrame := append(frame.AppendMagic(nil), 0x04, 0x00, 0x01, 0x00) // TEXT too short for its block
	cases := []struct {
		name string
		kind string
		err  func() error
	}{
		{"frame.Parse cut", "ErrTruncated", func() error { _, _, err := frame.Parse(stream[4 : len(stream)-1]); return err }},
		{"frame.Parse malformed", "ErrMalformed", func() error { _, _, err := frame.Parse(badFrame[4:]); return err }},
		{"request.Parse too large", "ErrTooLarge", func() error {
			_, err := request.Limits{MaxSize: 8}.Parse(make([]byte, 9))
			return err
		}},
		{"messages.Encoder.Write malformed ANTH", "ErrMalformed", func() error {
			_, err := messages.NewEncoder(io.Discard, messages.EncoderOptions{}).Write(badFrame)
			return err
		}},
		{"messages.Encoder.Write cut", "ErrTruncated", func() error {
			e := messages.NewEncoder(io.Discard, messages.EncoderOptions{})
			if _, err := e.Write(stream); err != nil {
				return err
			}
			return e.Close()
		}},
		{"request.AppendJSON malformed", "ErrMalformed", func() error { _, err := request.AppendJSON(nil, []byte("ANTX\x02\x09\x0A")); return err }},
		{"request.AppendANTH malformed", "ErrMalformed", func() error { _, err := request.AppendANTH(nil, []byte(`{"model":`)); return err }},
		{"messages.Decoder malformed", "ErrMalformed", func() error {
			_, err := io.ReadAll(messages.NewDecoder(strings.NewReader("event: content_block_delta\ndata: {nope\n\n"), messages.DecoderOptions{}))
			return err
		}},
		{"messages.Decoder too large", "ErrTooLarge", func() error {
			_, err := io.ReadAll(messages.NewDecoder(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), messages.DecoderOptions{MaxEvent: 64}))
			return err
		}},
		{"deflate.Reader malformed", "ErrMalformed", func() error {
			_, err := io.ReadAll(deflate.NewReader(bytes.NewReader([]byte{0, 0, 0, 1, 0}), nil))
			return err
		}},
		{"deflate.Reader cut", "ErrTruncated", func() error {
			_, err := io.ReadAll(deflate.NewReader(bytes.NewReader([]byte{0, 0, 0}), nil))
			return err
		}},
		{"kvdelta.Apply malformed", "ErrMalformed", func() error {
			_, err := kvdelta.Apply(nil, bytes.Repeat([]byte{0xEE}, 64))
			return err
		}},
		{"kvdelta.Apply cut", "ErrTruncated", func() error { _, err := kvdelta.Apply(nil, []byte("KVD")); return err }},
	}
	for _, c := range cases {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for i, k := range kinds[c.kind] {
			if !errors.Is(err, k) {
				t.Errorf("%s: %v: errors.Is against the %s of package %d is false", c.name, err, c.kind, i)
			}
		}
		for other, ks := range kinds {
			if other != c.kind && errors.Is(err, ks[0]) {
				t.Errorf("%s: %v is also %s", c.name, err, other)
			}
		}
		if !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: %q does not say where", c.name, err)
		}
	}
}

// TestEncoderCloseCut: each bridge's Encoder reports ANTH that ends before
// its DONE or ERROR as Encoder.Close says, a *frame.Error matching
// ErrTruncated at the offset where the ANTH ended.
func TestEncoderCloseCut(t *testing.T) {
	in := frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi"))
	for _, api := range []bridge.API{messages.API{}, chat.API{}} {
		e := api.NewEncoder(io.Discard, false, nil)
		if _, err := e.Write(in); err != nil {
			t.Fatal(err)
		}
		err := e.Close()
		var fe *frame.Error
		if !errors.As(err, &fe) || !errors.Is(err, messages.ErrTruncated) || !errors.Is(err, chat.ErrTruncated) || fe.Offset != int64(len(in)) {
			t.Errorf("%s: Close after a cut: %T %v, want a *frame.Error matching ErrTruncated at offset %d", api.Path(), err, err, len(in))
		}
	}
}
