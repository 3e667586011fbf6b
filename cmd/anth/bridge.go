package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/layer0/anth/chat"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

const encodeUsage = `usage: anth encode [--from sse|text|raw] [--api messages|chat] [FILE|-]
Writes ANTH on standard output, from (default) a stream of Server-Sent
Events of the Anthropic Messages API or OpenAI's Chat Completions (through
that API's bridge, SPEC.md §7a, §7b), from plain text (one TEXT block, then
DONE end_turn), or from ANTH (checked as a response and written again).

` + apiFlagUsage

const decodeUsage = `usage: anth decode [--to sse|text|jsonl] [--api messages|chat] [--vocab FILE] [FILE|-]
Reads a response and writes (default) the Server-Sent Events the official
SDKs read, the API's own (Messages events, or Chat Completions chunks
ending in data: [DONE]), the text of its text blocks as whole UTF-8
characters (not thinking, signatures, tool input or citations; a Chat
Completions stream's content and refusal, its choices' in stream order), or
one JSON object per frame. The input is ANTH, anth-deflate (inflated) or the
API's own SSE (read through the bridge); an API error body is reported with
its type and message. Output
to a pipe or terminal is flushed after each frame or event. A response that
ends early, or with an ERROR frame, is an error (exit 1) after what it
carried is written.

--to text reads a response's text from its token frames too (SPEC.md
§3.12-3.14) with the vocabulary of --vocab FILE: a stream that names its
vocabulary in a VOCAB frame is checked against FILE's (an error if they
differ), one that names none is read with FILE's, and one whose text travels
in TEXT frames beside its IDs is read from those. Token frames to read as
text and no --vocab are an error. (A Chat Completions stream's IDs travel
beside its text: --vocab changes nothing there.)

` + vocabFileUsage + `
--to jsonl fields: every object has offset (in the ANTH), type, length; then
  TOKEN, TOKEN32  tokens: [ids]
  TEXT            block, text
  DELTA           block, kind (input_json|thinking|signature|citation), data
  BLOCK           block, op
  USAGE           input_tokens, output_tokens, cache_hit_ratio (0 to 1)
  CACHE_USAGE     cache_read_input_tokens, cache_creation_input_tokens
  ERROR           code (HTTP status), error_type (as the API names it), message
  DONE            stop_reason (null if none), stop_sequence (if any); for
                  Chat Completions finish_reason instead of stop_reason
  EVENT           name, encoding (json|deflate|binary32|deflate-after),
                  more, data (JSON, or a string if it continues or is not
                  JSON; deflated data inflated with the API's dictionary)
  VOCAB           name, kind (byte-level|sentencepiece), hash (hex), text_too,
                  specials ({"ID": name}) or specials_digest (hex)
  PAD             nothing more
  other types     payload_hex

` + apiFlagUsage

const statsUsage = `usage: anth stats [--api messages|chat] FILE|-
Prints the size of an SSE recording (- reads standard input) of either API, of the ANTH that carries it, and of that
ANTH in the anth-deflate coding with a record per event (and the API's
dictionary), as anthhttp.Proxy sends it to a client that asks for it when
the upstream sends its events one at a time; then which API's stream it read.

` + apiFlagUsage

// convertArgs parses the one format flag, --api, --vocab when vocabPath is
// not nil, and the optional input file of anth encode and anth decode, and
// opens the input.
func convertArgs(cmd, flagName, def string, formats []string, args []string, stdin io.Reader, vocabPath *string) (string, *streamAPI, io.Reader, string, func(), error) {
	fs := flag.NewFlagSet("anth "+cmd, flag.ContinueOnError)
	format := fs.String(flagName, def, "")
	if vocabPath != nil {
		fs.StringVar(vocabPath, "vocab", "", "")
	}
	var api apiFlag
	fs.Var(&api, "api", "")
	if err := parseFlags(cmd, fs, args); err != nil {
		return "", nil, nil, "", nil, err
	}
	if !slices.Contains(formats, *format) {
		return "", nil, nil, "", nil, usageErr(cmd, "--%s %q: want one of %v", flagName, *format, formats)
	}
	if fs.NArg() > 1 {
		return "", nil, nil, "", nil, usageErr(cmd, "unexpected argument %q", fs.Arg(1))
	}
	in, name, done, err := openArg(fs.Arg(0), stdin)
	return *format, apiByName(api.name), in, name, done, err
}

