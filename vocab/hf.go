package vocab

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrUnsupported means a vocabulary file of a kind this package does not
// read yet: a tokenizer.json whose model is not BPE (Unigram, WordPiece)
// or whose decoder is neither byte-level nor SentencePiece's.
var ErrUnsupported = errors.New("unsupported tokenizer")

// gpt2Bytes maps the characters of GPT-2's bytes_to_unicode back to
// bytes: the printable bytes ! to ~, ¡ to ¬ and ® to ÿ stand for
// themselves, the other 68 for U+0100 onwards in byte order.
func gpt2Bytes() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			m[rune(b)] = byte(b)
		} else {
			m[0x100+n] = byte(b)
			n++
		}
	}
	return m
}

// ParseHF reads a Hugging Face tokenizer.json of a BPE model. With a
// ByteLevel decoder (GPT-2, Llama 3, Qwen) it makes a ByteLevel Vocabulary
// of model.vocab's tokens, each character mapped back to a byte by GPT-2's
// bytes_to_unicode; with SentencePiece's decoders (Llama 2: Replace ▁ by a
// space and ByteFallback; or Metaspace) a SentencePiece Vocabulary, ▁ read
// as a space, "<0xXX>" as a byte piece and "<s>" as BOS. Hugging Face
// strips the space at the start of the decoded text; a Detokenizer strips
// it after BOS, as llama2.c does, which is the same for a sequence that
// starts with BOS. Both take added_tokens, whose content is their text; an
// added token marked special is a special token, and an added token
// replaces a model token of the same ID (GPT-2's <|endoftext|> is both).
// Merges and the rest are not read. IDs follow ParseTiktoken's rules. A
// model other than BPE or another decoder is ErrUnsupported. Errors are *Error with the byte offset where the fault
// was found: just past the JSON key or value at fault, or before the added
// token at fault. The Vocabulary holds no reference to data.
func ParseHF(data []byte) (*Vocabulary, error) {
	r := &hfReader{dec: json.NewDecoder(bytes.NewReader(data)), n: len(data)}
	r.dec.UseNumber()
	type added struct {
		id      uint32
		content string
		special bool
		off     int
	}
	type tok struct {
		id     uint32
		off, n uint32
		pos    int
	}
	var (
		toks      []tok
		raw       []byte // model.vocab's keys, as written
		adds      []added
		modelType string
		decType   string
		seqTypes  []string
		sawModel  bool
	)
	err := r.object(func(key string) error {
		switch key {
		case "model":
			sawModel = true
			return r.object(func(key string) error {
				switch key {
				case "type":
					var err error
					modelType, err = r.str()
					return err
				case "vocab":
					t, err := r.token()
					if err != nil {
						return err
					}
					if t != json.Delim('{') {
						// Unigram's vocab is an array of [piece, score].
						return fileErr(r.off(), ErrUnsupported, "vocab is not an object: not a BPE model")
					}
					return r.members(func(key string) error {
						pos := r.off()
						id, err := r.id()
						if err != nil {
							return err
						}
						if len(key) > 3*MaxTokenLen {
							return fileErr(pos, ErrTooLarge, "token of "+strconv.Itoa(len(key))+" bytes")
						}
						toks = append(toks, tok{id: id, off: uint32(len(raw)), n: uint32(len(key)), pos: pos})
						raw = append(raw, key...)
						return nil
					})
				}
				return r.skip()
			})
		case "added_tokens":
			return r.array(func() error {
				a := added{off: r.off()}
				seen := 0
				err := r.object(func(key string) error {
					var err error
					switch key {
					case "id":
						seen |= 1
						a.id, err = r.id()
					case "content":
						seen |= 2
						a.content, err = r.str()
					case "special":
						a.special, err = r.bool()
					default:
						err = r.skip()
					}
					return err
				})
				if err == nil && seen != 3 {
					err = fileErr(a.off, ErrMalformed, "added token without id or content")
				}
				if err == nil && (len(a.content) == 0 || len(a.content) > MaxTokenLen) {
					err = fileErr(a.off, ErrMalformed, "added token of "+strconv.Itoa(len(a.content))+" bytes")
				}
				adds = append(adds, a)
				return err
			})
		case "decoder":
			t, err := r.token()
			if err != nil || t == nil {
				return err // null: no decoder
			}
			if t != json.Delim('{') {
				return fileErr(r.off(), ErrMalformed, "decoder is not an object")
			}
			return r.members(func(key string) error {
				switch key {
				case "type":
					var err error
					decType, err = r.str()
					return err
				case "decoders": // a Sequence's
					return r.array(func() error {
						return r.object(func(key string) error {
							if key != "type" {
								return r.skip()
							}
							t, err := r.str()
							seqTypes = append(seqTypes, t)
							return err
						})
					})
				}
				return r.skip()
			})
		}
		return r.skip()
	})
	if err != nil {
		return nil, err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, fileErr(r.off(), ErrMalformed, "bytes after the JSON object")
	}
	if !sawModel || modelType != "BPE" {
		return nil, fileErr(-1, ErrUnsupported, "model type "+strconv.Quote(modelType)+", want \"BPE\"")
	}
	kind, ok := hfKind(decType, seqTypes)
	if !ok {
		return nil, fileErr(-1, ErrUnsupported, "decoder type "+strconv.Quote(decType)+" "+strings.Join(seqTypes, ",")+", want ByteLevel, Metaspace or a Sequence with Replace and ByteFallback")
	}
	// The tokens' bytes, by the decoder's rules.
	buf := make([]byte, 0, len(raw))
	flags := make([]uint8, len(toks))
	toByte := gpt2Bytes()
	for i, t := range toks {
		key := raw[t.off : t.off+t.n]
		start := len(buf)
		flags[i] = ordinary
		if kind == ByteLevel {
			for _, c := range string(key) {
				b, ok := toByte[c]
				if !ok {
					return nil, fileErr(t.pos, ErrMalformed, "token "+strconv.Quote(string(key))+": "+strconv.QuoteRune(c)+" is not a byte-level character")
				}
				buf = append(buf, b)
			}
		} else if b, ok := bytePiece(key); ok {
			flags[i] = bytePc
			buf = append(buf, b)
		} else {
			buf = append(buf, bytes.ReplaceAll(key, []byte("\u2581"), []byte(" "))...)
		}
		if len(buf)-start > MaxTokenLen {
			return nil, fileErr(t.pos, ErrTooLarge, "token of "+strconv.Itoa(len(buf)-start)+" bytes")
		}
		toks[i].off, toks[i].n = uint32(start), uint32(len(buf)-start)
	}
	maxID := int64(-1)
	for _, t := range toks {
		maxID = max(maxID, int64(t.id))
	}
	for _, a := range adds {
		maxID = max(maxID, int64(a.id))
	}
	if maxID >= int64(len(toks)+len(adds)+maxGap) {
		return nil, fileErr(-1, ErrTooLarge, "largest ID "+strconv.FormatInt(maxID, 10)+" for "+strconv.Itoa(len(toks)+len(adds))+" tokens, want fewer than "+strconv.Itoa(maxGap)+" IDs unused")
	}
	v := &Vocabulary{kind: kind, bos: -1, tab: make([]entry, maxID+1), sum: new(summary)}
	for i, t := range toks {
		if v.tab[t.id].flag != absent {
			return nil, fileErr(t.pos, ErrMalformed, "ID "+strconv.FormatUint(uint64(t.id), 10)+" used twice")
		}
		v.tab[t.id] = entry{off: t.off, n: uint16(t.n), flag: flags[i]}
	}
	sort.SliceStable(adds, func(i, j int) bool { return adds[i].id < adds[j].id })
	for i, a := range adds {
		if i > 0 && adds[i-1].id == a.id {
			return nil, fileErr(a.off, ErrMalformed, "added token ID "+strconv.FormatUint(uint64(a.id), 10)+" used twice")
		}
		flag := uint8(ordinary)
		if a.special {
			flag = special
		}
		v.tab[a.id] = entry{off: uint32(len(buf)), n: uint16(len(a.content)), flag: flag}
		buf = append(buf, a.content...)
	}
	v.data = buf
	v.finish()
	if kind == SentencePiece {
		if id, ok := v.SpecialID("<s>"); ok {
			v.bos = int64(id)
		}
	}
	return v, nil
}

