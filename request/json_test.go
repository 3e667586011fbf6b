package request

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/layer0/anth/internal/jsonlex"
)

// jsonPiece is a run of a seed request's JSON and the offset in the ANTH
// bytes of the field it comes from (Limits.MaxOutputSize's rule).
type jsonPiece struct {
	at   int
	json string
}

// seedPieces splits the JSON of the seed request anth into the pieces of
// Limits.MaxOutputSize's rule, reading each field's offset from the bytes:
// the model, each message's first part (a system message first as the
// system prompt) and max_tokens, each with the punctuation before it.
func seedPieces(t tb, anth []byte) []jsonPiece {
	t.Helper()
	q := func(s []byte) string { return string(jsonlex.AppendString(nil, s)) }
	i := 4
	model := anth[i+1 : i+1+int(anth[i])]
	pieces := []jsonPiece{{4, `{"model":` + q(model)}}
	i += 1 + len(model)
	parts := int(anth[i])
	i++
	if parts == 0xFF {
		parts = int(binary.BigEndian.Uint16(anth[i:]))
		i += 2
	}
	type msg struct {
		at      int
		role    byte
		content []byte
	}
	var msgs []msg
	for p, cont := 0, false; p < parts; p++ {
		role, n := anth[i], int(binary.BigEndian.Uint16(anth[i+1:]))
		if !cont {
			msgs = append(msgs, msg{at: i, role: role &^ 0x80})
		}
		msgs[len(msgs)-1].content = append(msgs[len(msgs)-1].content, anth[i+3:i+3+n]...)
		cont = role&0x80 != 0
		i += 3 + n
	}
	if len(msgs) > 0 && msgs[0].role == 2 {
		pieces = append(pieces, jsonPiece{msgs[0].at, `,"system":` + q(msgs[0].content)})
		msgs = msgs[1:]
	}
	open := `,"messages":[`
	for _, m := range msgs {
		pieces = append(pieces, jsonPiece{m.at, open + `{"role":"` + [...]string{"user", "assistant", "system"}[m.role] + `","content":` + q(m.content) + `}`})
		open = ","
	}
	if open == "," {
		open = ""
	}
	tokens := uint64(binary.BigEndian.Uint16(anth[i:]))
	if tokens == 0xFFFF {
		tokens = uint64(binary.BigEndian.Uint32(anth[i+2:]))
	}
	return append(pieces, jsonPiece{i, open + `],"max_tokens":` + strconv.FormatUint(tokens, 10) + `}`})
}

// passedAt returns the offset of the first piece whose JSON takes the
// total past limit, or -1.
func passedAt(pieces []jsonPiece, limit int) int {
	n := 0
	for _, p := range pieces {
		if n += len(p.json); n > limit {
			return p.at
		}
	}
	return -1
}

// checkOutputBound checks that the JSON of anth, of length n, passes with
// MaxOutputSize n and fails with n-1 with ErrTooLarge at wantAt, and that
// any smaller limit fails with ErrTooLarge at an offset no later.
func checkOutputBound(t tb, anth []byte, wantAt int, smaller int) []byte {
	t.Helper()
	js, err := AppendJSON(nil, anth)
	short := func(b []byte) string {
		if len(b) > 120 {
			return string(b[:60]) + "…" + string(b[len(b)-60:])
		}
		return string(b)
	}
	if err != nil {
		t.Fatalf("% X: %v", anth, err)
	}
	if got, err := (Limits{MaxOutputSize: len(js)}).AppendJSON(nil, anth); err != nil || !bytes.Equal(got, js) {
		t.Fatalf("%s: MaxOutputSize %d, its length: %v", short(js), len(js), err)
	}
	var e *Error
	if _, err := (Limits{MaxOutputSize: len(js) - 1}).AppendJSON(nil, anth); !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset != int64(wantAt) {
		t.Fatalf("%s: MaxOutputSize %d, a byte under: %v, want ErrTooLarge at %d", short(js), len(js)-1, err, wantAt)
	}
	if _, err := (Limits{MaxOutputSize: smaller}).AppendJSON(nil, anth); !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset > int64(wantAt) {
		t.Fatalf("%s: MaxOutputSize %d: %v, want ErrTooLarge at %d or before", short(js), smaller, err, wantAt)
	}
	return js
}