// encode converts SSE (of the API --api names, or that the stream shows),
// plain text or ANTH (re-checked) to ANTH.
func encode(args []string, stdin io.Reader, stdout io.Writer) error {
	from, given, in, name, done, err := convertArgs("encode", "from", "sse", []string{"sse", "text", "raw"}, args, stdin, nil)
	if err != nil {
		return err
	}
	defer done()
	switch from {
	case "sse":
		br := bufio.NewReaderSize(in, maxSniff)
		a, guessed, err := chooseAPI(given, sniffSSE(br), kindSSE)
		if err != nil {
			return inFile(name, err)
		}
		_, err = io.Copy(frameWriter{stdout, stdout}, a.NewDecoder(br, false))
		return inFile(name, guessedAPI(err, a, guessed))
	case "text":
		err = encodeText(frame.NewWriter(frameWriter{stdout, stdout}, frame.WriterOptions{}), in)
	case "raw":
		br := bufio.NewReaderSize(in, maxSniff)
		if head, _ := br.Peek(len(frame.Magic)); string(head) == frame.Magic {
			if _, _, err := chooseAPI(given, sniffANTH(br), kindANTH); err != nil {
				return inFile(name, err)
			}
		}
		err = forward(frame.NewWriter(frameWriter{stdout, stdout}, frame.WriterOptions{}), br)
	}
	return inFile(name, err)
}

// encodeText writes the text of in as one TEXT block, then DONE.
func encodeText(w *frame.Writer, in io.Reader) error {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if werr := w.WriteText(0, buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return w.WriteDone(frame.StopEndTurn, "")
		}
		if err != nil {
			return err
		}
	}
}

// forward writes every frame of the response in reads, unknown ignorable
// ones included.
func forward(w *frame.Writer, in io.Reader) error {
	var werr error
	r := frame.NewReader(in, frame.ReaderOptions{OnSkip: func(f frame.Frame) {
		if werr == nil {
			werr = w.WriteFrame(f)
		}
	}})
	for f, err := range r.All() {
		if err != nil {
			return err
		}
		if werr = w.WriteFrame(f); werr != nil {
			return werr
		}
	}
	if werr != nil {
		return werr
	}
	return w.Flush()
}

// decode converts ANTH to SSE, plain text or one JSON object per frame.
func decode(args []string, stdin io.Reader, stdout io.Writer) error {
	var vocabPath string
	to, given, in, name, done, err := convertArgs("decode", "to", "sse", []string{"sse", "text", "jsonl"}, args, stdin, &vocabPath)
	if err != nil {
		return err
	}
	defer done()
	if vocabPath != "" && to != "text" {
		return usageErr("decode", "--vocab goes with --to text")
	}
	var v *vocab.Vocabulary
	if vocabPath != "" {
		if v, err = loadVocab(vocabPath); err != nil {
			return err
		}
	}
	src, err := openANTH(in, given)
	if err != nil {
		return inFile(name, err)
	}
	switch to {
	case "sse":
		// The API's own Encoder: a stream with no events of its own gets
		// the API's default envelope (model "unknown").
		enc := src.api.NewEncoder(stdout, src.kind == kindDeflate, nil)
		if _, err = io.Copy(frameWriter{enc, stdout}, src.r); err == nil {
			err = enc.Close()
		}
	case "text":
		if src.api == apiChat {
			err = decodeChatText(stdout, frame.NewReader(src.r, frame.ReaderOptions{}))
		} else {
			err = decodeText(stdout, frame.NewReader(src.r, frame.ReaderOptions{}), src.api, v)
		}
	case "jsonl":
		err = decodeJSONL(stdout, src.r, src.api)
	}
	// The guess matters where a bridge reads the input or writes the output.
	return inFile(name, guessedAPI(err, src.api, src.guessed && (src.kind == kindSSE || to == "sse")))
}