// hfKind tells the vocabulary's kind from its decoder: ByteLevel (GPT-2,
// Llama 3, Qwen), or SentencePiece's, which Llama 2's tokenizer.json spells
// Sequence[Replace(▁, " "), ByteFallback, Fuse, Strip(" ", 1, 0)] and others
// Metaspace.
func hfKind(decType string, seq []string) (Kind, bool) {
	switch decType {
	case "ByteLevel":
		return ByteLevel, true
	case "Metaspace":
		return SentencePiece, true
	case "Sequence":
		replace, fallback := false, false
		for _, t := range seq {
			switch t {
			case "Replace":
				replace = true
			case "ByteFallback":
				fallback = true
			case "Fuse", "Strip":
			default:
				return 0, false
			}
		}
		if replace && fallback {
			return SentencePiece, true
		}
	}
	return 0, false
}

// hfReader walks a JSON document token by token, so that errors carry the
// offset where they were found.
type hfReader struct {
	dec *json.Decoder
	n   int
}

func (r *hfReader) off() int { return int(r.dec.InputOffset()) }

func (r *hfReader) token() (json.Token, error) {
	t, err := r.dec.Token()
	if err == nil {
		return t, nil
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fileErr(r.n, ErrTruncated, "JSON ends early")
	}
	off := r.off()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	return nil, fileErr(min(off, r.n), ErrMalformed, "JSON: "+err.Error())
}