// TestJSONOutputBoundExact: the bound is exact. A request whose JSON is n
// bytes converts under MaxOutputSize n and not n-1: an extended request
// fails at its last end tag, whose "}" would pass the limit, a seed
// request at its max_tokens. Before, the closing brackets were written
// unchecked, so an extended request passed a limit 1 or 2 bytes short, and
// a value took 22 bytes of room whatever its length, so a short last value
// failed a limit it fit; the seed form was bounded with every role
// "assistant" and max_tokens of 10 digits, so it failed limits it fit.
func TestJSONOutputBoundExact(t *testing.T) {
	keys := rapid.SampledFrom([]string{"model", "data", "type", "text", "x", "é", "", "max_tokens", "messages", "stream"})
	var value *rapid.Generator[any]
	value = rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Map(rapid.Int64(), func(v int64) any { return v }),
			rapid.Map(rapid.Float64(), func(v float64) any { return v }),
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Map(rapid.SampledFrom([]string{"text", "user", "QUJD", "QQ==", "disable_parallel_tool_use"}), func(s string) any { return s }),
			rapid.Just[any](nil), rapid.Just[any](true), rapid.Just[any](false),
			rapid.Map(rapid.SliceOfN(value, 0, 3), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(keys, value, 0, 4), func(m map[string]any) any { return m }),
		)
	})
	t.Run("extended", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			body, _ := json.Marshal(rapid.MapOfN(keys, value, 0, 5).Draw(t, "request"))
			anth, err := AppendANTH(nil, body)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			if string(anth[:4]) != "ANTX" {
				t.Skip("the seed form")
			}
			js, _ := AppendJSON(nil, anth)
			checkOutputBound(t, anth, len(anth)-1, rapid.IntRange(1, len(js)-1).Draw(t, "limit"))
		})
	})
	t.Run("seed", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			req := genJSONSeed(t)
			anth, err := Append(nil, req)
			if err != nil {
				t.Skip(err)
			}
			pieces := seedPieces(t, anth)
			var whole strings.Builder
			for _, p := range pieces {
				whole.WriteString(p.json)
			}
			limit := rapid.IntRange(1, whole.Len()-1).Draw(t, "limit")
			js := checkOutputBound(t, anth, pieces[len(pieces)-1].at, limit)
			if string(js) != whole.String() {
				t.Fatalf("the test's pieces\n%s\nare not the JSON\n%s", whole.String(), js)
			}
			var e *Error
			_, err = (Limits{MaxOutputSize: limit}).AppendJSON(nil, anth)
			if want := passedAt(pieces, limit); !errors.As(err, &e) || e.Offset != int64(want) {
				t.Fatalf("MaxOutputSize %d of %d: %v, want ErrTooLarge at %d", limit, len(js), err, want)
			}
		})
	})
}

// genJSONSeed draws a seed request that has JSON: a system message only
// first; now and then a message over 65,535 bytes, several parts.
func genJSONSeed(t *rapid.T) Seed {
	req := genRequest().Draw(t, "request")
	for i := range req.Messages {
		if i > 0 && req.Messages[i].Role == RoleSystem {
			req.Messages[i].Role = RoleUser
		}
	}
	if len(req.Messages) > 0 && rapid.Bool().Draw(t, "long") {
		i := rapid.IntRange(0, len(req.Messages)-1).Draw(t, "long message")
		req.Messages[i].Content = strings.Repeat("\"a", rapid.IntRange(0xFFFF/2, 0xFFFF+10).Draw(t, "long length"))
	}
	return req
}

// TestSeedJSONOffsetParts: a seed request of fewer than 255 messages but
// 255 parts has the escaped part count (FF then u16, SPEC.md §5.2), and
// the output bound's offset counts its 2 bytes. Before, they were counted
// by messages, not parts, and the offset was 2 bytes short.
func TestSeedJSONOffsetParts(t *testing.T) {
	req := Seed{Model: "m", Messages: make([]Message, 254), MaxTokens: 8}
	req.Messages[0].Content = strings.Repeat("a", 0xFFFF+1) // 2 parts: 255 in all
	anth, err := Append(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if anth[6] != 0xFF || binary.BigEndian.Uint16(anth[7:]) != 255 {
		t.Fatalf("part count % X, want FF 00 FF", anth[6:9])
	}
	pieces := seedPieces(t, anth)
	n := 0
	for _, p := range pieces {
		n += len(p.json)
	}
	for _, limit := range []int{n - 40, 0xFFFF + 100, 0xFFFF + 40, 50} {
		var e *Error
		_, err := (Limits{MaxOutputSize: limit}).AppendJSON(nil, anth)
		if want := passedAt(pieces, limit); !errors.As(err, &e) || e.Offset != int64(want) {
			t.Errorf("MaxOutputSize %d of %d: %v, want ErrTooLarge at %d", limit, n, err, want)
		}
	}
	checkOutputBound(t, anth, len(anth)-2, 100)
	// The second message starts after the magic, model, escaped count and
	// the first message's two parts.
	if want := 4 + 2 + 3 + 3*2 + 0xFFFF + 1; pieces[2].at != want {
		t.Fatalf("the test's second message at %d, want %d", pieces[2].at, want)
	}
}

// TestJSONOutputBoundClosers: the closing brackets count. Before, they were
// written unchecked, and this request's JSON passed a limit 4 bytes short
// of it.
func TestJSONOutputBoundClosers(t *testing.T) {
	body := `{"model":"m","x":[[["disable_parallel_tool_use"]]]}`
	anth, err := AppendANTH(nil, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for short := 1; short <= 4; short++ {
		// Each "]" or "}" short fails at its end tag.
		want := int64(len(anth) - short)
		var e *Error
		if js, err := (Limits{MaxOutputSize: len(body) - short}).AppendJSON(nil, anth); !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset != want {
			t.Errorf("MaxOutputSize %d, %d under: %s %v, want ErrTooLarge at %d", len(body)-short, short, js, err, want)
		}
	}
	checkOutputBound(t, anth, len(anth)-1, 30)
}