// decodeChatText is decodeText for a Chat Completions stream, whose text
// blocks (each choice's content and refusal, SPEC.md §7b.1) interleave when
// it has several choices: the first block with text streams as it comes;
// the others' text is held, and written at the end (DONE, ERROR or an error
// of the input) in block order, each after a line feed unless what was
// written before ends in one. A stream of one choice's content, the usual
// one, thus streams all of its text, as decodeText does.
func decodeChatText(out io.Writer, r *frame.Reader) error {
	var text frame.Text
	live, started := uint16(0), false
	held := map[uint16][]byte{}
	var order []uint16 // held blocks, by first text
	last := byte('\n') // the last byte written; none yet is like a line's end
	write := func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		out.Write(b)
		last = b[len(b)-1]
		return endFrame(out)
	}
	hold := func(block uint16, b []byte) {
		if len(b) == 0 {
			return
		}
		if _, ok := held[block]; !ok {
			order = append(order, block)
		}
		held[block] = append(held[block], b...)
	}
	end := func(err error) error {
		if started {
			if werr := write(text.Flush(nil, live, 0)); werr != nil {
				return werr
			}
		}
		for _, b := range order {
			hold(b, text.Flush(nil, b, 0))
		}
		slices.Sort(order)
		for _, b := range order {
			if last != '\n' {
				if werr := write([]byte("\n")); werr != nil {
					return werr
				}
			}
			if werr := write(held[b]); werr != nil {
				return werr
			}
		}
		return err
	}
	for f, err := range r.All() {
		if err != nil {
			return end(err)
		}
		switch f.Type {
		case frame.TypeError:
			code, msg, _ := f.ErrorMessage()
			return end(fmt.Errorf("the response failed: %d %s: %s", code, chat.ErrorTypeName(code), msg))
		case frame.TypeDone:
			return end(nil)
		case frame.TypeText:
			block, t, _ := f.Text()
			if !started {
				live, started = block, true
			}
			b := text.Append(nil, block, 0, t)
			if block != live {
				hold(block, b)
			} else if err := write(b); err != nil {
				return err
			}
		}
	}
	return end(nil)
}

// decodeJSONL writes one JSON object per frame of in, read raw, skipped
// frames included, each flushed as it is written to a pipe or terminal. The
// fields are jsonlFields's, documented in decodeUsage.
func decodeJSONL(out io.Writer, in io.Reader, api *streamAPI) error {
	enc := json.NewEncoder(out)
	var werr error
	var r *frame.Reader
	st := &streamFrames{events: api.events()}
	emit := func(f frame.Frame) {
		if werr == nil {
			if werr = enc.Encode(jsonlFields(r.Offset()-int64(f.Size()), f, api, st)); werr == nil {
				werr = endFrame(out)
			}
		}
	}
	r = frame.NewReader(in, frame.ReaderOptions{RawFrames: true, OnSkip: emit})
	for f, err := range r.All() {
		if err != nil {
			return err
		}
		if emit(f); werr != nil {
			return werr
		}
	}
	return werr
}

// jsonlFields is a frame as anth decode --to jsonl writes it: offset, type
// and length, then its payload's fields, numbers as numbers (decodeUsage
// lists them).
func jsonlFields(off int64, f frame.Frame, api *streamAPI, st *streamFrames) map[string]any {
	m := map[string]any{"offset": off, "type": f.Type.String(), "length": len(f.Payload)}
	switch f.Type {
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken:
		m["tokens"] = st.tokens(f)
	case frame.TypeText:
		block, text, _ := f.Text()
		m["block"], m["text"] = block, string(text)
	case frame.TypeUsage:
		u, _ := f.Usage()
		m["input_tokens"], m["output_tokens"] = u.InputTokens, u.OutputTokens
		m["cache_hit_ratio"] = float64(u.CacheHitRatio) / frame.PPM
	case frame.TypeCacheUsage:
		u, _ := f.CacheUsage()
		m["cache_read_input_tokens"], m["cache_creation_input_tokens"] = u.CacheReadInputTokens, u.CacheCreationInputTokens
	case frame.TypeError:
		code, msg, _ := f.ErrorMessage()
		m["code"], m["error_type"], m["message"] = code, api.errorType(code), msg
	case frame.TypeDone:
		reason, seq, _ := f.Done()
		key := "stop_reason"
		if api == apiChat {
			key = "finish_reason"
		}
		m[key] = nil
		if reason != frame.StopUnspecified {
			m[key] = api.stopReason(reason)
		}
		if len(seq) > 0 {
			m["stop_sequence"] = string(seq)
		}
	case frame.TypeDelta:
		block, kind, data, _ := f.Delta()
		m["block"], m["kind"], m["data"] = block, deltaKindName(kind), string(data)
	case frame.TypeBlock:
		block, op, _ := f.Block()
		m["block"], m["op"] = block, op.String()
	case frame.TypeEvent:
		ev, _ := f.Event()
		data := ev.Data
		m["encoding"] = eventEncodingName(ev.Encoding)
		if d, ok := st.events(f); ok && ev.Encoding != frame.EventJSON && !ev.More {
			data = d
		}
		m["name"], m["more"] = string(ev.Name), ev.More
		if json.Valid(data) && !ev.More {
			m["data"] = json.RawMessage(data)
		} else {
			m["data"] = string(data)
		}
	case frame.TypeVocab:
		fv, _ := f.Vocab()
		m["name"], m["kind"], m["hash"] = string(fv.Name), vocab.Kind(fv.Kind).String(), fmt.Sprintf("%x", fv.Hash)
		m["text_too"] = fv.Flags&frame.VocabText != 0
		if fv.Flags&frame.VocabDigest != 0 {
			m["specials_digest"] = fmt.Sprintf("%x", fv.Digest)
		} else {
			m["specials"] = jsonlSpecials(fv.Specials)
		}
	case frame.TypePad:
	default:
		m["payload_hex"] = fmt.Sprintf("%x", f.Payload)
	}
	return m
}

