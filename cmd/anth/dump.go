package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

const dumpUsage = `usage: anth dump [--api messages|chat] [--vocab FILE] [FILE|-]
Prints one line per frame of an ANTH stream (default standard input): its
offset, type, payload length and payload, stop reasons and error types as
the API names them, deflated EVENT data inflated with its dictionary. It
reads frames as they are on the wire, in any order (a response's grammar is
not checked). anth-deflate and SSE input are read as decode reads them, and
a first line says so.

--vocab FILE shows each token ID with its text in FILE's vocabulary (a
special token by its name, an ID the vocabulary lacks as ?), and checks a
VOCAB frame against it: a stream naming another vocabulary is an error.
` + vocabFileUsage + `
` + apiFlagUsage

func runDump(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth dump", flag.ContinueOnError)
	var api apiFlag
	fs.Var(&api, "api", "")
	vocabPath := fs.String("vocab", "", "")
	if err := parseFlags("dump", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageErr("dump", "unexpected argument %q", fs.Arg(1))
	}
	var v *vocab.Vocabulary
	if *vocabPath != "" {
		var err error
		if v, err = loadVocab(*vocabPath); err != nil {
			return err
		}
	}
	in, name, done, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer done()
	src, err := openANTH(in, apiByName(api.name))
	if err != nil {
		return inFile(name, err)
	}
	if src.kind != kindANTH {
		// Offsets are in the ANTH, which is not what the file holds.
		fmt.Fprintf(stdout, "# %s input of the %s: the frames of the ANTH it carries, offsets in that ANTH\n", src.kind, src.api.title)
	}
	return inFile(name, guessedAPI(dump(stdout, src.r, src.api, v), src.api, src.guessed && src.kind == kindSSE))
}

// dump prints one line per frame: offset, type, payload length, payload,
// each line flushed as it is written to a pipe or terminal. With a
// vocabulary v, token IDs show their text, and a VOCAB frame naming
// another vocabulary is an error after its line.
func dump(w io.Writer, in io.Reader, api *streamAPI, v *vocab.Vocabulary) error {
	var werr error
	var r *frame.Reader
	st := &streamFrames{events: api.events()}
	r = frame.NewReader(in, frame.ReaderOptions{RawFrames: true, OnSkip: func(f frame.Frame) {
		printFrame(w, r.Offset()-int64(f.Size()), f, api, st)
		if werr == nil {
			werr = endFrame(w)
		}
	}})
	for f, err := range r.All() {
		if err != nil {
			return err
		}
		off := r.Offset() - int64(f.Size())
		if v != nil && f.Type.IsToken() {
			fmt.Fprintf(w, dumpLine, off, f.Type, len(f.Payload), describeTokens(st.tokens(f), v))
		} else {
			printFrame(w, off, f, api, st)
		}
		if werr == nil {
			werr = endFrame(w)
		}
		if werr != nil {
			return werr
		}
		if v != nil && f.Type == frame.TypeVocab {
			if fv, verr := f.Vocab(); verr == nil {
				if err := v.Check(fv); err != nil {
					return fmt.Errorf("offset %d: VOCAB frame: %w", off, err)
				}
			}
		}
	}
	return werr
}

// dumpLine is a frame's line: offset, type (SHORT_TOKEN24, the longest
// name, fits), payload length, payload.
const dumpLine = "%6d  %-13s %5d  %s\n"

func printFrame(w io.Writer, off int64, f frame.Frame, api *streamAPI, st *streamFrames) {
	fmt.Fprintf(w, dumpLine, off, f.Type, len(f.Payload), describe(f, api, st))
}

// streamFrames reads what a stream's frames mean with the frames before
// them: its EVENTs (api.events; encoding 3 follows the EVENT before) and
// the IDs of its token frames (a PACKED_TOKEN frame's follow the ones
// before, SPEC.md §3.1.1). Give it every frame of the stream, in order.
type streamFrames struct {
	events func(frame.Frame) ([]byte, bool)
	ids    frame.TokenDecoder
}

// tokens returns the IDs of token frame f, none for a frame that breaks its
// layout (the Reader reports that).
func (s *streamFrames) tokens(f frame.Frame) []uint32 {
	ids, _ := s.ids.Tokens(nil, f)
	if ids == nil {
		ids = []uint32{}
	}
	return ids
}

// describe renders a frame's payload for people, naming stop reasons and
// error types as api does and inflating EVENT data with its dictionary:
// events, api's reader of the stream's EVENTs, is given every EVENT frame.
func describe(f frame.Frame, api *streamAPI, st *streamFrames) string {
	switch f.Type {
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken:
		ids := st.tokens(f)
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.FormatUint(uint64(id), 10)
		}
		return strings.Join(s, " ")
	case frame.TypeText:
		block, text, _ := f.Text()
		return fmt.Sprintf("block %d %q", block, text)
	case frame.TypeUsage:
		u, _ := f.Usage()
		return fmt.Sprintf("input_tokens %d, output_tokens %d, cache_hit_ratio %.4f%%",
			u.InputTokens, u.OutputTokens, float64(u.CacheHitRatio)/frame.PPM*100)
	case frame.TypeCacheUsage:
		u, _ := f.CacheUsage()
		return fmt.Sprintf("cache_read_input_tokens %d, cache_creation_input_tokens %d",
			u.CacheReadInputTokens, u.CacheCreationInputTokens)
	case frame.TypeError:
		code, msg, _ := f.ErrorMessage()
		return fmt.Sprintf("%d %s %q", code, api.errorType(code), msg)
	case frame.TypeDone:
		reason, seq, _ := f.Done()
		if reason == frame.StopUnspecified && len(seq) == 0 {
			return "(no stop reason)"
		}
		if len(seq) > 0 {
			return fmt.Sprintf("%s %q", api.stopReason(reason), seq)
		}
		return api.stopReason(reason)
	case frame.TypePad:
		return fmt.Sprintf("(%d bytes of padding)", len(f.Payload))
	case frame.TypeDelta:
		block, kind, data, _ := f.Delta()
		return fmt.Sprintf("block %d %s %q", block, kind, data)
	case frame.TypeBlock:
		block, op, _ := f.Block()
		return fmt.Sprintf("block %d %s", block, op)
	case frame.TypeVocab:
		return describeVocab(f)
	case frame.TypeEvent:
		ev, _ := f.Event()
		data := ev.Data
		enc := eventEncodingName(ev.Encoding)
		if d, ok := st.events(f); ok && ev.Encoding != frame.EventJSON && !ev.More { // a continued event's frames show as they are
			data = d
		}
		more := ""
		if ev.More {
			more = " (continues)"
		}
		return fmt.Sprintf("%s (%s, %d bytes)%s %s", ev.Name, enc, len(ev.Data), more, data)
	}
	return fmt.Sprintf("skipped ignorable type: % X", f.Payload)
}

// eventEncodingName names an EVENT's encoding (SPEC.md §3.10) as dump and
// decode --to jsonl show it.
func eventEncodingName(enc uint8) string {
	switch enc {
	case frame.EventDeflate:
		return "deflate"
	case frame.EventDeflateAfter:
		return "deflate-after"
	case frame.EventBinary32:
		return "binary32"
	}
	return "json"
}