// object reads an object, calling member for each key; member reads the
// value.
func (r *hfReader) object(member func(key string) error) error {
	t, err := r.token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return fileErr(r.off(), ErrMalformed, "want an object")
	}
	return r.members(member)
}

// members reads the rest of an object whose { has been read.
func (r *hfReader) members(member func(key string) error) error {
	for r.dec.More() {
		t, err := r.token()
		if err != nil {
			return err
		}
		if err := member(t.(string)); err != nil {
			return err
		}
	}
	_, err := r.token() // }
	return err
}

func (r *hfReader) array(elem func() error) error {
	t, err := r.token()
	if err != nil {
		return err
	}
	if t != json.Delim('[') {
		return fileErr(r.off(), ErrMalformed, "want an array")
	}
	for r.dec.More() {
		if err := elem(); err != nil {
			return err
		}
	}
	_, err = r.token() // ]
	return err
}

// skip reads one value of any kind.
func (r *hfReader) skip() error {
	depth := 0
	for {
		t, err := r.token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func (r *hfReader) str() (string, error) {
	t, err := r.token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok || !utf8.ValidString(s) {
		return "", fileErr(r.off(), ErrMalformed, "want a string")
	}
	return s, nil
}

func (r *hfReader) bool() (bool, error) {
	t, err := r.token()
	if err != nil {
		return false, err
	}
	b, ok := t.(bool)
	if !ok {
		return false, fileErr(r.off(), ErrMalformed, "want true or false")
	}
	return b, nil
}

func (r *hfReader) id() (uint32, error) {
	t, err := r.token()
	if err != nil {
		return 0, err
	}
	n, ok := t.(json.Number)
	id, ok2 := parseRank([]byte(n))
	if !ok || !ok2 {
		return 0, fileErr(r.off(), ErrMalformed, "ID "+strconv.Quote(string(n))+", want a whole number")
	}
	if id >= MaxTokens {
		return 0, fileErr(r.off(), ErrTooLarge, "ID "+string(n))
	}
	return uint32(id), nil
}