// deltaKindName is a DELTA frame's kind as the Messages API names the delta
// it carries.
func deltaKindName(k frame.DeltaKind) string {
	switch k {
	case frame.DeltaInputJSON:
		return "input_json"
	case frame.DeltaThinking:
		return "thinking"
	case frame.DeltaSignature:
		return "signature"
	case frame.DeltaCitation:
		return "citation"
	}
	return k.String()
}

// stats compares an SSE recording, of either API, with its ANTH form.
func stats(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth stats", flag.ContinueOnError)
	var api apiFlag
	fs.Var(&api, "api", "")
	if err := parseFlags("stats", fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("stats", "want one FILE (- for standard input), have %d arguments", fs.NArg())
	}
	r, name, done, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer done()
	in, err := io.ReadAll(r)
	if err != nil {
		return inFile(name, err)
	}
	a, guessed, err := chooseAPI(apiByName(api.name), sniffSSE(bufio.NewReaderSize(bytes.NewReader(in), maxSniff)), kindSSE)
	if err != nil {
		return inFile(name, err)
	}
	err = statsOf(stdout, in, a)
	return inFile(name, guessedAPI(err, a, guessed))
}

// statsOf prints the sizes of the SSE stream in of API a, its ANTH and its
// anth-deflate.
func statsOf(stdout io.Writer, in []byte, a *streamAPI) error {
	anth, err := io.ReadAll(a.NewDecoder(bytes.NewReader(in), false))
	if err != nil {
		return err
	}
	deltas := 0
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			return err
		}
		if f.Type == frame.TypeText || f.Type == frame.TypeDelta {
			deltas++
		}
	}
	coded, err := codedSize(in, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "SSE   %7d bytes\nANTH  %7d bytes\nratio %.3fx (%.1fx smaller)\n", len(in), len(anth), float64(len(anth))/float64(len(in)), float64(len(in))/float64(len(anth)))
	fmt.Fprintf(stdout, "anth-deflate %d bytes, %.3fx the SSE (a record per event, as anth proxy sends it)\n", coded, float64(coded)/float64(len(in)))
	if deltas > 0 {
		fmt.Fprintf(stdout, "%d deltas: %.1f bytes each as SSE, %.1f as ANTH (whole stream over deltas)\n", deltas, float64(len(in))/float64(deltas), float64(len(anth))/float64(deltas))
	}
	fmt.Fprintf(stdout, "a stream of the %s (--api %s)\n", a.title, a.name)
	return nil
}

// codedSize returns the size of the ANTH of an SSE stream of API a in the
// anth-deflate coding with a's dictionary, a record per event, EVENT data
// raw: what anthhttp.Proxy sends a client that asks for it.
func codedSize(sseStream []byte, a *streamAPI) (int, error) {
	var out bytes.Buffer
	z := deflate.NewWriter(&out, a.Dictionary())
	d := a.NewDecoder(bytes.NewReader(sseStream), true)
	for {
		b, err := d.Next()
		if err == io.EOF {
			return out.Len(), nil
		}
		if err != nil {
			return 0, err
		}
		z.Write(b)
		z.Flush()
	}
}

// jsonlSpecials is a VOCAB frame's special table (SPEC.md §3.12, checked
// by the frame layer) as a JSON object, ID → name.
func jsonlSpecials(table []byte) map[string]string {
	m := map[string]string{}
	for p := 4; p+6 <= len(table); {
		id := uint32(table[p])<<24 | uint32(table[p+1])<<16 | uint32(table[p+2])<<8 | uint32(table[p+3])
		n := int(table[p+4])<<8 | int(table[p+5])
		if p+6+n > len(table) {
			break
		}
		m[fmt.Sprint(id)] = string(table[p+6 : p+6+n])
		p += 6 + n
	}
	return m
}
