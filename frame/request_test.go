package frame

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

func genRequest() *rapid.Generator[Request] {
	return rapid.Custom(func(t *rapid.T) Request {
		msg := rapid.Custom(func(t *rapid.T) Message {
			return Message{
				Role:    Role(rapid.IntRange(0, 2).Draw(t, "role")),
				Content: rapid.String().Draw(t, "content"),
			}
		})
		return Request{
			Model:     rapid.StringOfN(rapid.Rune(), 0, 60, 255).Draw(t, "model"),
			Messages:  rapid.SliceOfN(msg, 0, 300).Draw(t, "messages"),
			MaxTokens: rapid.OneOf(rapid.Uint32Range(0, 70_000), rapid.Uint32()).Draw(t, "max_tokens"),
		}
	})
}

func TestRequestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := genRequest().Draw(t, "request")
		if len(req.Model) > 255 {
			t.Skip("model name too long for the wire")
		}
		b, err := AppendRequest(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != SizeRequest(req) {
			t.Fatalf("appended %d bytes, SizeRequest says %d", len(b), SizeRequest(req))
		}
		got, err := ParseRequest(b)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(req, got, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("round trip (-want +got):\n%s", d)
		}
		// Every proper prefix is truncated, never a shorter request.
		cut := rapid.IntRange(0, len(b)-1).Draw(t, "cut")
		if _, err := ParseRequest(b[:cut]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("prefix of %d/%d bytes: %v, want ErrTruncated", cut, len(b), err)
		}
	})
}

// TestRequestLongContent covers SPEC.md §5.2 at the part boundaries.
func TestRequestLongContent(t *testing.T) {
	for _, n := range []int{0, 1, partMax - 1, partMax, partMax + 1, 2 * partMax, 2*partMax + 1, 200_000} {
		content := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		req := Request{Model: "m", Messages: []Message{{RoleUser, content}, {RoleAssistant, "ok"}}}
		b, err := AppendRequest(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseRequest(b)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if got.Messages[0].Content != content || len(got.Messages) != 2 {
			t.Fatalf("%d bytes: content of %d bytes in %d messages", n, len(got.Messages[0].Content), len(got.Messages))
		}
		wantParts := max(1, (n+partMax-1)/partMax) + 1
		if parts := int(b[6]); parts != wantParts {
			t.Fatalf("%d bytes: %d parts, want %d", n, parts, wantParts)
		}
	}
}

func TestRequestManyMessages(t *testing.T) {
	for _, n := range []int{254, 255, 256, 1000} {
		req := Request{Messages: make([]Message, n), MaxTokens: 65_535}
		b, err := AppendRequest(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseRequest(b)
		if err != nil || len(got.Messages) != n || got.MaxTokens != 65_535 {
			t.Fatalf("%d messages: %d back, max_tokens %d, %v", n, len(got.Messages), got.MaxTokens, err)
		}
		if _, err := (Limits{MaxMessages: n - 1}).ParseRequest(b); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%d messages over a limit of %d: %v, want ErrTooLarge", n, n-1, err)
		}
	}
}

func TestRequestEncodeErrors(t *testing.T) {
	twoParts := strings.Repeat("a", partMax+1)
	manyLong := make([]Message, 1+maxParts/2)
	for i := range manyLong {
		manyLong[i].Content = twoParts
	}
	for _, c := range []struct {
		name     string
		req      Request
		kind     error
		sizeFits bool // whether SizeRequest can tell
	}{
		{"long model", Request{Model: strings.Repeat("m", 256)}, ErrTooLarge, false},
		{"too many parts", Request{Messages: make([]Message, maxParts+1)}, ErrTooLarge, false},
		{"too many long parts", Request{Messages: manyLong}, ErrTooLarge, false},
		{"bad role", Request{Messages: []Message{{Role: 3}}}, ErrBadPayload, true},
		{"bad content", Request{Messages: []Message{{Content: "\xff"}}}, ErrBadPayload, true},
		{"bad model", Request{Model: "\xc3"}, ErrBadPayload, true},
	} {
		b := []byte("keep")
		out, err := AppendRequest(b, c.req)
		if !errors.Is(err, c.kind) || string(out) != "keep" {
			t.Errorf("%s: %v, appended %q; want %v and nothing", c.name, err, out[len(b):], c.kind)
		}
		if got := SizeRequest(c.req); (got == -1) == c.sizeFits {
			t.Errorf("%s: SizeRequest = %d", c.name, got)
		}
	}
}

func TestRequestNonCanonical(t *testing.T) {
	full := strings.Repeat("a", partMax)
	head := []byte("ANTH\x00")
	tail := []byte{0, 1}
	part := func(role byte, content string) []byte {
		return append([]byte{role, byte(len(content) >> 8), byte(len(content))}, content...)
	}
	build := func(parts ...[]byte) []byte {
		b := append(append([]byte{}, head...), byte(len(parts)))
		for _, p := range parts {
			b = append(b, p...)
		}
		return append(b, tail...)
	}
	cases := map[string][]byte{
		"short continued part": build(part(0x80, "abc"), part(0, "d")),
		"empty last part":      build(part(0x80, full), part(0, "")),
		"continued last part":  build(part(0x80, full)),
		"role changes":         build(part(0x80, full), part(1, "x")),
		"split utf-8 invalid":  build(part(0x80, full[:partMax-1]+"\xe4"), part(0, "\xbd")),
	}
	for name, b := range cases {
		if _, err := ParseRequest(b); !errors.Is(err, ErrBadPayload) {
			t.Errorf("%s: %v, want ErrBadPayload", name, err)
		}
	}
	// A character split between parts is fine: UTF-8 is checked on the
	// joined content.
	ok := build(part(0x80, full[:partMax-1]+"\xe4"), part(0, "\xbd\xa0"))
	req, err := ParseRequest(ok)
	if err != nil || !strings.HasSuffix(req.Messages[0].Content, "你") {
		t.Fatalf("split character: %v", err)
	}
}

func TestRequestLimits(t *testing.T) {
	b := mustRequest(specRequest)
	if _, err := (Limits{MaxRequestSize: len(b) - 1}).ParseRequest(b); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the size limit: %v", err)
	}
	if _, err := (Limits{MaxRequestSize: len(b) - 1}).ReadRequest(bytes.NewReader(b)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadRequest over the size limit: %v", err)
	}
	req, err := ReadRequest(bytes.NewReader(b))
	if err != nil || req.Model != "claude" {
		t.Fatalf("ReadRequest: %+v, %v", req, err)
	}
	// A count that claims 65,535 parts in a tiny request allocates by the
	// input, not by the claim.
	huge := []byte("ANTH\x00\xFF\xFF\xFF")
	allocs := testing.AllocsPerRun(10, func() { _, _ = (Limits{MaxMessages: 1 << 20}).ParseRequest(huge) })
	if allocs > 3 {
		t.Fatalf("%v allocations for a 8-byte request", allocs)
	}
}
